package command

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
)

// The example in examples/clibench checks as its README says: one model
// is below its informational threshold, so a warning and exit 0.
func TestCheckExample(t *testing.T) {
	stdout, stderr, code := runAssay(t, nil, "check", "--suite", "../examples/clibench/cli-bench.yaml",
		"--trace", "../examples/clibench/trace.json", "--format", "json")
	if code != exitOK || !strings.Contains(stderr, "warning: model openai/gpt-4.1 passed 60% of its runs, below the minimum 65%") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	var rep clitask.Report
	dec := json.NewDecoder(bytes.NewReader([]byte(stdout)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 10 || rep.PassRates["anthropic/claude-sonnet-4"].Passed != 5 || rep.PassRates["openai/gpt-4.1"].Passed != 3 {
		t.Errorf("report %+v", rep)
	}
	// The text format says the same.
	text, _, code := runAssay(t, nil, "check", "--suite", "../examples/clibench/cli-bench.yaml",
		"--trace", "../examples/clibench/trace.json", "--task", "total-amount")
	if code != exitFail || !strings.Contains(text, "FAIL  total-amount [openai/gpt-4.1] #1") || strings.Contains(text, "active-names") {
		t.Errorf("--task total-amount: code %d\n%s", code, text)
	}
}
