// Command serveload puts assay serve under many agents at once and checks
// that nothing acknowledged is lost: RUNS runs at once, each sending
// REQUESTS mixed requests (FHIR create and search, HL7 over HTTP and over its
// MLLP port, file PUTs), then completing. It prints requests per second,
// p50 and p99 latency and the sandbox's peak memory per run, and reads every
// snapshot back: each acknowledged write must be in its own run's snapshot
// and in no other.
//
// With -medplum DIR it also runs FHIR creates and searches against the
// independent FHIR engine under Node (fhir/testdata/medplum) and against one
// run of the sandbox, in the same loop, and prints the throughput ratio.
//
// It starts assay serve itself (-assay BINARY, with a seed of -patients
// Patients it writes) and reads its ready line; see bench/serve.sh.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	assay := flag.String("assay", "", "the assay `BINARY` to run (required)")
	runs := flag.Int("runs", 100, "runs at once")
	requests := flag.Int("requests", 200, "requests per run")
	patients := flag.Int("patients", 10000, "Patients in the seed")
	medplum := flag.String("medplum", "", "fhir/testdata/medplum `DIR` (with node_modules): compare FHIR create and search with it")
	compare := flag.Int("compare", 2000, "FHIR requests per side in the comparison")
	flag.Parse()
	if *assay == "" {
		fmt.Fprintln(os.Stderr, "serveload: -assay BINARY is required")
		os.Exit(2)
	}
	if err := run(*assay, *runs, *requests, *patients, *medplum, *compare); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

type ready struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

type sandbox struct {
	ready
	cmd *exec.Cmd
	out string
}

func startServe(assay string, patients int) (*sandbox, error) {
	dir, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return nil, err
	}
	seed := filepath.Join(dir, "seed")
	if err := writeSeed(seed, patients); err != nil {
		return nil, err
	}
	s := &sandbox{out: filepath.Join(dir, "out")}
	s.cmd = exec.Command(assay, "serve", "--seed", seed, "--out", s.out, "--max-runs", "1000")
	s.cmd.Stderr = os.Stderr
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("no ready line: %w", err)
	}
	if err := json.Unmarshal(line, &s.ready); err != nil {
		return nil, err
	}
	return s, nil
}

func writeSeed(seed string, patients int) error {
	if err := os.MkdirAll(filepath.Join(seed, "fhir"), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range patients {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":{"resourceType":"Patient","id":"p%d","gender":"female","name":[{"family":"Fam%d","given":["Ann"]}],"identifier":[{"system":"urn:mrn","value":"m%d"}]}}`, i, i%500, i)
	}
	b.WriteString(`]}`)
	return os.WriteFile(filepath.Join(seed, "fhir", "patients.json"), b.Bytes(), 0o644)
}

// peakRSS reads a process's peak resident memory in bytes (Linux).
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

type runObject struct {
	ID        string            `json:"id"`
	Token     string            `json:"token"`
	Endpoints map[string]string `json:"endpoints"`
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}, Timeout: time.Minute}

func call(method, url, token, contentType string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// acked is what one run had acknowledged.
type acked struct {
	run      string
	patients []string // identifier values created
	controls []string // HL7 control ids ACKed AA
	files    []string // paths written
}

func run(assay string, runs, requests, patients int, medplum string, compare int) error {
	s, err := startServe(assay, patients)
	if err != nil {
		return err
	}
	defer func() {
		s.cmd.Process.Signal(os.Interrupt)
		s.cmd.Wait()
		os.RemoveAll(filepath.Dir(s.out))
	}()
	base := peakRSS(s.cmd.Process.Pid)
	var mu sync.Mutex
	var latencies []time.Duration
	results := make([]acked, runs)
	errs := make(chan error, runs)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, a, err := oneRun(s.ready, i, requests)
			if err != nil {
				errs <- fmt.Errorf("run %d: %w", i, err)
				return
			}
			mu.Lock()
			latencies = append(latencies, lat...)
			results[i] = a
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		return err
	}
	peak := peakRSS(s.cmd.Process.Pid)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration { return latencies[int(float64(len(latencies)-1)*p)] }
	fmt.Printf("serve: %d runs x %d requests on a seed of %d Patients: %d requests in %.2fs, %.0f requests/s, p50 %s, p99 %s\n",
		runs, requests, patients, len(latencies), elapsed.Seconds(), float64(len(latencies))/elapsed.Seconds(), pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond))
	fmt.Printf("serve: peak RSS %.1f MiB (%.1f MiB before the runs): %.0f KiB per run\n",
		float64(peak)/(1<<20), float64(base)/(1<<20), float64(peak-base)/1024/float64(runs))
	if err := verify(s.out, results); err != nil {
		return err
	}
	fmt.Printf("serve: every acknowledged write is in its own run's snapshot and in no other (%d runs read back)\n", runs)
	if medplum != "" {
		return compareMedplum(s.ready, medplum, compare)
	}
	return nil
}

