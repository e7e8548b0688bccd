package command

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/serve"
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
		for kind := range evidenceKeys {
			if _, ok := assertKinds()[kind]; !ok {
				t.Errorf("evidenceKeys names %q, which is no kind", kind)
			}
		}
		for kind := range assertKinds() {
			if _, ok := evidenceKeys[kind]; !ok {
				t.Errorf("the result schema lacks the evidence of %s", kind)
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
		for _, args := range [][]string{nil, {"--evidence"}} {
			out, stderr, _ := runAssay(t, nil, append([]string{"check", "--suite", "../examples/clibench/cli-bench.yaml",
				"--trace", "../examples/clibench/trace.json", "--format", "json"}, args...)...)
			validJSON(t, s, "check "+strings.Join(args, " ")+stderr, []byte(out))
			if has := strings.Contains(out, `"evidence":`); has != (args != nil) {
				t.Errorf("check %v: evidence shown: %v", args, has)
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

func assertKinds() map[string]bool {
	out := map[string]bool{}
	for _, k := range assert.Kinds() {
		out[k] = true
	}
	return out
}
