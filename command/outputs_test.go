package command

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/chat/chattest"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
)

// outputSchema compiles what assay schema NAME prints.
func outputSchema(t *testing.T, name string, args ...string) *jsonschema.Schema {
	t.Helper()
	stdout, stderr, code := runAssay(t, nil, append([]string{"schema", name}, args...)...)
	if code != exitOK {
		t.Fatalf("schema %s: code %d %s", name, code, stderr)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	if err := c.AddResource(name+".json", strings.NewReader(stdout)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		t.Fatalf("schema %s does not compile: %v", name, err)
	}
	return s
}

func validJSON(t *testing.T, s *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: not JSON: %v", what, err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not follow its schema: %#v", what, err)
	}
}

// Every output schema holds for the command's real outputs, and rejects
// what it must.
func TestOutputSchemas(t *testing.T) {
	t.Run("result", func(t *testing.T) {
		s := outputSchema(t, "result")
		out, _, _ := runAssay(t, nil, "eval", "--criteria", example+"/criteria.json", "--sandbox", example+"/sandbox", "--format", "json")
		validJSON(t, s, "the example's result", []byte(out))
		// The evidence key of every kind is in the schema: a voice
		// result without phrase_results is refused.
		bad := strings.Replace(out, `"phrase_results"`, `"phrases"`, 1)
		var doc any
		_ = json.Unmarshal([]byte(bad), &doc)
		if s.Validate(doc) == nil {
			t.Error("a voice-transcript evidence without phrase_results passes")
		}
		for _, kind := range assert.Kinds() {
			if len(assert.DefaultRegistry().EvidenceKeys(kind)) == 0 {
				t.Errorf("the result schema lacks the evidence of %s: its Register passes no assert.Reports", kind)
			}
		}
	})
	t.Run("benchmark", func(t *testing.T) {
		s := outputSchema(t, "benchmark")
		dir := benchmarkRuns(t, 3)
		for _, args := range [][]string{{"--format", "json"}, {"--format", "json", "--summary"}} {
			out, _, _ := runAssay(t, nil, append([]string{"eval", "--runs", dir}, args...)...)
			validJSON(t, s, strings.Join(args, " "), []byte(out))
		}
		for _, shard := range []string{"", "1/2"} {
			args := []string{"eval", "--runs", dir, "--format", "jsonl"}
			if shard != "" {
				args = append(args, "--shard", shard)
			}
			out, _, _ := runAssay(t, nil, args...)
			sc := bufio.NewScanner(strings.NewReader(out))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				validJSON(t, s, "a JSON line", sc.Bytes())
			}
		}
	})
	t.Run("check", func(t *testing.T) {
		s := outputSchema(t, "check")
		for _, args := range [][]string{nil, {"--evidence"}, {"--no-verify"}} {
			out, stderr, _ := runAssay(t, nil, append([]string{"check", "--suite", "../examples/clibench/cli-bench.yaml",
				"--trace", "../examples/clibench/trace.json", "--format", "json"}, args...)...)
			validJSON(t, s, "check "+strings.Join(args, " ")+stderr, []byte(out))
			if has := strings.Contains(out, `"skipped": true`); has != (len(args) > 0 && args[0] == "--no-verify") {
				t.Errorf("check %v: skipped shown: %v", args, has)
			}
			if has := strings.Contains(out, `"evidence":`); has != (len(args) > 0 && args[0] == "--evidence") {
				t.Errorf("check %v: evidence shown: %v", args, has)
			}
		}
		// assay run's output, every key it adds present: run (--out),
		// stopped (max_turns), by_help_mode, usage.
		llm := chattest.NewServer()
		defer llm.Close()
		dir := t.TempDir()
		suite := filepath.Join(dir, "cli-bench.yaml")
		if err := os.WriteFile(suite, []byte(runSuite), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := runAssay(t, []string{"ASSAY_LLM_BASE_URL=" + llm.URL}, "run", "--suite", suite, "--format", "json",
			"--model", "fake/solver", "--model", "fake/looper", "--out", filepath.Join(dir, "out"))
		if code != exitFail {
			t.Fatalf("run: code %d, want 1: %s", code, stderr)
		}
		for _, key := range []string{`"run":`, `"help_mode":`, `"stopped": "max_turns"`, `"by_help_mode":`, `"usage":`, `"wall_ms":`} {
			if !strings.Contains(out, key) {
				t.Errorf("run's output lacks %s:\n%s", key, out)
			}
		}
		validJSON(t, s, "run", []byte(out))
		// The schema describes every key: one it does not know is refused.
		for _, bad := range []string{strings.Replace(out, `"usage":`, `"usages":`, 1), strings.Replace(out, `"stopped":`, `"stop":`, 1),
			strings.Replace(out, `"wall_ms":`, `"wall":`, 1)} {
			var doc any
			_ = json.Unmarshal([]byte(bad), &doc)
			if s.Validate(doc) == nil {
				t.Errorf("an output with a key the schema does not describe passes:\n%s", bad)
			}
		}
	})
	t.Run("trace", func(t *testing.T) {
		s := outputSchema(t, "trace")
		data, err := os.ReadFile("../examples/clibench/trace.json")
		if err != nil {
			t.Fatal(err)
		}
		validJSON(t, s, "examples/clibench/trace.json", data)
		data, err = os.ReadFile(example + "/sandbox/cli/trace.json")
		if err != nil {
			t.Fatal(err)
		}
		validJSON(t, s, "the example's cli/trace.json", data)
	})
	t.Run("records", func(t *testing.T) {
		s := outputSchema(t, "records")
		for _, path := range []string{"../x12/testdata/records/records.json"} {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			validJSON(t, s, path, data)
		}
	})
	t.Run("events", func(t *testing.T) {
		s := outputSchema(t, "events")
		out := t.TempDir()
		srv, err := serve.New(fstest.MapFS{}, serve.Options{Out: out})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "r1", Entity: "E1"})
		if err != nil {
			t.Fatal(err)
		}
		// Refused requests are events too: a wrong token, a bad path, a
		// body that carries no HL7 message.
		for _, r := range []struct{ method, path, token, contentType, body string }{
			{"GET", "/files/x", "nope", "", ""},
			{"GET", "/files/a/../../x", run.Token(), "", ""},
			{"PUT", "/files/ok.txt", run.Token(), "", "x"},
			{"POST", "/hl7/outbound", run.Token(), "image/png", "x"},
		} {
			req, _ := http.NewRequest(r.method, run.BaseURL()+r.path, strings.NewReader(r.body))
			req.Header.Set("Authorization", "Bearer "+r.token)
			if r.contentType != "" {
				req.Header.Set("Content-Type", r.contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		snap, err := run.Complete(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(snap, "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) < 6 {
			t.Fatalf("events.jsonl: %q", data)
		}
		for _, line := range lines {
			validJSON(t, s, "an event", []byte(line))
		}
		var doc any
		_ = json.Unmarshal([]byte(`{"seq": 0, "time": "x", "sim": "mail", "type": "run_phase"}`), &doc)
		if s.Validate(doc) == nil {
			t.Error("a bad event passes")
		}
	})
}

// A kind the command was never told of, registered with the evidence it
// reports, is described by the result schema: nothing in the command lists
// kinds.
func TestResultSchemaFollowsRegistry(t *testing.T) {
	r := assert.NewRegistry()
	assert.RegisterType[rowsCount](r, "rows-count", []byte(`{"type": "object", "required": ["assert"]}`),
		assert.Reports("rows", "field_results"))
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"schema", "result"}, Config{Stdout: &out, Stderr: &errb, Registry: r}); code != 0 {
		t.Fatalf("schema result: code %d %s", code, errb.String())
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("result.json", &out); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("result.json")
	if err != nil {
		t.Fatal(err)
	}
	result := func(kind, evidence string) string {
		return `{"score": 1, "verdict": "pass", "axes": {}, "counts": {"passed": 1, "failed": 0, "error": 0, "skipped": 0},
		  "criteria": [{"label": "l", "criterion_id": "c", "status": "passed", "passed": true, "score": 1, "details": "d",
		    "evidence": ` + evidence + `, "started_at": "2024-01-01T00:00:00Z", "completed_at": "2024-01-01T00:00:01Z",
		    "kind": "` + kind + `", "axis": null, "weight": 1}]}`
	}
	for _, tt := range []struct {
		kind, evidence string
		valid          bool
	}{
		{"rows-count", `{"rows": 3, "field_results": []}`, true},
		{"rows-count", `null`, true}, // the check did not run
		{"rows-count", `{"count": 3, "field_results": []}`, false},
		{"rows-count", `{"rows": 3, "field_results": [{"passed": true}]}`, false}, // a field result's shape is check's
		{"portal-state-match", `{}`, true},                                        // not in this registry
	} {
		var doc any
		if err := json.Unmarshal([]byte(result(tt.kind, tt.evidence)), &doc); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); (err == nil) != tt.valid {
			t.Errorf("%s with evidence %s: valid %v, want %v (%v)", tt.kind, tt.evidence, err == nil, tt.valid, err)
		}
	}
}

