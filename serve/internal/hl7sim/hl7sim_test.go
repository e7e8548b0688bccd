package hl7sim_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/hl7sim"
	"github.com/assaykit/assay/serve/internal/simtest"
)

var seed = os.DirFS("testdata/seed")

// order is an ORM an agent sends; id is its control id, cpt OBR.4.1.
func order(id, cpt string) string {
	return "MSH|^~\\&|AGENT|CLINIC|RIS|RAD|20260301090000||ORM^O01^ORM_O01|" + id + "|P|2.5.1\r" +
		"PID|1||MRN-100^^^HOSP^MR||DOE^JANE\r" +
		"OBR|1|" + id + "||" + cpt + "^MRI^CPT4\r"
}

// mllp sends each message as a frame on one connection to addr and returns
// the ACKs' MSA.1 and MSA.2.
func mllp(t *testing.T, addr string, msgs ...string) []string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	var out []string
	for _, m := range msgs {
		fmt.Fprintf(c, "\x0b%s\x1c\r", m)
		out = append(out, readACK(t, r))
	}
	return out
}

func readACK(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	body, err := r.ReadString(0x1c)
	if err != nil {
		t.Fatalf("reading an ACK: %v", err)
	}
	r.ReadByte() // the CR after the end block
	m, err := hl7.ParseMessage([]byte(strings.TrimPrefix(body[:len(body)-1], "\x0b")))
	if err != nil {
		t.Fatalf("ACK %q: %v", body, err)
	}
	return m.Get(hl7.MustParsePath("MSA.1")).String() + " " + m.Get(hl7.MustParsePath("MSA.2")).String()
}

// post sends body to the run's hl7_outbound and returns the status and the
// ACK's MSA.1 and MSA.2 (or the body when it holds no ACK).
func post(t *testing.T, sb *simtest.Sandbox, run simtest.Run, contentType, body string) (int, string) {
	t.Helper()
	code, out := sb.Do("POST", run.Endpoints["hl7_outbound"], run.Token, contentType, []byte(body))
	var answer struct{ Ack string }
	if json.Unmarshal(out, &answer) != nil || answer.Ack == "" {
		return code, string(out)
	}
	m, err := hl7.ParseMessage([]byte(answer.Ack))
	if err != nil {
		t.Fatalf("ACK %q: %v", answer.Ack, err)
	}
	return code, m.Get(hl7.MustParsePath("MSA.1")).String() + " " + m.Get(hl7.MustParsePath("MSA.2")).String()
}

func TestInbox(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "in", "clock": "2026-03-02T10:00:00Z"}`)
	if !strings.HasSuffix(run.Endpoints["hl7_inbox"], "/runs/in/hl7/inbox") || !strings.HasSuffix(run.Endpoints["hl7_outbound"], "/runs/in/hl7/outbound") {
		t.Errorf("endpoints: %v", run.Endpoints)
	}
	code, out := sb.Do("GET", run.Endpoints["hl7_inbox"], run.Token, "", nil)
	if code != 200 {
		t.Fatalf("GET inbox: %d %s", code, out)
	}
	var got struct {
		Data []map[string]string `json:"data"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{
		{"id": "1", "message_type": "ADT", "control_id": "IN-1", "received_at": "2026-03-02T10:00:00.000Z"},
		{"id": "2", "message_type": "ADT", "control_id": "IN-2", "received_at": "2026-03-02T10:00:00.000Z"},
		{"id": "3", "message_type": "ORM", "control_id": "IN-3", "received_at": "2026-03-02T10:00:00.000Z"},
	}
	if len(got.Data) != len(want) {
		t.Fatalf("inbox: %s", out)
	}
	for i, w := range want {
		for k, v := range w {
			if got.Data[i][k] != v {
				t.Errorf("message %d: %s = %q, want %q", i, k, got.Data[i][k], v)
			}
		}
	}
	// The payload is the message as the file holds it, LF terminators
	// and all.
	if p := got.Data[1]["payload"]; p != "MSH|^~\\&|EHR|HOSP|ASSAY|SBX|20260301080500||ADT^A08^ADT_A01|IN-2|P|2.5.1\nPID|1||MRN-100^^^HOSP^MR||DOE^JANE Q||19800412|F\n" {
		t.Errorf("payload %q", p)
	}
	// The hosted platform's path answers the same.
	code, alias := sb.Do("GET", sb.Srv.URL()+"/v1/benchmark-runs/in/hl7/inbox", run.Token, "", nil)
	if code != 200 || string(alias) != string(out) {
		t.Errorf("alias: %d %s", code, alias)
	}
	for _, tc := range []struct{ method, path string }{{"POST", "/hl7/inbox"}, {"GET", "/hl7/outbound"}, {"GET", "/hl7/nowhere"}} {
		code, _ := sb.Do(tc.method, sb.Srv.URL()+"/runs/in"+tc.path, run.Token, "", nil)
		if want := map[bool]int{true: 404, false: 405}[tc.path == "/hl7/nowhere"]; code != want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, code, want)
		}
	}
	// GET hl7/outbound tried to send and was refused: an event.
	if _, events := sb.Do("GET", run.Endpoints["events"], run.Token, "", nil); !strings.Contains(string(events), `"type":"hl7_outbound","control_id":null,"message_type":null,"ack_code":null,"transport":"http","status":405`) {
		t.Errorf("no event for GET hl7/outbound: %s", events)
	}
}

