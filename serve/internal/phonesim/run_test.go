package phonesim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/phonesim"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/serve/internal/simfake"
)

// newFakeRun is run r1 at the story's time, whose clock stands still
// unless the line advances it, so transcripts and events are
// byte-identical from one test run to the next.
func newFakeRun(t testing.TB, policy *payer.Policy) *simfake.Run {
	return simfake.New(simfake.Options{Start: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC), Policy: policy, Logf: t.Logf})
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
	run *simfake.Run
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

func serveLine(t testing.TB, s *phonesim.Sim, run *simfake.Run) *line {
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
