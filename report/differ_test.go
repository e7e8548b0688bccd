package report_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/voice"
)

// Evidence that lists its own diffs (a check.Differ) lists what a report
// would read from its JSON: checked on the evidence of a real
// voice-transcript failure and on a check.Evidence, both with text that
// encoding/json escapes.
func TestDifferAgreesWithTheEvidenceJSON(t *testing.T) {
	tr, err := voice.ParseText([]byte("Agent: your <b>SSN</b> & date of birth, please\nCaller: sure\n"), "call.txt")
	if err != nil {
		t.Fatal(err)
	}
	a, err := assert.Decode([]byte(`{"assert": "voice-transcript", "speaker": "agent",
		"contains": ["approved", "date of birth"], "not_contains": ["<b>SSN</b> &", "refund"]}`))
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	voice.Attach(env, voice.MemorySource(tr))
	res := assert.Run(context.Background(), a, env)
	if res.Status != assert.StatusFailed {
		t.Fatalf("voice check: %s %s", res.Status, res.Details)
	}
	ev := check.Evidence{Matched: "a<b>", FieldResults: []check.FieldResult{
		{Path: "x", Expected: "<tag> & \u2028", Actual: []any{1.5, "y"}, Reason: "differs"},
		{Path: "ok", Expected: 1, Actual: 1, Passed: true},
	}}
	for _, evidence := range []any{res.Evidence, ev} {
		if _, ok := evidence.(check.Differ); !ok {
			t.Fatalf("%T is not a check.Differ", evidence)
		}
		data, err := json.Marshal(evidence)
		if err != nil {
			t.Fatal(err)
		}
		viaJSON := report.FieldDiffs(json.RawMessage(data))
		if len(viaJSON) == 0 {
			t.Fatalf("%T: no diffs read from %s", evidence, data)
		}
		if diff := cmp.Diff(viaJSON, report.FieldDiffs(evidence)); diff != "" {
			t.Errorf("%T (-from its JSON +listed by itself):\n%s", evidence, diff)
		}
	}
}

// The cli-bench kinds' evidence lists no diffs, as its JSON holds none:
// checked on every one of their evidence types, filled in, and on a real
// failing run_count.
func TestCLIEvidenceHasNoDiffs(t *testing.T) {
	s, count := "x", 2
	yes := true
	tr := &clitask.Trace{Commands: []clitask.Command{{Command: "payerctl auth submit 1"}, {Command: "payerctl auth submit 2"}}}
	a, err := assert.Decode([]byte(`{"assert": "run_count", "run_count": {"pattern": "^payerctl auth submit ", "max": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	clitask.Attach(env, clitask.MemorySource(tr))
	res := assert.Run(context.Background(), a, env)
	if res.Status != assert.StatusFailed {
		t.Fatalf("run_count: %s %s", res.Status, res.Details)
	}
	for _, evidence := range []any{
		res.Evidence,
		clitask.LastEvidence{Commands: 1, Command: &s, Expected: 0, Actual: 1},
		clitask.PatternEvidence{Pattern: "p", Mode: "regex", Commands: 2, Matches: []clitask.Match{{Index: 1, Command: "c"}}, Count: &count, Max: &count},
		clitask.VerifyEvidence{Run: "true", Stdout: "out", OutputContains: &s},
		clitask.FileEvidence{Path: "p", Resolved: "/p", Exists: true, Contains: &yes},
	} {
		if _, ok := evidence.(check.Differ); !ok {
			t.Fatalf("%T is not a check.Differ", evidence)
		}
		data, err := json.Marshal(evidence)
		if err != nil {
			t.Fatal(err)
		}
		if viaJSON := report.FieldDiffs(json.RawMessage(data)); viaJSON != nil {
			t.Errorf("%T: its JSON %s holds diffs %q", evidence, data, viaJSON)
		}
		if got := report.FieldDiffs(evidence); got != nil {
			t.Errorf("%T lists diffs %q", evidence, got)
		}
	}
}
