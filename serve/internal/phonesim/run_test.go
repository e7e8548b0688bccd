package phonesim_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/phonesim"
	"github.com/assaykit/assay/serve/internal/sim"
)

// fakeRun is a run whose clock stands still unless the line advances it,
// so transcripts and events are byte-identical from one test run to the
// next.
type fakeRun struct {
	t      testing.TB
	start  time.Time
	ledger *payer.Ledger
	budget int64 // bytes Reserve may take; <= 0: no limit

	mu       sync.Mutex
	now      time.Time
	counters map[string]int64
	events   []string
	used     int64
}

func newFakeRun(t testing.TB, policy *payer.Policy) *fakeRun {
	start := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	r := &fakeRun{t: t, start: start, now: start, counters: map[string]int64{}}
	if policy != nil {
		r.ledger = payer.NewLedger(policy, r)
	}
	return r
}

func (r *fakeRun) ID() string { return "r1" }
func (r *fakeRun) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}
func (r *fakeRun) Started() time.Time { return r.start }
func (r *fakeRun) Advance(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	now := r.now
	r.mu.Unlock()
	r.Emit(sim.Event{Sim: "run", Type: "clock", Fields: map[string]string{"now": now.Format(time.RFC3339)}})
}
func (r *fakeRun) Next(name string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters[name]++
	return r.counters[name]
}
func (r *fakeRun) Emit(e sim.Event) {
	fields, _ := json.Marshal(e.Fields)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %s %s", e.Sim, e.Type, fields))
}
func (r *fakeRun) Reserve(n int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.budget > 0 && r.used+n > r.budget {
		return sim.ErrMemory
	}
	r.used += n
	return nil
}
func (r *fakeRun) Release(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.used -= min(n, r.used)
}
func (r *fakeRun) BaseURL() string                     { return "http://sandbox.test/runs/r1" }
func (r *fakeRun) ListenHost() string                  { return "127.0.0.1" }
func (r *fakeRun) Credentials(string) (string, string) { return "", "" }
func (r *fakeRun) Logf(f string, a ...any)             { r.t.Logf(f, a...) }
func (r *fakeRun) Payer() *payer.Ledger                { return r.ledger }
func (r *fakeRun) Touch()                              {}

// eventsOf returns the events of a type, as "sim type fields" lines.
func (r *fakeRun) eventsOf(typ string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if strings.Split(e, " ")[1] == typ {
			out = append(out, e)
		}
	}
	return out
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func storyPolicy(t testing.TB) *payer.Policy {
	t.Helper()
	p, err := payer.Parse(readTestdata(t, "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// line is one run's phone line served over HTTP, for a test.
type line struct {
	t   testing.TB
	run *fakeRun
	rs  sim.RunSim
	srv *httptest.Server
}

// newLine serves ivr (the story's line when nil) with the story's policy
// on a fresh run.
func newLine(t testing.TB, ivr []byte, cfg *phonesim.Config) *line {
	t.Helper()
	if ivr == nil {
		ivr = readTestdata(t, "ivr.json")
	}
	seed := fstest.MapFS{
		"voice/ivr.json":    {Data: ivr},
		"payer/policy.json": {Data: readTestdata(t, "policy.json")},
	}
	s, err := phonesim.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	if cfg != nil {
		if err := s.Configure(*cfg); err != nil {
			t.Fatal(err)
		}
	}
	return serveLine(t, s, newFakeRun(t, storyPolicy(t)))
}

func serveLine(t testing.TB, s *phonesim.Sim, run *fakeRun) *line {
	t.Helper()
	rs, err := s.NewRun(run)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rs)
	t.Cleanup(srv.Close)
	return &line{t: t, run: run, rs: rs, srv: srv}
}

// reply is a call's answer.
type reply struct {
	CallID string `json:"call_id"`
	Status string `json:"status"`
	Turns  []struct {
		Speaker string `json:"speaker"`
		Text    string `json:"text"`
		StartMS int64  `json:"start_ms"`
		EndMS   int64  `json:"end_ms"`
		CallID  string `json:"call_id"`
	} `json:"turns"`
	Awaiting *struct {
		Input       []string `json:"input"`
		NumDigits   int      `json:"num_digits"`
		FinishOnKey *string  `json:"finish_on_key"`
	} `json:"awaiting"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// awaiting returns what the reply waits for, as JSON.
func (r reply) awaiting() string {
	if r.Awaiting == nil {
		return "null"
	}
	type aw struct {
		Input       []string `json:"input"`
		NumDigits   int      `json:"num_digits,omitempty"`
		FinishOnKey *string  `json:"finish_on_key,omitempty"`
	}
	data, _ := json.Marshal(aw(*r.Awaiting))
	return string(data)
}

// said returns the reply's turns as "speaker: text" lines.
func (r reply) said() []string {
	var out []string
	for _, t := range r.Turns {
		out = append(out, t.Speaker+": "+t.Text)
	}
	return out
}

func (l *line) post(path, body string) (int, reply) {
	l.t.Helper()
	return l.do(http.MethodPost, path, body)
}

func (l *line) do(method, path, body string) (int, reply) {
	l.t.Helper()
	req, err := http.NewRequest(method, l.srv.URL+path, strings.NewReader(body))
	if err != nil {
		l.t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var r reply
	if err := json.Unmarshal(data, &r); err != nil {
		l.t.Fatalf("%s %s: %d, not JSON: %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode, r
}

// call places a call and fails the test unless it is answered.
func (l *line) call() reply {
	l.t.Helper()
	code, r := l.post("/voice/calls", `{"to": "+15550100"}`)
	if code != http.StatusCreated {
		l.t.Fatalf("POST /voice/calls: %d %+v", code, r.Error)
	}
	return r
}

// turn sends an agent turn, as JSON fields, and fails the test unless it is
// answered 200.
func (l *line) turn(id, fields string) reply {
	l.t.Helper()
	code, r := l.post("/voice/calls/"+id+"/turns", fields)
	if code != http.StatusOK {
		l.t.Fatalf("turn %s: %d %+v", fields, code, r.Error)
	}
	return r
}

// say sends speech.
func (l *line) say(id, text string) reply {
	l.t.Helper()
	data, _ := json.Marshal(map[string]string{"text": text})
	return l.turn(id, string(data))
}

// snapshot writes the run's snapshot to a folder and returns it.
func (l *line) snapshot() string {
	l.t.Helper()
	dir := l.t.TempDir()
	if err := l.rs.Snapshot(dirWriter(dir)); err != nil {
		l.t.Fatal(err)
	}
	return dir
}

type dirWriter string

func (d dirWriter) WriteFile(name string, data []byte) error {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (d dirWriter) MkdirAll(name string) error {
	return os.MkdirAll(filepath.Join(string(d), filepath.FromSlash(name)), 0o755)
}

func readFile(t testing.TB, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
