package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/report"
	"github.com/google/go-cmp/cmp"
)

// task is a task result with one passing, one failing (two fields wrong)
// and one error criterion.
func task() assert.TaskResult {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	failing := check.Evidence{Matched: "C-1", Candidates: 1, FieldResults: []check.FieldResult{
		{Path: "status", Expected: "paid", Actual: "denied"},
		{Path: "amount", Expected: json.Number("99"), Actual: json.Number("120.5"), Reason: "numbers differ"},
		{Path: "id", Expected: "C-1", Actual: "C-1", Passed: true},
	}}
	return assert.Score([]assert.CriterionResult{
		{Label: "approved", CriterionID: "c1", Status: assert.StatusPassed, Score: 1, Details: "ok.", Kind: "portal-state-match", Axis: "correctness", Weight: 2, StartedAt: at, CompletedAt: at.Add(1500 * time.Microsecond)},
		{Label: "paid in full", CriterionID: "c2", Status: assert.StatusFailed, Score: 1.0 / 3, Details: "claims row \"C-1\" matched but only 1 of 3 fields passed.", Evidence: failing, Kind: "portal-state-match", Axis: "correctness", Weight: 1, StartedAt: at, CompletedAt: at},
		{CriterionID: "#2", Status: assert.StatusError, Details: "no hl7 evidence.", Kind: "hl7-structural", Axis: assert.DefaultAxis, Weight: 1, StartedAt: at, CompletedAt: at},
	})
}

func TestFieldDiffsListsEveryFailingField(t *testing.T) {
	got := report.FieldDiffs(task().Criteria[1].Evidence)
	want := []report.FieldDiff{
		{Name: "status", Expected: `"paid"`, Actual: `"denied"`},
		{Name: "amount", Expected: `99`, Actual: `120.5`, Reason: "numbers differ"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	phrases := report.FieldDiffs(map[string]any{"phrase_results": []map[string]any{
		{"phrase": "approved", "expected": "present", "found": false, "passed": false},
		{"phrase": "ssn", "expected": "absent", "found": true, "quote": "my ssn is", "passed": false},
		{"phrase": "ok", "expected": "present", "found": true, "passed": true},
	}})
	if len(phrases) != 2 || phrases[0].String() != `phrase "approved": expected present, got absent` ||
		phrases[1].String() != `phrase "ssn": expected absent, got present ("my ssn is")` {
		t.Fatalf("phrases %q", phrases)
	}
	if report.FieldDiffs(nil) != nil || report.FieldDiffs("text") != nil {
		t.Fatal("evidence without results has diffs")
	}
}

// A check.Evidence is read directly, not marshalled whole; the diffs are
// the same as those read from its JSON.
func TestFieldDiffsOfEvidenceReadAsItsJSON(t *testing.T) {
	ev := check.Evidence{Matched: map[string]any{"big": strings.Repeat("x", 1000)}, ResultsKey: "assertion_results", FieldResults: []check.FieldResult{
		{Path: "a<b>&c", Expected: "<tag> & \u2028", Actual: nil},
		{Path: "n", Expected: json.Number("1e3"), Actual: []any{1.5, "x", map[string]any{"k": true}}, Reason: "differs"},
		{Path: "ok", Expected: 1, Actual: 1, Passed: true},
		{Path: "empty", Expected: "", Actual: map[string]any{}},
	}}
	// The anonymous struct hides the type from FieldDiffs but keeps
	// MarshalJSON, so it takes the marshalling path.
	viaJSON := report.FieldDiffs(struct{ check.Evidence }{ev})
	if len(viaJSON) != 3 {
		t.Fatalf("via JSON: %q", viaJSON)
	}
	for _, e := range []any{ev, &ev} {
		if diff := cmp.Diff(viaJSON, report.FieldDiffs(e)); diff != "" {
			t.Errorf("%T (-via JSON +direct):\n%s", e, diff)
		}
	}
	if got := report.FieldDiffs(check.Evidence{ResultsKey: "rows", FieldResults: ev.FieldResults}); got != nil {
		t.Errorf("results under an unknown key: %q", got)
	}
}

func TestWriteTaskText(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteTask(&b, report.Text, task(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"PASS  1.000  approved  [c1]",
		"FAIL  0.333  paid in full  [c2]",
		`status: expected "paid", got "denied"`,
		`amount: expected 99, got 120.5 (numbers differ)`,
		"ERROR 0.000  #2  [#2]",
		"1 passed, 1 failed, 1 errors",
		"failures:\n  FAIL  paid in full  [c2]:",
		"score 0.583  verdict partial  (3 criteria)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour without Options.Color")
	}
	b.Reset()
	_ = report.WriteTask(&b, report.Text, task(), report.Options{Color: true})
	if !strings.Contains(b.String(), "\x1b[31mFAIL") {
		t.Errorf("no colour with Options.Color")
	}
}

func TestWriteTaskJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteTask(&b, report.JUnit, task(), report.Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Time     string `xml:"time,attr"`
		Suites   []struct {
			Cases []struct {
				Time    string `xml:"time,attr"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 || doc.Time != "0.0015" {
		t.Fatalf("%+v", doc)
	}
	c := doc.Suites[0].Cases
	if c[0].Time != "0.0015" || !strings.Contains(c[1].Failure.Text, `status: expected "paid", got "denied"`) {
		t.Fatalf("cases %+v", c)
	}
}

func TestDecimal(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 1.5: "1.5", 0.0000012: "0.000001", 2: "2", -1: "0", 1e-9: "0"} {
		if got := report.Decimal(in); got != want {
			t.Errorf("Decimal(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestColorFor(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	var b bytes.Buffer
	if report.ColorFor(&b, false, env("")) {
		t.Error("a buffer is not a terminal")
	}
	if report.ColorFor(os.Stdout, true, env("")) || report.ColorFor(os.Stdout, false, env("1")) {
		t.Error("--no-color or NO_COLOR must turn colour off")
	}
}

// JSON lines written per run read back, benchmark line skipped, so shards
// merge; a bad line is an error that names it.
func TestJSONLRoundTrip(t *testing.T) {
	runs := []report.Run{{Name: "run-a", Result: task()}, {Name: "run-b", Result: assert.Score(nil)}}
	var b bytes.Buffer
	if err := report.WriteBenchmark(&b, report.JSONL, runs, assert.Benchmark([]assert.TaskResult{runs[0].Result, runs[1].Result}), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 3 {
		t.Fatalf("%d lines:\n%s", n, b.String())
	}
	back, err := report.ReadJSONL(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Name != "run-a" || back[0].Result.Score != runs[0].Result.Score || back[0].Result.Counts != runs[0].Result.Counts {
		t.Fatalf("%+v", back)
	}
	if _, err := report.ReadJSONL(strings.NewReader("{\"run\": \"a\", \"score\": 1}\n{\"score\": 1}\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a line without a run name: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := report.ParseFormat("junit"); err != nil || f != report.JUnit {
		t.Fatal(f, err)
	}
	if _, err := report.ParseFormat("jsonl", report.Text, report.JSON); err == nil || !strings.Contains(err.Error(), "text or json") {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.WriteTask(&b, report.JSONL, task(), report.Options{}); err == nil {
		t.Fatal("a task result written as jsonl")
	}
}
