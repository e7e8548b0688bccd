package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
