package command

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// benchmarkRuns writes n run folders whose portal claims are paid in the
// even ones, with per-run criteria (one scoped to entity E1).
func benchmarkRuns(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		run := filepath.Join(dir, fmt.Sprintf("run-%02d", i))
		status := "paid"
		if i%2 == 1 {
			status = "denied"
		}
		writeFile(t, run, "sandbox/portal/state.json", `{"claims": [{"id": "C-1", "status": "`+status+`"}]}`)
		writeFile(t, run, "sandbox/run.json", `{"input_entity_id": "E1"}`)
		writeFile(t, run, "criteria.json", `[
		  {"label": "paid", "axis": "correctness", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id", "value": "C-1"}, "assertions": [{"path": "status", "expected": "paid"}]}},
		  {"label": "E2 only", "input_entity_id": "E2", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "nothing", "key": "id"}}}
		]`)
	}
	writeFile(t, dir, ".hidden/sandbox/portal/state.json", `{}`)
	return dir
}

func TestEvalRunsBenchmark(t *testing.T) {
	dir := benchmarkRuns(t, 5)
	stdout, stderr, code := runAssay(t, nil, "eval", "--runs", dir, "--format", "json")
	if code != exitFail {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var doc struct {
		Runs []struct {
			Run      string
			Score    float64
			Criteria []json.RawMessage
		}
		Benchmark struct {
			Score   float64
			Verdict string
			Axes    map[string]struct {
				Score float64
				Runs  int
			}
			Verdicts map[string]int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(doc.Runs) != 5 || doc.Runs[0].Run != "run-00" || doc.Runs[4].Run != "run-04" {
		t.Fatalf("runs %+v", doc.Runs)
	}
	// run.json names E1: the E2 criterion is left out of every run.
	if len(doc.Runs[0].Criteria) != 1 {
		t.Errorf("run-00 has %d criteria, want the E1-scoped set of 1", len(doc.Runs[0].Criteria))
	}
	if doc.Benchmark.Score != 0.6 || doc.Benchmark.Verdict != "partial" ||
		doc.Benchmark.Verdicts["pass"] != 3 || doc.Benchmark.Verdicts["fail"] != 2 ||
		doc.Benchmark.Axes["correctness"].Runs != 5 {
		t.Errorf("benchmark %+v", doc.Benchmark)
	}
	// --entity wins over run.json: with E2 the scoped criterion runs (and
	// fails: the state has no such resource).
	stdout, _, _ = runAssay(t, nil, "eval", "--runs", dir, "--entity", "E2", "--format", "json")
	if !strings.Contains(stdout, `"label": "E2 only"`) {
		t.Errorf("--entity E2 did not run the E2 criterion")
	}
}

// Shards split the runs by position modulo N; merging their JSON lines
// gives exactly the benchmark of one unsplit run.
func TestEvalShardAndMerge(t *testing.T) {
	dir := benchmarkRuns(t, 7)
	whole, _, code := runAssay(t, nil, "eval", "--runs", dir, "--format", "jsonl")
	if code != exitFail {
		t.Fatalf("code %d", code)
	}
	var files []string
	seen := map[string]int{}
	for k := range 3 {
		out, stderr, _ := runAssay(t, nil, "eval", "--runs", dir, "--format", "jsonl", "--shard", fmt.Sprintf("%d/3", k))
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct{ Run string }
			if json.Unmarshal([]byte(line), &r) == nil && r.Run != "" {
				seen[r.Run]++
			}
		}
		if stderr != "" && !strings.Contains(stderr, "warning") {
			t.Errorf("shard %d: %s", k, stderr)
		}
		files = append(files, writeFile(t, t.TempDir(), "shard.jsonl", out))
	}
	if len(seen) != 7 {
		t.Errorf("shards covered %d runs: %v", len(seen), seen)
	}
	for run, n := range seen {
		if n != 1 {
			t.Errorf("%s judged by %d shards", run, n)
		}
	}
	merged, stderr, code := runAssay(t, nil, append([]string{"eval", "--merge", "--format", "jsonl"}, files...)...)
	if code != exitFail {
		t.Fatalf("merge: code %d: %s", code, stderr)
	}
	compact := regexp.MustCompile(`"(started_at|completed_at)":"[^"]+"`)
	strip := func(s string) string { return compact.ReplaceAllString(s, `"$1":"TIME"`) }
	if diff := cmp.Diff(strip(whole), strip(merged)); diff != "" {
		t.Errorf("merged shards differ from one unsplit run (-whole +merged):\n%s", diff)
	}
}

func TestEvalRunsBadInput(t *testing.T) {
	dir := benchmarkRuns(t, 2)
	writeFile(t, dir, "run-01/criteria.json", `[{"label": "x", "wieght": 2, "assertion": {}}]`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", dir}, `run run-01: `},
		{[]string{"--runs", dir, "--sandbox", dir}, "cannot be used together"},
		{[]string{"--criteria", "x.json", "--sandbox", dir, "--format", "jsonl"}, "jsonl needs --runs"},
		{[]string{"--runs", dir, "--shard", "2/2"}, "0 <= K < N"},
		{[]string{"--runs", filepath.Join(dir, "missing")}, "not a folder"},
	} {
		stdout, stderr, code := runAssay(t, nil, append([]string{"eval"}, tc.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stdout %q, stderr %q (want %q)", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

func TestHelpExitsZeroOnStdout(t *testing.T) {
	for _, cmd := range []string{"eval", "check", "validate", "schema", "criteria", "version"} {
		for _, flag := range []string{"-h", "--help"} {
			stdout, stderr, code := runAssay(t, nil, cmd, flag)
			if code != exitOK || !strings.Contains(stdout, "usage: assay "+cmd) || stderr != "" {
				t.Errorf("%s %s: code %d\nstdout %q\nstderr %q", cmd, flag, code, stdout, stderr)
			}
		}
	}
	stdout, _, _ := runAssay(t, nil, "eval", "--help")
	if !strings.Contains(stdout, "  --criteria FILE") || strings.Contains(stdout, "\n  -criteria") {
		t.Errorf("flags are not shown with two dashes:\n%s", stdout)
	}
}

// The sharding examples stay valid YAML and keep using the flags they
// document.
func TestShardingExamples(t *testing.T) {
	for _, name := range []string{"k8s-indexed-job.yaml", "github-actions.yaml"} {
		data, err := os.ReadFile(filepath.Join("../examples/sharding", name))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil || len(doc) == 0 {
			t.Errorf("%s: %v", name, err)
		}
		for _, want := range []string{"--shard", "--format jsonl"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s lacks %s", name, want)
			}
		}
	}
}