// oneRun creates a run, sends its mixed requests and completes it.
func oneRun(r ready, n, requests int) ([]time.Duration, acked, error) {
	code, data, err := call("POST", r.URL+"/runs", r.Token, "application/json", []byte(fmt.Sprintf(`{"id":"load-%04d"}`, n)))
	if err != nil || code != 201 {
		return nil, acked{}, fmt.Errorf("creating: %d %s %v", code, data, err)
	}
	var ro runObject
	json.Unmarshal(data, &ro)
	a := acked{run: ro.ID}
	mllp, err := net.Dial("tcp", ro.Endpoints["hl7_mllp"])
	if err != nil {
		return nil, a, err
	}
	defer mllp.Close()
	rd := bufio.NewReader(mllp)
	var lat []time.Duration
	for i := range requests {
		id := fmt.Sprintf("%s-%d", ro.ID, i)
		t0 := time.Now()
		switch i % 5 {
		case 0: // FHIR create
			body := fmt.Sprintf(`{"resourceType":"Patient","name":[{"family":"Load"}],"identifier":[{"system":"urn:load","value":%q}]}`, id)
			code, data, err = call("POST", ro.Endpoints["fhir"]+"/Patient", ro.Token, "application/fhir+json", []byte(body))
			if err == nil && code == 201 {
				a.patients = append(a.patients, id)
			}
		case 1: // FHIR search for the last one created
			q := fmt.Sprintf("%s-%d", ro.ID, i-1)
			code, data, err = call("GET", ro.Endpoints["fhir"]+"/Patient?identifier=urn:load|"+q, ro.Token, "", nil)
			if err == nil && code == 200 && !bytes.Contains(data, []byte(`"total":1`)) {
				err = fmt.Errorf("search for %s: %s", q, data)
			}
		case 2: // HL7 over HTTP
			msg := fmt.Sprintf("MSH|^~\\&|LOAD|A|RIS|B|20260101000000||ORM^O01|%s|P|2.5.1\rPID|1||%s\r", id, id)
			body, _ := json.Marshal(map[string]string{"payload": msg})
			code, data, err = call("POST", ro.Endpoints["hl7_outbound"], ro.Token, "application/json", body)
			if err == nil && code == 200 && bytes.Contains(data, []byte(`MSA|AA|`)) {
				a.controls = append(a.controls, id)
			}
		case 3: // HL7 over MLLP
			msg := fmt.Sprintf("MSH|^~\\&|LOAD|A|RIS|B|20260101000000||ORM^O01|%s|P|2.5.1\rPID|1||%s\r", id, id)
			code = 200
			if _, err = mllp.Write([]byte("\x0b" + msg + "\x1c\r")); err == nil {
				var ack []byte
				ack, err = rd.ReadBytes('\x1c')
				rd.ReadByte()
				if err == nil && bytes.Contains(ack, []byte("MSA|AA|")) {
					a.controls = append(a.controls, id)
				}
			}
		case 4: // a file
			p := "outbound/" + id + ".txt"
			code, data, err = call("PUT", ro.Endpoints["files"]+"/"+p, ro.Token, "text/plain", []byte(id))
			if err == nil && code == 201 {
				a.files = append(a.files, p)
			}
		}
		if err != nil {
			return nil, a, err
		}
		if code/100 != 2 {
			return nil, a, fmt.Errorf("request %d answered %d: %s", i, code, data)
		}
		lat = append(lat, time.Since(t0))
	}
	base := strings.TrimSuffix(ro.Endpoints["events"], "/events")
	if code, data, err := call("POST", base+"/complete", ro.Token, "", nil); err != nil || code != 200 {
		return nil, a, fmt.Errorf("completing: %d %s %v", code, data, err)
	}
	return lat, a, nil
}

