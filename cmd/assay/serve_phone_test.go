package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// phoneSeed writes a seed with the phone line of serve's tests, its
// representative an LLM persona.
func phoneSeed(t *testing.T) string {
	t.Helper()
	seed := t.TempDir()
	testdata := filepath.Join("..", "..", "serve", "internal", "phonesim", "testdata")
	policy, err := os.ReadFile(filepath.Join(testdata, "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	ivr := `{"start": "member", "nodes": {
  "member": {"say": "Please say the member ID.", "gather": {"input": ["speech"], "save": "id"}, "next": "lookup"},
  "lookup": {"lookup_member": "id", "found": "rep", "not_found": "member"},
  "rep": {"say": "Connecting you.", "hold_seconds": 30, "persona": "rep"}},
 "personas": {"rep": {"llm": true, "greeting": "Utilization management, this is Dana.", "goodbye": ["goodbye"]}}}`
	for name, data := range map[string][]byte{"payer/policy.json": policy, "voice/ivr.json": []byte(ivr)} {
		p := filepath.Join(seed, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return seed
}

// serveOnce runs assay serve with args, places a call that asks the
// representative one question, completes the run and stops the server; it
// returns the representative's answer and stderr.
func serveOnce(t *testing.T, env []string, args ...string) (answer, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--run", "r1"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no ready line: %v; stderr %s", err, errOut.String())
	}
	var ready struct {
		Runs []struct {
			Token     string
			Endpoints map[string]string
		}
	}
	if err := json.Unmarshal([]byte(line), &ready); err != nil || len(ready.Runs) != 1 {
		t.Fatalf("ready line %q: %v", line, err)
	}
	voice, token := ready.Runs[0].Endpoints["voice"], ready.Runs[0].Token
	post := func(path, body string) map[string]any {
		req, _ := http.NewRequest("POST", voice+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return out
	}
	id := post("/calls", "")["call_id"].(string)
	post("/calls/"+id+"/turns", `{"text": "W123456789"}`)
	turns := post("/calls/"+id+"/turns", `{"text": "What is the status?"}`)["turns"].([]any)
	answer = turns[1].(map[string]any)["text"].(string)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { io.Copy(io.Discard, stdout); done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("assay serve: %v; stderr %s", err, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("assay serve did not exit after SIGTERM")
	}
	return answer, errOut.String()
}

// The persona flags reach the line: the model's answer is said, its key
// stays out of every output, and a rerun with the recorded answers and no
// server says the same.
func TestServePersonaFlags(t *testing.T) {
	var calls atomic.Int64
	var auth atomic.Value
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		io.WriteString(w, `{"choices": [{"index": 0, "message": {"role": "assistant", "content": "It is approved."}}]}`)
	}))
	defer model.Close()
	seed := phoneSeed(t)
	cache := filepath.Join(t.TempDir(), "answers.json")
	key := "ASSAY_PERSONA_API_KEY=sk-do-not-print"
	answer, stderr := serveOnce(t, []string{key}, "--seed", seed, "--out", t.TempDir(), "--clock", "2026-11-30T14:00:00Z",
		"--persona-url", model.URL+"/v1", "--persona-model", "m1", "--persona-cache", cache)
	if answer != "It is approved." || calls.Load() != 1 || auth.Load() != "Bearer sk-do-not-print" {
		t.Fatalf("answer %q, %d calls, auth %v", answer, calls.Load(), auth.Load())
	}
	data, err := os.ReadFile(cache)
	if err != nil || strings.Contains(string(data)+stderr, "sk-do-not-print") {
		t.Fatalf("cache %s (%v), stderr %s", data, err, stderr)
	}
	answer, _ = serveOnce(t, nil, "--seed", seed, "--out", t.TempDir(), "--clock", "2026-11-30T14:00:00Z",
		"--persona-model", "m1", "--persona-cache", cache)
	if answer != "It is approved." || calls.Load() != 1 {
		t.Errorf("the rerun: answer %q, %d calls", answer, calls.Load())
	}
}

func TestServePhoneBadUsage(t *testing.T) {
	seed := phoneSeed(t)
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "voice"), 0o755)
	os.WriteFile(filepath.Join(bad, "voice", "ivr.json"), []byte(`{"start": "a", "nodes": {"a": {"say": "x", "next": "a"}}}`), 0o644)
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--seed", seed, "--out", out, "--persona-url", "http://127.0.0.1:1"}, "--persona-url needs --persona-model"},
		{[]string{"--seed", seed, "--out", out}, "voice/ivr.json: /personas/rep/llm: an LLM persona needs a model (--persona-model)"},
		{[]string{"--seed", bad, "--out", out}, "voice/ivr.json: /nodes/a (line 1, column 31): the nodes a -> a form a cycle"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"serve"}, tc.args...)...)
		cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: %v, stderr %q, want exit 2 and %q", tc.args, err, stderr.String(), tc.want)
		}
	}
}
