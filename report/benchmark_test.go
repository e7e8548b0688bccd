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
		doc := readJUnit(t, b.Bytes())
		// The runs' 3 cases, then the benchmark's: its verdict and one per
		// criterion.
		if doc.Name != "assay eval --runs" || doc.Tests != 3+4 || doc.Failures != 1+3 || len(doc.Suites) != 3 || doc.Suites[1].Name != "run-b" {
			t.Fatalf("%+v", doc)
		}
		bs := doc.Suites[2]
		if bs.Name != "benchmark" || bs.Tests != 4 || bs.Failures != 3 ||
			bs.prop("score") != "0.2916666666666667" || bs.prop("verdict") != "partial" || bs.prop("runs") != "2" ||
			bs.prop("verdicts.partial") != "1" || bs.prop("verdicts.fail") != "1" || bs.prop("axis.correctness") != "0.7777777777777778" {
			t.Errorf("benchmark suite %+v", bs)
		}
		want := []junitCase{
			{Name: "verdict", Classname: "benchmark", Failure: "benchmark verdict partial: score 0.292 over 2 runs", Text: "benchmark verdict partial: score 0.292 over 2 runs"},
			{Name: "approved [c1]", Classname: "portal-state-match"},
			{Name: "paid in full [c2]", Classname: "portal-state-match", Failure: "passed in 0% of 1 run; not passed in 1 (0 errors)", Text: "not passed in:\n#0"},
			{Name: "#2 [#2]", Classname: "hl7-structural", Failure: "passed in 0% of 1 run; not passed in 1 (1 error)", Text: "not passed in:\n#0"},
		}
		for i, w := range want {
			got := bs.Cases[i]
			if got.Name != w.Name || got.Classname != w.Classname || got.Failure.Message != w.Failure || got.Failure.Text != w.Text {
				t.Errorf("case %d: got %+v, want %+v", i, got, w)
			}
		}
		if c := bs.Cases[2]; c.prop("criterion_id") != "c2" || c.prop("kind") != "portal-state-match" || c.prop("axis") != "correctness" ||
			c.prop("pass_rate") != "0" || c.prop("mean_score") != "0.3333333333333333" || c.prop("errors") != "0" || c.prop("runs") != "1" {
			t.Errorf("criterion properties %+v", c.Properties)
		}
		if c := bs.Cases[3]; c.prop("axis") != "" || c.prop("errors") != "1" {
			t.Errorf("criterion without axis %+v", c.Properties)
		}
		// --summary: the benchmark alone.
		b.Reset()
		if err := report.WriteBenchmark(&b, report.JUnit, rs, bm, report.Options{Summary: true, Shard: "1/2"}); err != nil {
			t.Fatal(err)
		}
		doc = readJUnit(t, b.Bytes())
		if len(doc.Suites) != 1 || doc.Suites[0].Name != "benchmark" || doc.Tests != 4 || doc.Failures != 3 || doc.Suites[0].prop("shard") != "1/2" {
			t.Errorf("summary: %+v", doc)
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

type junitProps struct {
	Property []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"property"`
}

type junitCase struct {
	Name, Classname, Failure, Text string
}

type junitCaseDoc struct {
	Name       string     `xml:"name,attr"`
	Classname  string     `xml:"classname,attr"`
	Properties junitProps `xml:"properties"`
	Failure    struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	} `xml:"failure"`
}

func (c junitCaseDoc) prop(name string) string { return c.Properties.get(name) }

type junitSuiteDoc struct {
	Name       string         `xml:"name,attr"`
	Tests      int            `xml:"tests,attr"`
	Failures   int            `xml:"failures,attr"`
	Properties junitProps     `xml:"properties"`
	Cases      []junitCaseDoc `xml:"testcase"`
}

func (s junitSuiteDoc) prop(name string) string { return s.Properties.get(name) }

func (p junitProps) get(name string) string {
	for _, q := range p.Property {
		if q.Name == name {
			return q.Value
		}
	}
	return "?"
}

type junitDoc struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Suites   []junitSuiteDoc `xml:"testsuite"`
}

func readJUnit(t *testing.T, data []byte) junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	return doc
}
