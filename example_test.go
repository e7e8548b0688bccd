package assay_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

// Evaluate the bundled prior-authorization example, as
// "assay eval --criteria examples/priorauth/criteria.json --sandbox examples/priorauth/sandbox" does.
func Example() {
	env, err := sandbox.Load("examples/priorauth/sandbox", sandbox.Options{})
	if err != nil {
		panic(err)
	}
	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "MRI authorization approved", "weight": 2, "axis": "correctness",
	   "assertion": {"assert": "portal-state-match", "portal": "payer-portal",
	                 "correlate_by": {"resource": "prior_auths", "key": "member_id", "value": "W123456789"},
	                 "assertions": [{"path": "service.cpt", "expected": "73721"},
	                                {"path": "status", "expected": "approved"}]}},
	  {"label": "denial letter uploaded", "weight": 1, "axis": "completeness",
	   "assertion": {"assert": "portal-state-match", "portal": "payer-portal",
	                 "correlate_by": {"resource": "attachments", "key": "auth_id", "value": "PA-2026-0417"},
	                 "assertions": [{"path": "document_type", "expected": "denial_letter"}]}}
	]`))
	if err != nil {
		panic(err)
	}
	result, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		panic(err)
	}
	for _, c := range result.Criteria {
		fmt.Printf("%s: %s (%.2f)\n", c.Label, c.Status, c.Score)
	}
	fmt.Printf("score %.3f: %s\n", result.Score, result.Verdict)
	// Output:
	// MRI authorization approved: passed (1.00)
	// denial letter uploaded: failed (0.00)
	// score 0.667: partial
}