// Every event a full sandbox run emits follows assay schema events: the
// example's scripted agent does the whole prior-authorization story (FHIR,
// X12, the portal, HL7 over MLLP, SFTP, the phone line) against a sandbox
// of the example's seed, and each line of the run's events.jsonl is
// validated, not only the run_phase events of an empty seed.
func TestEventsSchemaFullRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs examples/priorauth/agent")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH to build the example's agent: %v", err)
	}
	s := outputSchema(t, "events")
	srv := servetest.Start(t, check.DirFS("../examples/priorauth/seed"),
		serve.Options{Clock: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "run", "./examples/priorauth/agent", "--url", srv.URL(), "--token", srv.Token())
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the agent: %v\n%s", err, out)
	}
	_, after, ok := strings.Cut(string(out), "\nsnapshot ")
	snap, _, _ := strings.Cut(after, "\n")
	if !ok || snap == "" {
		t.Fatalf("the agent named no snapshot:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(snap, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		validJSON(t, s, fmt.Sprintf("event %d %s", i+1, line), []byte(line))
		var ev struct{ Sim, Type string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		seen[ev.Sim+" "+ev.Type] = true
	}
	sims := map[string]bool{}
	for k := range seen {
		sim, _, _ := strings.Cut(k, " ")
		sims[sim] = true
	}
	// Every simulator the story uses emitted something, and more types
	// than run_phase were checked.
	for _, sim := range []string{"fhir", "x12", "portal", "hl7", "sftp", "voice"} {
		if !sims[sim] {
			t.Errorf("no %s event among %v", sim, sortedSet(seen))
		}
	}
	if len(seen) < 6 {
		t.Errorf("only %d event types: %v", len(seen), sortedSet(seen))
	}
	t.Logf("%d event types validated: %v", len(seen), sortedSet(seen))
}

func sortedSet(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rowsCount is a kind of TestResultSchemaFollowsRegistry's own.
type rowsCount struct{}

func (rowsCount) Check(context.Context, *assert.Env) assert.Result { return assert.Pass("ok", nil) }

// runSuite is a suite for assay run's outputs: a task the solver does, in
// two help modes, and one a looper never finishes.
const runSuite = `cli: sh
help_modes: [injected, none]
tasks:
  - id: greet
    intent: Greet with ` + "`echo hi`" + `.
    assert: [{output_equals: hi}]
  - id: busy
    intent: Keep busy.
    max_turns: 2
    assert: [{exit_code: 0}]
`
