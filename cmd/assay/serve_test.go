package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// assay serve prints one ready line on stdout, serves until SIGTERM or
// SIGINT, then completes every active run and exits 0.
func TestServeReadyLineAndSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			seed, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(os.Args[0], "serve", "--seed", seed, "--out", out, "--run", "r1", "--clock", "2026-03-01T09:00:00Z")
			cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1", "ASSAY_SERVE_TOKEN=operator-token-of-thirty-two-chars")
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(stdout)
			if !lines.Scan() {
				t.Fatalf("no ready line; stderr: %s", stderr.String())
			}
			var ready struct {
				URL, SFTP, Token string
				Runs             []struct {
					ID, Token string
					Endpoints map[string]string
				}
			}
			if err := json.Unmarshal(lines.Bytes(), &ready); err != nil {
				t.Fatalf("ready line %q: %v", lines.Text(), err)
			}
			if !strings.HasPrefix(ready.URL, "http://127.0.0.1:") || ready.Token != "operator-token-of-thirty-two-chars" ||
				len(ready.Runs) != 1 || ready.Runs[0].ID != "r1" || ready.Runs[0].Endpoints["events"] != ready.URL+"/runs/r1/events" {
				t.Fatalf("ready line: %s", lines.Text())
			}
			req, _ := http.NewRequest("GET", ready.Runs[0].Endpoints["events"], nil)
			req.Header.Set("Authorization", "Bearer "+ready.Runs[0].Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("events: %v %v", resp, err)
			}
			resp.Body.Close()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				for lines.Scan() {
					t.Errorf("more on stdout after the ready line: %q", lines.Text())
				}
				done <- cmd.Wait()
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatal("assay serve did not exit after the signal")
			}
			data, err := os.ReadFile(filepath.Join(out, "r1", "sandbox", "run.json"))
			if err != nil || !strings.Contains(string(data), `"started_at": "2026-03-01T09:00:00.000Z"`) {
				t.Fatalf("the run's snapshot after the signal: %s %v", data, err)
			}
			if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr holds a stack trace: %s", stderr.String())
			}
		})
	}
}

// A seed with a broken file exits 2 before anything listens, naming the
// file and what is wrong with it.
func TestServeBadSeed(t *testing.T) {
	for _, tc := range []struct {
		file, data, want string
	}{
		{"fhir/bad.json", `{"resourceType": "Patient", "id": `, "fhir/bad.json"},
		{"hl7/inbox/bad.hl7", "PID|1||x\r", "hl7/inbox/bad.hl7"},
		{"payer/policy.json", `{"payer": {"name": "A", "id": "B"}, "members": [], "plans": {}, "memebrs": []}`, `payer/policy.json: /memebrs`},
		{"portal/state.json", `[1, 2]`, "portal/state.json"},
		{"voice/ivr.json", `{"number": "+1", "start": "a", "nodes": {"a": {"say": "hi", "next": "b"}, "b": {"say": "ho", "next": "a"}}}`, "voice/ivr.json"},
	} {
		seed := t.TempDir()
		p := filepath.Join(seed, filepath.FromSlash(tc.file))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(tc.data), 0o644)
		cmd := exec.Command(os.Args[0], "serve", "--seed", seed, "--out", t.TempDir())
		cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: %v, stdout %q, stderr %q; want exit 2, nothing on stdout, %q on stderr", tc.file, err, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// Bad usage and a seed that is not a folder exit 2 before anything
// listens, with a message on stderr.
func TestServeBadUsage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--out", dir}, "--seed DIR is required"},
		{[]string{"serve", "--seed", dir}, "--out DIR is required"},
		{[]string{"serve", "--seed", file, "--out", dir}, "not a folder"},
		{[]string{"serve", "--seed", dir, "--out", dir, "--ttl", "soon"}, "--ttl"},
		{[]string{"serve", "--seed", dir, "--out", dir, "--clock", "noon"}, "--clock"},
		{[]string{"serve", "--seed", dir, "--out", dir, "--listen", "0.0.0.0"}, "needs --public-url"},
		{[]string{"serve", "--seed", dir, "--out", dir, "--run", "bad id"}, "--run bad id"},
		{[]string{"serve", "--seed", dir, "--out", dir, "--criteria", file}, "--criteria"},
	} {
		cmd := exec.Command(os.Args[0], tc.args...)
		cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit 2 (stderr %s)", tc.args, err, stderr.String())
			continue
		}
		if !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q, want %q in it and nothing on stdout (%q)", tc.args, stderr.String(), tc.want, stdout.String())
		}
	}
}

// --port and --sftp-port choose the ports; the ready line's sftp and the
// run's sftp endpoint name the SSH listener on --sftp-port, which answers
// with an SSH banner.
func TestServePorts(t *testing.T) {
	free := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	port, sftpPort := free(), free()
	cmd := exec.Command(os.Args[0], "serve", "--seed", t.TempDir(), "--out", t.TempDir(), "--run", "r1",
		"--port", strconv.Itoa(port), "--sftp-port", strconv.Itoa(sftpPort))
	cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("no ready line; stderr: %s", stderr.String())
	}
	var ready struct {
		URL, SFTP string
		Runs      []struct{ Endpoints map[string]string }
	}
	if err := json.Unmarshal(lines.Bytes(), &ready); err != nil || len(ready.Runs) != 1 {
		t.Fatalf("ready line %q: %v", lines.Text(), err)
	}
	sftpAddr := "127.0.0.1:" + strconv.Itoa(sftpPort)
	if ready.URL != "http://127.0.0.1:"+strconv.Itoa(port) || ready.SFTP != sftpAddr || ready.Runs[0].Endpoints["sftp"] != "sftp://r1@"+sftpAddr+"/" {
		t.Fatalf("ready line: %s", lines.Text())
	}
	c, err := net.DialTimeout("tcp", ready.SFTP, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	banner, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(banner, "SSH-2.0-") {
		t.Errorf("the sftp address answers %q %v, want an SSH banner", banner, err)
	}
}
