package report_test

import (
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/report"
)

// A Go harness prints a task result as the assay command does.
func ExampleWriteTask() {
	result := assert.Score([]assert.CriterionResult{
		{Label: "authorization approved", CriterionID: "crit_1", Status: assert.StatusPassed, Score: 1,
			Details: "prior_auths row \"W123\" matched; 1 of 1 fields passed.", Axis: "correctness", Weight: 2},
		{Label: "notes uploaded", CriterionID: "crit_2", Status: assert.StatusFailed, Score: 0,
			Details: "attachments row \"PA-1\" matched but only 0 of 1 fields passed.", Axis: "correctness", Weight: 1,
			Evidence: map[string]any{"field_results": []map[string]any{{"path": "uploaded", "expected": true, "actual": false, "passed": false}}}},
	})
	_ = report.WriteTask(os.Stdout, report.Text, result, report.Options{})
	// Output:
	// PASS  1.000  authorization approved  [crit_1]
	//              prior_auths row "W123" matched; 1 of 1 fields passed.
	// FAIL  0.000  notes uploaded  [crit_2]
	//              attachments row "PA-1" matched but only 0 of 1 fields passed.
	//                uploaded: expected true, got false
	//
	// axes:
	//   correctness          0.667  (weight 3)
	//
	// 1 passed, 1 failed, 0 errors
	//
	// failures:
	//   FAIL  notes uploaded  [crit_2]: attachments row "PA-1" matched but only 0 of 1 fields passed.
	//
	// score 0.667  verdict partial  (2 criteria)
}
