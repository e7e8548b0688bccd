package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/sim"
)

// noteSim is a simulator for the frame's tests: POST /notes/ID stores the
// body, GET /notes lists them, the snapshot writes notes/ID.txt under
// sftp/ (a folder the frame creates), and a seed file notes/seed.txt starts
// every run.
type noteSim struct{ seed string }

func newNoteSim(seed fs.FS) (sim.Sim, error) {
	data, err := fs.ReadFile(seed, "notes/seed.txt")
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("notes/seed.txt: %w", err)
	}
	if strings.Contains(string(data), "BROKEN") {
		return nil, fmt.Errorf("notes/seed.txt: broken")
	}
	return &noteSim{seed: string(data)}, nil
}

func (n *noteSim) NewRun(r sim.Run) (sim.RunSim, error) {
	rs := &noteRun{run: r, notes: map[string]string{}}
	if n.seed != "" {
		rs.notes["seed"] = n.seed
	}
	return rs, nil
}

type noteRun struct {
	run   sim.Run
	mu    sync.Mutex
	notes map[string]string
}

func (n *noteRun) Mounts() []string { return []string{"notes"} }
func (n *noteRun) Endpoints(base string, into map[string]string) {
	into["notes"] = base + "/notes"
}
func (n *noteRun) Attach(*assert.Env) {}
func (n *noteRun) Stop()              {}
func (n *noteRun) Public(p string) bool {
	return p == "/notes/public"
}
func (n *noteRun) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/notes/")
	switch {
	case r.Method == http.MethodPost && id == "log":
		body, _ := sim.ReadBody(w, r, 1<<10)
		n.run.Logf("a note to log: %s", body)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost:
		body, err := sim.ReadBody(w, r, 1<<10)
		if err != nil {
			sim.WriteJSONError(w, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", err.Error(), nil)
			return
		}
		if err := n.run.Reserve(int64(len(body))); err != nil {
			sim.WriteJSONError(w, http.StatusInsufficientStorage, "INSUFFICIENT_STORAGE", err.Error(), nil)
			return
		}
		seq := n.run.Next("note")
		n.mu.Lock()
		n.notes[id] = string(body)
		n.mu.Unlock()
		n.run.Emit(sim.Event{Sim: "sftp", Type: "sftp_op", Fields: map[string]any{"op": "write", "path": id, "size": len(body), "transport": "http"}})
		sim.WriteJSON(w, http.StatusCreated, map[string]any{"seq": seq, "now": n.run.Now().Format(time.RFC3339)})
	default:
		n.mu.Lock()
		defer n.mu.Unlock()
		sim.WriteJSON(w, http.StatusOK, n.notes)
	}
}
func (n *noteRun) Snapshot(d sim.Dir) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, text := range n.notes {
		if err := d.WriteFile("sftp/"+id+".txt", []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

type harness struct {
	t   *testing.T
	srv *serve.Server
	out string
}

func start(t *testing.T, opts serve.Options, seed fs.FS) *harness {
	t.Helper()
	restore := serve.SetSimulators(newNoteSim)
	t.Cleanup(restore)
	if opts.Out == "" {
		opts.Out = t.TempDir()
	}
	if seed == nil {
		seed = fstest.MapFS{"notes/seed.txt": {Data: []byte("from the seed")}}
	}
	srv, err := serve.New(seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &harness{t: t, srv: srv, out: opts.Out}
}

// do sends a request with token and returns the status and the body.
func (h *harness) do(method, path, token, body string) (int, string) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL()+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("X-Assay-Sandbox") != "1" {
		h.t.Errorf("%s %s: no X-Assay-Sandbox: 1 header", method, path)
	}
	return resp.StatusCode, string(data)
}

func (h *harness) newRun(body string) map[string]any {
	h.t.Helper()
	code, out := h.do("POST", "/runs", h.srv.Token(), body)
	if code != http.StatusCreated {
		h.t.Fatalf("POST /runs %s: %d %s", body, code, out)
	}
	var run map[string]any
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		h.t.Fatal(err)
	}
	return run
}

func TestRunLifecycle(t *testing.T) {
	h := start(t, serve.Options{Clock: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}, nil)
	run := h.newRun(`{"id": "r1", "entity": "ent-7"}`)
	token := run["token"].(string)
	if run["status"] != "active" || run["entity"] != "ent-7" || len(token) < 32 {
		t.Fatalf("run object: %v", run)
	}
	eps := run["endpoints"].(map[string]any)
	if eps["notes"] != h.srv.URL()+"/runs/r1/notes" || eps["events"] != h.srv.URL()+"/runs/r1/events" {
		t.Errorf("endpoints: %v", eps)
	}
	if code, out := h.do("POST", "/runs/r1/notes/a", token, "hello"); code != 201 || !strings.Contains(out, `"now":"2026-03-01T09:00`) {
		t.Errorf("write: %d %s", code, out)
	}
	// Another run's token, no token, and a wrong token are refused.
	other := h.newRun(`{"id": "r2"}`)
	for _, tok := range []string{other["token"].(string), "", "nope"} {
		if code, _ := h.do("POST", "/runs/r1/notes/b", tok, "x"); code != 401 {
			t.Errorf("token %q: %d, want 401", tok, code)
		}
	}
	// A public path needs no token.
	if code, _ := h.do("GET", "/runs/r1/notes/public", "", ""); code != 200 {
		t.Errorf("public path: %d", code)
	}
	// The run's token cannot create runs or move clocks.
	if code, _ := h.do("POST", "/runs", token, `{}`); code != 401 {
		t.Errorf("POST /runs with a run token: %d", code)
	}
	if code, _ := h.do("POST", "/runs/r1/clock", token, `{"advance":"1h"}`); code != 401 {
		t.Errorf("clock with a run token: %d", code)
	}
	if code, out := h.do("POST", "/runs/r1/clock", h.srv.Token(), `{"advance":"48h"}`); code != 200 || !strings.Contains(out, `"now":"2026-03-03T09:00`) {
		t.Errorf("clock: %d %s", code, out)
	}
	if code, _ := h.do("POST", "/runs/r1/clock", h.srv.Token(), `{"set":"2020-01-01T00:00:00Z"}`); code != 400 {
		t.Errorf("clock back: %d, want 400", code)
	}
	// Events: created, the write, the clock.
	code, out := h.do("GET", "/runs/r1/events?after=0&limit=2", token, "")
	if code != 200 {
		t.Fatalf("events: %d %s", code, out)
	}
	var page struct {
		Data []map[string]any `json:"data"`
		Next *int64           `json:"next"`
	}
	json.Unmarshal([]byte(out), &page)
	if len(page.Data) != 2 || page.Next == nil || *page.Next != 2 || page.Data[0]["type"] != "run_phase" || page.Data[1]["type"] != "sftp_op" {
		t.Fatalf("events page: %s", out)
	}
	// Complete with the run's token; then endpoints are 409 and events
	// still answer.
	code, out = h.do("POST", "/runs/r1/complete", token, "")
	if code != 200 {
		t.Fatalf("complete: %d %s", code, out)
	}
	var done struct {
		Status, Snapshot string
	}
	json.Unmarshal([]byte(out), &done)
	if done.Status != "completed" || done.Snapshot != filepath.Join(h.out, "r1", "sandbox") {
		t.Errorf("complete answer: %s", out)
	}
	if code, _ := h.do("POST", "/runs/r1/notes/c", token, "late"); code != 409 {
		t.Errorf("write after complete: %d, want 409", code)
	}
	if code, _ := h.do("GET", "/runs/r1/events", token, ""); code != 200 {
		t.Errorf("events after complete: %d", code)
	}
	if code, out2 := h.do("POST", "/runs/r1/complete", token, ""); code != 200 || out2 != out {
		t.Errorf("complete again: %d %s", code, out2)
	}
	if code, _ := h.do("DELETE", "/runs/r1", h.srv.Token(), ""); code != 409 {
		t.Errorf("DELETE of a completed run: %d, want 409", code)
	}
	// The snapshot.
	snap := done.Snapshot
	for _, f := range []string{"fhir", "hl7", "x12", "portal", "voice"} {
		if fi, err := os.Stat(filepath.Join(snap, f)); err != nil || !fi.IsDir() {
			t.Errorf("snapshot lacks %s/", f)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(snap, "sftp", "a.txt")); string(data) != "hello" {
		t.Errorf("sftp/a.txt = %q", data)
	}
	var runJSON map[string]any
	data, _ := os.ReadFile(filepath.Join(snap, "run.json"))
	json.Unmarshal(data, &runJSON)
	if runJSON["run_id"] != "r1" || runJSON["input_entity_id"] != "ent-7" || runJSON["started_at"] != "2026-03-01T09:00:00.000Z" {
		t.Errorf("run.json: %s", data)
	}
	var manifest struct{ Files map[string]string }
	data, _ = os.ReadFile(filepath.Join(snap, "manifest.json"))
	json.Unmarshal(data, &manifest)
	for _, f := range []string{"events.jsonl", "run.json", "sftp/a.txt", "sftp/seed.txt"} {
		if len(manifest.Files[f]) != 64 {
			t.Errorf("manifest lacks %s: %s", f, data)
		}
	}
	// Events: created, the write, the four requests refused 401 (bad
	// input, recorded on the run they aimed at, never with the token),
	// the clock, completed.
	events, _ := os.ReadFile(filepath.Join(snap, "events.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(events)), "\n")
	refused := `"sim":"run","type":"request_refused","method":"POST","path":"/notes/b","status":401,"error":`
	if len(lines) != 8 || !strings.Contains(lines[7], `"phase":"completed"`) || !strings.HasPrefix(lines[0], `{"seq":1,"time":"2026-03-01T09:00:00.000Z","sim":"run","type":"run_phase","phase":"created"}`) ||
		!strings.Contains(lines[2], refused) || !strings.Contains(lines[3], refused) || !strings.Contains(lines[4], refused) ||
		!strings.Contains(lines[5], `"type":"request_refused","method":"POST","path":"/clock","status":401`) || strings.Contains(string(events), other["token"].(string)) {
		t.Errorf("events.jsonl:\n%s", events)
	}
	// The other run, whose token was used, recorded nothing of it; an
	// endpoint the run does not have is a refusal of its own.
	if code, _ := h.do("GET", "/runs/r2/nowhere", other["token"].(string), ""); code != 404 {
		t.Errorf("GET of an endpoint the run lacks: %d", code)
	}
	if _, out := h.do("GET", "/runs/r2/events", h.srv.Token(), ""); strings.Count(out, `"seq"`) != 2 || !strings.Contains(out, `"type":"request_refused","method":"GET","path":"/nowhere","status":404`) {
		t.Errorf("r2's events: %s", out)
	}
	// Delete discards an active run; it is 404 after.
	if code, _ := h.do("DELETE", "/runs/r2", h.srv.Token(), ""); code != 204 {
		t.Errorf("DELETE: %d", code)
	}
	if code, _ := h.do("GET", "/runs/r2", h.srv.Token(), ""); code != 404 {
		t.Errorf("GET of a deleted run: %d", code)
	}
	if _, err := os.Stat(filepath.Join(h.out, "r2")); !os.IsNotExist(err) {
		t.Errorf("a deleted run left a snapshot")
	}
}

func TestRunCreation(t *testing.T) {
	h := start(t, serve.Options{MaxRuns: 2}, nil)
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"id": "bad id"}`, 400},
		{`{"id": ""}`, 400},
		{`{"idd": "x"}`, 400},
		{`{"clock": "yesterday"}`, 400},
		{`[1]`, 400},
		{`{"id": "a"}`, 201},
		{`{"id": "a"}`, 409},
		{``, 201},
		{`{"id": "c"}`, 429},
	} {
		if code, out := h.do("POST", "/runs", h.srv.Token(), tc.body); code != tc.code {
			t.Errorf("POST /runs %s: %d %s, want %d", tc.body, code, out, tc.code)
		}
	}
	// A folder already in Out is a taken id.
	os.MkdirAll(filepath.Join(h.out, "taken"), 0o755)
	if code, _ := h.do("DELETE", "/runs/a", h.srv.Token(), ""); code != 204 {
		t.Fatal("delete")
	}
	if code, _ := h.do("POST", "/runs", h.srv.Token(), `{"id":"taken"}`); code != 409 {
		t.Errorf("id of an existing folder: %d, want 409", code)
	}
	if code, _ := h.do("GET", "/runs", "", ""); code != 401 {
		t.Errorf("GET /runs without a token: %d", code)
	}
}

func TestBadSeed(t *testing.T) {
	restore := serve.SetSimulators(newNoteSim)
	defer restore()
	_, err := serve.New(fstest.MapFS{"notes/seed.txt": {Data: []byte("BROKEN")}}, serve.Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "notes/seed.txt") {
		t.Fatalf("err = %v, want one naming notes/seed.txt", err)
	}
}

func TestShutdownCompletesRuns(t *testing.T) {
	h := start(t, serve.Options{}, nil)
	run := h.newRun(`{"id": "s1"}`)
	h.do("POST", "/runs/s1/notes/x", run["token"].(string), "kept")
	if err := h.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(h.out, "s1", "sandbox", "sftp", "x.txt")); err != nil || string(data) != "kept" {
		t.Fatalf("after shutdown: %q %v", data, err)
	}
}

func TestTTL(t *testing.T) {
	h := start(t, serve.Options{TTL: 50 * time.Millisecond}, nil)
	h.newRun(`{"id": "idle"}`)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if h.srv.Run("idle").Status() == serve.StatusCompleted {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("an idle run was not completed after its TTL")
}

func TestMemoryBudget(t *testing.T) {
	h := start(t, serve.Options{MaxMemory: 10}, nil)
	run := h.newRun(`{"id": "m"}`)
	tok := run["token"].(string)
	if code, _ := h.do("POST", "/runs/m/notes/a", tok, "12345678"); code != 201 {
		t.Fatalf("first write: %d", code)
	}
	if code, _ := h.do("POST", "/runs/m/notes/b", tok, "12345678"); code != 507 {
		t.Fatalf("write past the budget: %d, want 507", code)
	}
	h.do("POST", "/runs/m/complete", tok, "")
	run2 := h.newRun(`{"id": "m2"}`)
	if code, _ := h.do("POST", "/runs/m2/notes/a", run2["token"].(string), "12345678"); code != 201 {
		t.Fatalf("a write after the first run completed: %d", code)
	}
}

func TestAliases(t *testing.T) {
	h := start(t, serve.Options{}, nil)
	run := h.newRun(`{"id": "al"}`)
	// notes is not a hosted path: 404 even with the token.
	if code, _ := h.do("GET", "/v1/benchmark-runs/al/notes", run["token"].(string), ""); code != 404 {
		t.Errorf("alias of an unserved mount: %d", code)
	}
	if code, _ := h.do("GET", "/nowhere", "", ""); code != 404 {
		t.Errorf("unknown path: %d", code)
	}
}

func TestBadPolicy(t *testing.T) {
	restore := serve.SetSimulators()
	defer restore()
	_, err := serve.New(fstest.MapFS{"payer/policy.json": {Data: []byte(`{"payer": {"name": "A", "id": "B"}, "members": [], "plans": {}, "bogus": 1}`)}}, serve.Options{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `payer/policy.json: /bogus (line 1, column 65): unknown key "bogus"`) {
		t.Fatalf("err = %v", err)
	}
}

// Past MaxEvents a run keeps counting what it drops; run.json says how many.
func TestEventsDropped(t *testing.T) {
	h := start(t, serve.Options{MaxEvents: 3}, nil)
	run := h.newRun(`{"id": "ev"}`)
	tok := run["token"].(string)
	for i := range 4 {
		h.do("POST", fmt.Sprintf("/runs/ev/notes/n%d", i), tok, "x")
	}
	// created + 4 writes + completed = 6 events, 3 kept.
	code, out := h.do("GET", "/runs/ev/events?after=1&limit=1000", tok, "")
	if code != 200 || strings.Count(out, `"seq"`) != 2 || !strings.Contains(out, `"next":null`) {
		t.Errorf("events after 1: %d %s", code, out)
	}
	for _, q := range []string{"after=-1", "after=x", "limit=0", "limit=1001"} {
		if code, _ := h.do("GET", "/runs/ev/events?"+q, tok, ""); code != 400 {
			t.Errorf("events?%s: %d, want 400", q, code)
		}
	}
	h.do("POST", "/runs/ev/complete", tok, "")
	data, _ := os.ReadFile(filepath.Join(h.out, "ev", "sandbox", "run.json"))
	if !strings.Contains(string(data), `"events_dropped": 3`) {
		t.Errorf("run.json: %s", data)
	}
	lines, _ := os.ReadFile(filepath.Join(h.out, "ev", "sandbox", "events.jsonl"))
	if n := strings.Count(string(lines), "\n"); n != 3 {
		t.Errorf("events.jsonl holds %d lines, want 3", n)
	}
}

// With criteria, complete answers the result: the full task result to the
// operator, only the score and verdict to the run's own token; the criteria
// file is copied beside the snapshot for assay eval --runs.
func TestCompleteWithCriteria(t *testing.T) {
	criteria := `[{"id": "a", "label": "note a dropped", "assertion": {"assert": "sftp-file-present", "path": "a.txt"}},
		{"id": "b", "label": "note b dropped", "assertion": {"assert": "sftp-file-present", "path": "b.txt"}}]`
	h := start(t, serve.Options{Criteria: []byte(criteria)}, nil)
	for _, tc := range []struct {
		id, token, body string
		full            bool
	}{
		{"own", "", "", false},
		{"op", "operator", `{"scored": false}`, true},
		{"opscored", "operator", `{"scored": true}`, false},
	} {
		run := h.newRun(`{"id": "` + tc.id + `"}`)
		tok := run["token"].(string)
		h.do("POST", "/runs/"+tc.id+"/notes/a", tok, "x")
		if tc.token == "operator" {
			tok = h.srv.Token()
		}
		code, out := h.do("POST", "/runs/"+tc.id+"/complete", tok, tc.body)
		var done struct {
			Result map[string]any `json:"result"`
		}
		json.Unmarshal([]byte(out), &done)
		if code != 200 || done.Result["score"] != 0.5 || done.Result["verdict"] != "partial" {
			t.Errorf("%s: %d %s", tc.id, code, out)
		}
		if _, has := done.Result["criteria"]; has != tc.full {
			t.Errorf("%s: criteria in the result: %v, want %v (%s)", tc.id, has, tc.full, out)
		}
		if data, err := os.ReadFile(filepath.Join(h.out, tc.id, "criteria.json")); err != nil || string(data) != criteria {
			t.Errorf("%s: criteria.json: %q %v", tc.id, data, err)
		}
	}
}

// The server's log is escaped as the command's messages are: what a
// simulator logs may quote an agent's input, and it reaches an operator's
// terminal one line per message, without escape sequences.
func TestLogEscapesInput(t *testing.T) {
	var log syncBuffer
	h := start(t, serve.Options{Log: &log}, nil)
	run := h.newRun(`{"id": "r1"}`)
	if code, out := h.do("POST", "/runs/r1/notes/log", run["token"].(string), "\x1b]0;PWNED\x07red\nassay serve: forged"); code != http.StatusNoContent {
		t.Fatalf("POST notes/log: %d %s", code, out)
	}
	got := log.String()
	if want := `assay serve: run r1: a note to log: \x1b]0;PWNED\x07red\nassay serve: forged` + "\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
