package command

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		if stderr != "" && !strings.Contains(stderr, "warning") && !strings.Contains(stderr, "were skipped") {
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

// The benchmark gives every criterion's record over the runs (rule 4):
// pass rate, mean score, errors and the runs that failed it, in every
// format; --summary prints only the benchmark.
func TestEvalRunsCriteriaSummary(t *testing.T) {
	dir := benchmarkRuns(t, 4)
	stdout, stderr, code := runAssay(t, nil, "eval", "--runs", dir, "--format", "json", "--summary")
	if code != exitFail {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var doc struct {
		Runs      []json.RawMessage
		Benchmark struct {
			Criteria []struct {
				CriterionID string   `json:"criterion_id"`
				Label       string   `json:"label"`
				Kind        *string  `json:"kind"`
				Axis        *string  `json:"axis"`
				Runs        int      `json:"runs"`
				PassRate    float64  `json:"pass_rate"`
				MeanScore   float64  `json:"mean_score"`
				Errors      int      `json:"errors"`
				FailedRuns  []string `json:"failed_runs"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.Runs != nil {
		t.Errorf("--summary printed the runs")
	}
	if len(doc.Benchmark.Criteria) != 1 {
		t.Fatalf("criteria %+v", doc.Benchmark.Criteria)
	}
	c := doc.Benchmark.Criteria[0]
	if c.CriterionID != "#0" || c.Label != "paid" || *c.Kind != "portal-state-match" || *c.Axis != "correctness" || c.Runs != 4 ||
		c.PassRate != 0.5 || c.MeanScore != 0.5 || c.Errors != 0 || !slices.Equal(c.FailedRuns, []string{"run-01", "run-03"}) {
		t.Errorf("criterion %+v", c)
	}
	text, _, _ := runAssay(t, nil, "eval", "--runs", dir, "--summary")
	if strings.Contains(text, "== run-") || !strings.Contains(text, "      50%   0.500       0       4  portal-state-match  correctness  paid  [#0]  not passed in run-01, run-03\n") {
		t.Errorf("text summary:\n%s", text)
	}
	full, _, _ := runAssay(t, nil, "eval", "--runs", dir)
	if !strings.Contains(full, "== run-01") || !strings.Contains(full, "\ncriteria:\n") {
		t.Errorf("text:\n%s", full)
	}
	if _, _, code := runAssay(t, nil, "eval", "--runs", dir, "--summary", "--format", "jsonl"); code != exitUsage {
		t.Errorf("--summary with jsonl: code %d", code)
	}
	// JUnit carries the benchmark as a testsuite "benchmark", a testcase
	// per criterion failing with the runs it did not pass in; --summary
	// leaves the runs' testsuites out.
	for _, summary := range []bool{false, true} {
		args := []string{"eval", "--runs", dir, "--format", "junit"}
		if summary {
			args = append(args, "--summary")
		}
		xmlOut, stderr, code := runAssay(t, nil, args...)
		if code != exitFail {
			t.Fatalf("junit (summary %v): code %d: %s", summary, code, stderr)
		}
		var doc struct {
			Suites []struct {
				Name       string `xml:"name,attr"`
				Properties []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
						Text    string `xml:",chardata"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(xmlOut), &doc); err != nil {
			t.Fatalf("%v\n%s", err, xmlOut)
		}
		wantSuites := 5
		if summary {
			wantSuites = 1
		}
		if len(doc.Suites) != wantSuites {
			t.Fatalf("summary %v: %d testsuites:\n%s", summary, len(doc.Suites), xmlOut)
		}
		bs := doc.Suites[len(doc.Suites)-1]
		if bs.Name != "benchmark" || len(bs.Properties) < 2 || bs.Properties[1].Name != "verdict" || bs.Properties[1].Value != "partial" ||
			len(bs.Cases) != 2 || bs.Cases[1].Name != "paid [#0]" || bs.Cases[1].Failure == nil ||
			bs.Cases[1].Failure.Message != "passed in 50% of 4 runs; not passed in 2 (0 errors)" || bs.Cases[1].Failure.Text != "not passed in:\nrun-01\nrun-03" {
			t.Errorf("summary %v: benchmark suite %+v\n%s", summary, bs, xmlOut)
		}
	}
}

// Rule 22: a symbolic link to a folder is a run, named as the link; any
// other entry that is not a run folder is named in one warning.
func TestEvalRunsLinksAndStrays(t *testing.T) {
	dir := benchmarkRuns(t, 2)
	elsewhere := benchmarkRuns(t, 1)
	if err := os.Symlink(filepath.Join(elsewhere, "run-00"), filepath.Join(dir, "run-linked")); err != nil {
		t.Skip(err)
	}
	writeFile(t, dir, "notes.txt", "x")
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runAssay(t, nil, "eval", "--runs", dir, "--format", "jsonl")
	if !strings.Contains(stdout, `{"run":"run-linked",`) || strings.Count(stdout, `{"run":`) != 3 {
		t.Errorf("the linked run was not judged:\n%s", stdout)
	}
	if strings.Count(stderr, "not a run folder") != 1 || !strings.Contains(stderr, `"dangling", "notes.txt"`) {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// --merge refuses (exit 2, naming the file and line) what rule 22 names.
func TestEvalMergeRefuses(t *testing.T) {
	dir := benchmarkRuns(t, 4)
	shards := make([]string, 2)
	for k := range 2 {
		out, _, _ := runAssay(t, nil, "eval", "--runs", dir, "--format", "jsonl", "--shard", fmt.Sprintf("%d/2", k))
		shards[k] = out
		if !strings.Contains(out, `"shard":"`+fmt.Sprintf("%d/2", k)+`"`) || strings.Count(out, `"shard":`) != strings.Count(out, "\n") {
			t.Fatalf("shard %d: not every line names its shard:\n%s", k, out)
		}
	}
	tmp := t.TempDir()
	file := func(name, content string) string { return writeFile(t, tmp, name, content) }
	good0, good1 := file("s0.jsonl", shards[0]), file("s1.jsonl", shards[1])
	if _, stderr, code := runAssay(t, nil, "eval", "--merge", good0, good1); code != exitFail {
		t.Fatalf("a good merge: code %d: %s", code, stderr)
	}
	firstLine := strings.SplitN(shards[0], "\n", 2)[0]
	rest := strings.SplitN(shards[0], "\n", 2)[1]
	withScore := func(score string) string {
		return regexp.MustCompile(`"score":[^,]+,"verdict":"[a-z]+"`).ReplaceAllString(firstLine, `"score":`+score+`,"verdict":"pass"`) + "\n" + rest
	}
	lines := strings.Split(strings.TrimSpace(shards[0]), "\n")
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"score 7", []string{file("a.jsonl", withScore("7")), good1}, "a.jsonl:1: run \"run-00\": score 7 is not a number in [0, 1]"},
		{"score -5", []string{file("b.jsonl", withScore("-5")), good1}, "b.jsonl:1: run \"run-00\": score -5 is not"},
		{"score 1e308", []string{file("c.jsonl", withScore("1e308")), good1}, "c.jsonl:1: run \"run-00\": score 1e+308 is not"},
		{"verdict contradicts score", []string{file("d.jsonl", withScore("0.5")), good1}, `d.jsonl:1: run "run-00": verdict "pass" does not follow from score 0.5`},
		{"a shard lost its benchmark line", []string{file("e.jsonl", strings.Join(lines[:len(lines)-1], "\n")+"\n"), good1}, "shard 0/2 has no benchmark line"},
		{"a shard missing", []string{good0}, "shards missing: 1/2"},
		{"a shard twice", []string{good0, good1, file("f.jsonl", shards[1])}, "the shard is given twice"},
		{"two splits", []string{good0, good1, file("g.jsonl", strings.ReplaceAll(shards[1], `"1/2"`, `"1/3"`))}, "mix splits"},
	} {
		stdout, stderr, code := runAssay(t, nil, append([]string{"eval", "--merge"}, tc.files...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: code %d, stderr %q (want %q), stdout %q", tc.name, code, stderr, tc.want, stdout)
		}
	}
}

// --criterion and --kind restrict what is evaluated; ids keep their
// position; a filter that selects nothing is bad usage.
func TestEvalFilters(t *testing.T) {
	dir := t.TempDir()
	sandbox := filepath.Join(dir, "sandbox")
	writeFile(t, sandbox, "portal/state.json", portalState)
	criteria := writeFile(t, dir, "criteria.json", `[
	  {"label": "paid", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id", "value": "C-1"}}},
	  {"id": "order", "label": "order sent", "assertion": {"assert": "hl7-structural"}},
	  {"label": "exit", "assertion": {"assert": "exit_code", "exit_code": 0}}]`)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--kind", "portal-state-match"}, []string{"[#0]"}},
		{[]string{"--kind", "hl7-structural,exit_code"}, []string{"[order]", "[#2]"}},
		{[]string{"--criterion", "^order$"}, []string{"[order]"}},
		{[]string{"--criterion", "paid|exit"}, []string{"[#0]", "[#2]"}},
		{[]string{"--criterion", "#2"}, []string{"[#2]"}},
	} {
		stdout, stderr, _ := runAssay(t, nil, append([]string{"eval", "--criteria", criteria, "--sandbox", sandbox}, tc.args...)...)
		got := regexp.MustCompile(`(?m)^(?:PASS |FAIL |ERROR) [0-9.]+  .*  (\[[^\]]+\])$`).FindAllStringSubmatch(stdout, -1)
		var ids []string
		for _, m := range got {
			ids = append(ids, m[1])
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%v: criteria %v, want %v\n%s%s", tc.args, ids, tc.want, stdout, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "portal-state-matc"}, `did you mean "portal-state-match"?`},
		{[]string{"--criterion", "nothing-like-this"}, "selects none of the criteria"},
		{[]string{"--criterion", "("}, "not a regular expression"},
	} {
		_, stderr, code := runAssay(t, nil, append([]string{"eval", "--criteria", criteria, "--sandbox", sandbox}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, %s", tc.args, code, stderr)
		}
	}
}