// TestOutboundThroughTheFrame drives one run over HTTP and MLLP, completes
// it, and judges the snapshot as assay eval would.
func TestOutboundThroughTheFrame(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "r1"}`)
	for _, tc := range []struct {
		name, contentType, body string
		code                    int
		answer                  string
	}{
		{"JSON wrapper", "application/json", `{"payload": ` + quote(order("H-1", "72148")) + `}`, 200, "AA H-1"},
		{"raw er7", "x-application/hl7-v2+er7", order("H-2", "72148"), 200, "AA H-2"},
		{"text/plain with LF", "text/plain; charset=utf-8", strings.ReplaceAll(order("H-3", "70551"), "\r", "\n"), 200, "AA H-3"},
		{"no content type, raw", "", order("H-4", "70551"), 200, "AA H-4"},
		{"body does not parse", "text/plain", order("H-5", "1") + "oops\r", 200, "AE H-5"},
		{"header unreadable", "text/plain", "MSH|", 200, "AR "},
		{"not HL7 at all", "application/json", `{"payload": "hello"}`, 200, "AR "},
		{"no payload", "application/json", `{"message": "x"}`, 400, "VALIDATION_ERROR"},
		{"payload not a string", "application/json", `{"payload": 7}`, 400, "VALIDATION_ERROR"},
		{"not JSON", "application/json", `MSH|`, 400, "VALIDATION_ERROR"},
		{"unknown content type", "image/png", order("H-6", "1"), 415, "VALIDATION_ERROR"},
		{"over 16 MiB", "text/plain", order("H-7", "1") + strings.Repeat("x", 16<<20), 413, "PAYLOAD_TOO_LARGE"},
	} {
		code, answer := post(t, sb, run, tc.contentType, tc.body)
		if code != tc.code || !strings.Contains(answer, tc.answer) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, code, answer, tc.code, tc.answer)
		}
	}
	if acks := mllp(t, run.Endpoints["hl7_mllp"], order("M-1", "72148"), order("M-2", "1")+"bad\r", order("M-3", "73721")); strings.Join(acks, ",") != "AA M-1,AE M-2,AA M-3" {
		t.Errorf("MLLP ACKs: %v", acks)
	}
	// Bytes outside any frame, then a frame the connection cuts off: no ACK
	// can answer them, and each is an event all the same.
	c, err := net.DialTimeout("tcp", run.Endpoints["hl7_mllp"], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "stray\x0b%s", order("M-4", "1"))
	c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, page := sb.Do("GET", run.Endpoints["events"]+"?limit=1000", run.Token, "", nil)
		if strings.Count(string(page), `"mllp"`) == 5 { // M-1 to M-3, and these two
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refused MLLP input is not in the events: %s", page)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Live evidence, before completing.
	live := simtest.EvaluateEnv(t, sb.Srv.Run("r1").Env(), criteria)
	if !live["MRI ordered"].Passed || live["CT ordered"].Passed {
		t.Errorf("live evidence: %+v", live)
	}

	snap := sb.Complete(run)
	// Every AA message, in arrival order, as received.
	wantFiles := []string{order("H-1", "72148"), order("H-2", "72148"), strings.ReplaceAll(order("H-3", "70551"), "\r", "\n"), order("H-4", "70551"), order("M-1", "72148"), order("M-3", "73721")}
	names, _ := filepath.Glob(filepath.Join(snap, "hl7", "*"))
	if len(names) != len(wantFiles) {
		t.Fatalf("snapshot hl7/: %v", names)
	}
	for i, want := range wantFiles {
		data, err := os.ReadFile(filepath.Join(snap, "hl7", fmt.Sprintf("%04d.hl7", i+1)))
		if err != nil || string(data) != want {
			t.Errorf("hl7/%04d.hl7 = %q %v, want %q", i+1, data, err, want)
		}
	}
	results := simtest.Evaluate(t, snap, criteria)
	if r := results["MRI ordered"]; !r.Passed {
		t.Errorf("MRI ordered: %s %s", r.Status, r.Details)
	}
	if r := results["CT ordered"]; r.Passed || r.Status != "failed" {
		t.Errorf("CT ordered: %s %s", r.Status, r.Details)
	}
	if r := results["knee MRI over MLLP"]; !r.Passed {
		t.Errorf("knee MRI over MLLP: %s %s", r.Status, r.Details)
	}
	// One event per ACKed message, rejects included, in capture order;
	// a request refused over HTTP before any ACK is one too, without an
	// ack_code, with its status and error.
	var events []string
	for _, e := range simtest.Events(t, snap, "hl7") {
		ev := fmt.Sprintf("%v %v %v %v %v", e["type"], e["control_id"], e["message_type"], e["ack_code"], e["transport"])
		switch {
		case e["status"] != nil:
			ev += fmt.Sprintf(" %v %v", e["status"], e["error"] != "")
		case e["error"] != nil: // an MLLP input without an ACK
			ev += " " + e["error"].(string)
		}
		events = append(events, ev)
	}
	wantEvents := []string{
		"hl7_outbound H-1 ORM AA http", "hl7_outbound H-2 ORM AA http", "hl7_outbound H-3 ORM AA http", "hl7_outbound H-4 ORM AA http",
		"hl7_outbound H-5 ORM AE http", "hl7_outbound <nil> <nil> AR http", "hl7_outbound <nil> <nil> AR http",
		"hl7_outbound <nil> <nil> <nil> http 400 true", "hl7_outbound <nil> <nil> <nil> http 400 true", "hl7_outbound <nil> <nil> <nil> http 400 true",
		"hl7_outbound <nil> <nil> <nil> http 415 true", "hl7_outbound <nil> <nil> <nil> http 413 true",
		"hl7_outbound M-1 ORM AA mllp", "hl7_outbound M-2 ORM AE mllp", "hl7_outbound M-3 ORM AA mllp",
		"hl7_outbound <nil> <nil> <nil> mllp bytes outside a frame: 5 bytes before a start block",
		"hl7_outbound <nil> <nil> <nil> mllp connection closed inside a frame after 131 bytes",
	}
	if strings.Join(events, "\n") != strings.Join(wantEvents, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(wantEvents, "\n"))
	}
	// After complete: HTTP is 409, the MLLP port is closed.
	if code, _ := post(t, sb, run, "text/plain", order("LATE", "1")); code != 409 {
		t.Errorf("POST after complete: %d, want 409", code)
	}
	if c, err := net.DialTimeout("tcp", run.Endpoints["hl7_mllp"], time.Second); err == nil {
		c.Close()
		t.Errorf("the MLLP port still accepts after complete")
	}
}

const criteria = `[
 {"label": "MRI ordered", "assertion": {"assert": "hl7-structural", "correlate_by": {"message_type": "ORM"}, "fields": [{"path": "OBR.4.1", "expected": "72148"}]}},
 {"label": "CT ordered", "assertion": {"assert": "hl7-structural", "correlate_by": {"message_type": "ORM"}, "fields": [{"path": "OBR.4.1", "expected": "74177"}]}},
 {"label": "knee MRI over MLLP", "assertion": {"assert": "hl7-structural", "correlate_by": {"control_id": "M-3"}, "fields": [{"path": "OBR.4.1", "expected": "73721"}]}}
]`

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunIsolation: what one run captures is in its snapshot only, and
// each run has its own MLLP port.
func TestRunIsolation(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	a, b := sb.NewRun(`{"id": "a"}`), sb.NewRun(`{"id": "b"}`)
	if a.Endpoints["hl7_mllp"] == b.Endpoints["hl7_mllp"] {
		t.Fatalf("two runs share the MLLP port %s", a.Endpoints["hl7_mllp"])
	}
	mllp(t, a.Endpoints["hl7_mllp"], order("A-1", "1"))
	post(t, sb, a, "text/plain", order("A-2", "1"))
	mllp(t, b.Endpoints["hl7_mllp"], order("B-1", "1"))
	// b's token does not reach a's endpoint.
	if code, _ := post(t, sb, simtest.Run{Endpoints: a.Endpoints, Token: b.Token}, "text/plain", order("X", "1")); code != 401 {
		t.Errorf("another run's token: %d, want 401", code)
	}
	for run, want := range map[*simtest.Run]string{&a: "A-1,A-2", &b: "B-1"} {
		snap := sb.Complete(*run)
		names, _ := filepath.Glob(filepath.Join(snap, "hl7", "*.hl7"))
		var ids []string
		for _, n := range names {
			data, _ := os.ReadFile(n)
			m, err := hl7.ParseMessage(data)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, m.ControlID())
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("run %s captured %s, want %s", run.ID, got, want)
		}
	}
}

// TestMemoryBudget: past the sandbox's memory budget a message is refused
// with AR, over HTTP (still 200) as over MLLP, and nothing is captured.
func TestMemoryBudget(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{MaxMemory: 1200})
	run := sb.NewRun(`{"id": "m"}`)
	if code, ack := post(t, sb, run, "text/plain", order("FIT", "1")); code != 200 || ack != "AA FIT" {
		t.Fatalf("first message: %d %s", code, ack)
	}
	big := order("BIG", "1") + "NTE|1||" + strings.Repeat("x", 2000) + "\r"
	code, out := sb.Do("POST", run.Endpoints["hl7_outbound"], run.Token, "text/plain", []byte(big))
	if code != 200 || !strings.Contains(string(out), `MSA|AR|BIG`) || !strings.Contains(string(out), "--max-memory") {
		t.Errorf("over the budget over HTTP: %d %s", code, out)
	}
	if acks := mllp(t, run.Endpoints["hl7_mllp"], big); acks[0] != "AR BIG" {
		t.Errorf("over the budget over MLLP: %v", acks)
	}
	snap := sb.Complete(run)
	if names, _ := filepath.Glob(filepath.Join(snap, "hl7", "*")); len(names) != 1 {
		t.Errorf("captured %v, want only FIT", names)
	}
	// A body over 16 MiB is 413, before any HL7 reading.
	run2 := sb.NewRun(`{"id": "m2"}`)
	huge := make([]byte, 16<<20+1)
	if code, _ := sb.Do("POST", run2.Endpoints["hl7_outbound"], run2.Token, "text/plain", huge); code != 413 {
		t.Errorf("a body over 16 MiB: %d, want 413", code)
	}
}

func TestBadSeed(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"does not parse", fstest.MapFS{"hl7/inbox/a.hl7": {Data: []byte("MSH|^~\\&|A\rPID|1\rnot a segment\r")}}, "hl7/inbox/a.hl7: hl7: 3:1"},
		{"no MSH", fstest.MapFS{"hl7/inbox/b.hl7": {Data: []byte("PID|1\r")}}, "hl7/inbox/b.hl7"},
		{"inbox is a file", fstest.MapFS{"hl7/inbox": {Data: []byte("x")}}, "hl7/inbox"},
	} {
		_, err := hl7sim.New(tc.fsys)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	// Through the frame, a bad seed fails serve.New.
	if _, err := serve.New(fstest.MapFS{"hl7/inbox/c.hl7": {Data: []byte("garbage")}}, serve.Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "hl7/inbox/c.hl7") {
		t.Errorf("serve.New with a bad inbox: %v", err)
	}
	// No hl7/ at all is an empty inbox.
	if _, err := hl7sim.New(fstest.MapFS{}); err != nil {
		t.Errorf("no inbox: %v", err)
	}
}

// TestConcurrentTransports: messages sent at once over several MLLP
// connections and HTTP are all captured, and the snapshot's order is the
// events' order.
func TestConcurrentTransports(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "many"}`)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			var msgs []string
			for i := range 25 {
				msgs = append(msgs, order(fmt.Sprintf("M%d-%d", w, i), "1"))
			}
			mllp(t, run.Endpoints["hl7_mllp"], msgs...)
		}()
		go func() {
			defer wg.Done()
			for i := range 25 {
				post(t, sb, run, "text/plain", order(fmt.Sprintf("H%d-%d", w, i), "1"))
			}
		}()
	}
	wg.Wait()
	snap := sb.Complete(run)
	var files []string
	for i := 1; i <= 200; i++ {
		data, err := os.ReadFile(filepath.Join(snap, "hl7", fmt.Sprintf("%04d.hl7", i)))
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		m, _ := hl7.ParseMessage(data)
		files = append(files, m.ControlID())
	}
	var events []string
	for _, e := range simtest.Events(t, snap, "hl7") {
		events = append(events, e["control_id"].(string))
	}
	if strings.Join(files, ",") != strings.Join(events, ",") {
		t.Errorf("snapshot order and event order differ:\n%v\n%v", files, events)
	}
}
