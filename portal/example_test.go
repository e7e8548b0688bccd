package portal_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

// A portal's state held in memory, and two specs against it: the
// prior-authorization request is approved (a pass), but not for the
// procedure the task asked for (a fail, with the field that differs).
func Example() {
	state, err := portal.ParseState([]byte(`{"prior_auth_requests": [
	  {"request_id": "REQ-1", "procedure_code": "73721", "status": "approved"},
	  {"request_id": "REQ-2", "procedure_code": "97110", "status": "pending"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))
	for _, spec := range []string{
		`{"assert": "portal-state-match", "correlate_by": {"resource": "prior_auth_requests", "key": "request_id", "value": "REQ-1"},
		  "assertions": [{"path": "status", "expected": "approved"}]}`,
		`{"assert": "portal-state-match", "correlate_by": {"resource": "prior_auth_requests", "key": "request_id", "value": "REQ-1"},
		  "assertions": [{"path": "status", "expected": "approved"}, {"path": "procedure_code", "expected": "97110"}]}`,
	} {
		a, err := assert.Decode([]byte(spec))
		if err != nil {
			fmt.Println(err)
			return
		}
		res := assert.Run(context.Background(), a, env)
		fmt.Printf("%s %.1f %s\n", res.Status, res.Score, res.Details)
	}
	// Output:
	// passed 1.0 prior_auth_requests row "REQ-1" matched; 1 of 1 fields passed.
	// failed 0.5 prior_auth_requests row "REQ-1" matched but only 1 of 2 fields passed (procedure_code: expected "97110", got "73721").
}