// verify reads every run's snapshot: its own writes are there, and no
// other run's.
func verify(out string, results []acked) error {
	for _, a := range results {
		snap := filepath.Join(out, a.run, "sandbox")
		store, err := os.ReadFile(filepath.Join(snap, "fhir", "store.json"))
		if err != nil {
			return err
		}
		for _, p := range a.patients {
			if !bytes.Contains(store, []byte(`"`+p+`"`)) {
				return fmt.Errorf("%s: acknowledged Patient %s is not in fhir/store.json", a.run, p)
			}
		}
		if n := bytes.Count(store, []byte(`"urn:load"`)); n != len(a.patients) {
			return fmt.Errorf("%s: fhir/store.json holds %d load Patients, the run created %d", a.run, n, len(a.patients))
		}
		var hl7 bytes.Buffer
		msgs, _ := filepath.Glob(filepath.Join(snap, "hl7", "*.hl7"))
		for _, m := range msgs {
			data, _ := os.ReadFile(m)
			hl7.Write(data)
		}
		for _, c := range a.controls {
			if !bytes.Contains(hl7.Bytes(), []byte("|"+c+"|")) {
				return fmt.Errorf("%s: acknowledged HL7 message %s is not in hl7/", a.run, c)
			}
		}
		if len(msgs) != len(a.controls) {
			return fmt.Errorf("%s: hl7/ holds %d messages, the run had %d acknowledged", a.run, len(msgs), len(a.controls))
		}
		for _, f := range a.files {
			data, err := os.ReadFile(filepath.Join(snap, "sftp", filepath.FromSlash(f)))
			if err != nil || !strings.HasPrefix(string(data), a.run+"-") {
				return fmt.Errorf("%s: acknowledged file %s: %q %v", a.run, f, data, err)
			}
		}
		files, _ := os.ReadDir(filepath.Join(snap, "sftp", "outbound"))
		if len(files) != len(a.files) {
			return fmt.Errorf("%s: sftp/outbound holds %d files, the run wrote %d", a.run, len(files), len(a.files))
		}
	}
	return nil
}

// compareMedplum runs n FHIR creates, each followed by a search for it,
// against Medplum's router under Node and against one run of the sandbox,
// 8 at a time, alternating rounds, and prints the throughput of each.
func compareMedplum(r ready, dir string, n int) error {
	node := exec.Command("node", "server.js", "0")
	node.Dir = dir
	stdin, _ := node.StdinPipe()
	stdout, _ := node.StdoutPipe()
	node.Stderr = os.Stderr
	if err := node.Start(); err != nil {
		return fmt.Errorf("starting node: %w", err)
	}
	defer func() { stdin.Close(); node.Wait() }()
	sc := bufio.NewScanner(stdout)
	var port string
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
			port = p
			break
		}
	}
	if port == "" {
		return errors.New("medplum: no LISTENING line")
	}
	code, data, err := call("POST", r.URL+"/runs", r.Token, "application/json", []byte(`{"id":"compare"}`))
	if err != nil || code != 201 {
		return fmt.Errorf("creating the comparison run: %d %s %v", code, data, err)
	}
	var ro runObject
	json.Unmarshal(data, &ro)
	sides := []struct {
		name, base, token string
		total             time.Duration
	}{
		{name: "assay serve", base: ro.Endpoints["fhir"], token: ro.Token},
		{name: "Medplum (Node)", base: "http://127.0.0.1:" + port},
	}
	const rounds = 4
	for round := range rounds {
		for i := range sides {
			d, err := fhirLoad(sides[i].base, sides[i].token, fmt.Sprintf("%d-%d", round, i), n/rounds)
			if err != nil {
				return fmt.Errorf("%s: %w", sides[i].name, err)
			}
			sides[i].total += d
		}
	}
	rate := func(d time.Duration) float64 { return float64(2*n) / d.Seconds() }
	fmt.Printf("fhir create+search, %d of each, 8 at a time: assay serve %.0f requests/s, Medplum %.0f requests/s: %.1fx\n",
		n, rate(sides[0].total), rate(sides[1].total), rate(sides[0].total)/rate(sides[1].total))
	return nil
}

func fhirLoad(base, token, tag string, n int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	start := time.Now()
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				id := fmt.Sprintf("cmp-%s-%d", tag, i)
				body := fmt.Sprintf(`{"resourceType":"Patient","name":[{"family":"Cmp"}],"identifier":[{"system":"urn:cmp","value":%q}]}`, id)
				if code, data, err := call("POST", base+"/Patient", token, "application/fhir+json", []byte(body)); err != nil || code != 201 {
					errs <- fmt.Errorf("create: %d %s %v", code, data, err)
					return
				}
				code, data, err := call("GET", base+"/Patient?identifier=urn:cmp|"+id, token, "", nil)
				if err != nil || code != 200 || !bytes.Contains(data, []byte(id)) {
					errs <- fmt.Errorf("search: %d %s %v", code, data, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, err
	}
	return time.Since(start), nil
}
