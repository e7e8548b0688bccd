// Package simtest helps the simulators' tests drive a whole sandbox: start
// a serve.Server on 127.0.0.1 from a seed folder, make runs and call their
// endpoints over HTTP as an agent would, complete them, and judge their
// snapshots with sandbox.Load as assay eval does.
package simtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/serve"
)

// Clock is the clock every run of a Sandbox starts at.
var Clock = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// Sandbox is a running serve.Server for one test.
type Sandbox struct {
	t   testing.TB
	Srv *serve.Server
	Out string
}

// Start runs a sandbox seeded from seed until the test ends. Its real
// clock stands still, so run clocks read Clock unless moved. opts.Out,
// opts.Clock and opts.Now are filled when empty.
func Start(t testing.TB, seed fs.FS, opts serve.Options) *Sandbox {
	t.Helper()
	if opts.Out == "" {
		opts.Out = t.TempDir()
	}
	if opts.Clock.IsZero() {
		opts.Clock = Clock
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return Clock }
	}
	srv, err := serve.New(seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &Sandbox{t: t, Srv: srv, Out: opts.Out}
}

// Run is the run object of the control plane, as a test reads it.
type Run struct {
	ID          string            `json:"id"`
	Token       string            `json:"token"`
	Status      string            `json:"status"`
	Endpoints   map[string]string `json:"endpoints"`
	Credentials struct {
		SFTP struct {
			User     string `json:"user"`
			Password string `json:"password"`
		} `json:"sftp"`
	} `json:"credentials"`
}

// NewRun creates a run over the control plane; body is POST /runs's body.
func (s *Sandbox) NewRun(body string) Run {
	s.t.Helper()
	code, out := s.Do("POST", s.Srv.URL()+"/runs", s.Srv.Token(), "application/json", []byte(body))
	if code != http.StatusCreated {
		s.t.Fatalf("POST /runs %s: %d %s", body, code, out)
	}
	var r Run
	if err := json.Unmarshal(out, &r); err != nil {
		s.t.Fatal(err)
	}
	return r
}

// Complete completes r over the control plane and returns its snapshot's
// folder.
func (s *Sandbox) Complete(r Run) string {
	s.t.Helper()
	code, out := s.Do("POST", s.Srv.URL()+"/runs/"+r.ID+"/complete", s.Srv.Token(), "", nil)
	if code != http.StatusOK {
		s.t.Fatalf("complete %s: %d %s", r.ID, code, out)
	}
	var done struct{ Snapshot string }
	if err := json.Unmarshal(out, &done); err != nil {
		s.t.Fatal(err)
	}
	return done.Snapshot
}

// Do sends a request to url with token as the bearer and returns the
// status and the body.
func (s *Sandbox) Do(method, url, token, contentType string, body []byte) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// Evaluate judges a snapshot with criteria (a criteria file's JSON) as
// assay eval does, and returns each criterion's status by label.
func Evaluate(t testing.TB, snapshot, criteria string) map[string]assert.CriterionResult {
	t.Helper()
	env, err := sandbox.Load(snapshot, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	return EvaluateEnv(t, env, criteria)
}

// EvaluateEnv judges env with criteria and returns each criterion's result
// by label.
func EvaluateEnv(t testing.TB, env *assert.Env, criteria string) map[string]assert.CriterionResult {
	t.Helper()
	list, err := assert.ParseCriteria([]byte(criteria))
	if err != nil {
		t.Fatal(err)
	}
	res, err := assert.Evaluate(context.Background(), list, env)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]assert.CriterionResult{}
	for _, c := range res.Criteria {
		out[c.Label] = c
	}
	return out
}

// Events reads a snapshot's events.jsonl, keeping those of sim.
func Events(t testing.TB, snapshot, sim string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(snapshot, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events.jsonl: %q: %v", line, err)
		}
		if e["sim"] == sim {
			out = append(out, e)
		}
	}
	return out
}
