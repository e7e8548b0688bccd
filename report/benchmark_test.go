package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/report"
)

func runs() ([]report.Run, assert.BenchmarkResult) {
	rs := []report.Run{{Name: "run-a", Result: task()}, {Name: "run-b", Result: assert.Score(nil)}}
	return rs, assert.Benchmark([]assert.TaskResult{rs[0].Result, rs[1].Result})
}

func TestWriteBenchmark(t *testing.T) {
	rs, bm := runs()
	t.Run("json", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteBenchmark(&b, report.JSON, rs, bm, report.Options{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Runs      []report.Run           `json:"runs"`
			Benchmark assert.BenchmarkResult `json:"benchmark"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Runs) != 2 || doc.Runs[0].Name != "run-a" || doc.Runs[0].Result.Counts != rs[0].Result.Counts || doc.Benchmark.Verdicts != bm.Verdicts {
			t.Errorf("%+v", doc)
		}
		if !strings.HasPrefix(b.String(), "{\n  \"runs\": [\n    {\n      \"run\": \"run-a\",\n      \"score\":") {
			t.Errorf("a run's name is not its first key:\n%.200s", b.String())
		}
		b.Reset()
		if err := report.WriteBenchmark(&b, report.JSON, nil, assert.Benchmark(nil), report.Options{}); err != nil || !strings.Contains(b.String(), `"runs": []`) {
			t.Errorf("no runs: %v\n%s", err, b.String())
		}
	})
	t.Run("text", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteBenchmark(&b, report.Text, rs, bm, report.Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"== run-a  score 0.583  verdict partial  (1 passed, 1 failed, 1 errors)\n",
			"   FAIL  0.333  paid in full  [c2]",
			"== run-b  score 0.000  verdict fail  (0 passed, 0 failed, 0 errors)\n",
			"\nbenchmark over 2 runs: score 0.292  verdict partial\n",
			"  correctness          0.778  (1 run)\n",
			"verdicts: 0 pass, 1 partial, 1 fail\n",
			// kind and axis as wide as their longest; no axis is "-".
			"\ncriteria:\n  pass rate    mean  errors    runs  kind                axis         criterion\n",
			"       100%   1.000       0       1  portal-state-match  correctness  approved  [c1]\n",
			"         0%   0.333       0       1  portal-state-match  correctness  paid in full  [c2]  not passed in #0\n",
			"         0%   0.000       1       1  hl7-structural      -            #2  [#2]  not passed in #0\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("text lacks %q:\n%s", want, out)
			}
		}
		if runPart, _, _ := strings.Cut(out, "benchmark over"); strings.Contains(runPart, "approved") {
			t.Errorf("a passing criterion is listed under its run:\n%s", out)
		}
	})
	t.Run("junit", func(t *testing.T) {
		var b bytes.Buffer
		if err := report.WriteBenchmark(&b, report.JUnit, rs, bm, report.Options{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Name   string `xml:"name,attr"`
			Tests  int    `xml:"tests,attr"`
			Suites []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Name != "assay eval --runs" || doc.Tests != 3 || len(doc.Suites) != 2 || doc.Suites[1].Name != "run-b" {
			t.Errorf("%+v", doc)
		}
	})
	t.Run("an unknown format", func(t *testing.T) {
		if err := report.WriteBenchmark(&bytes.Buffer{}, report.Format("yaml"), rs, bm, report.Options{}); err == nil {
			t.Error("no error")
		}
	})
}

// A run's JSON is {"run": NAME, ...the task result...}: it reads back, and
// one without a name is refused.
func TestRunJSON(t *testing.T) {
	rs, _ := runs()
	for _, r := range rs {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back report.Run
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if back.Name != r.Name || back.Result.Score != r.Result.Score || back.Result.Verdict != r.Result.Verdict || len(back.Result.Criteria) != len(r.Result.Criteria) {
			t.Errorf("%s: read back %+v", data, back)
		}
	}
	var r report.Run
	for _, bad := range []string{`{"score": 1}`, `[1]`, `{"run": 5}`} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s read as a run", bad)
		}
	}
}

func TestIsTerminal(t *testing.T) {
	if report.IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if report.IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
}
