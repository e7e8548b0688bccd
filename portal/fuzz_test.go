package portal_test

import (
	"context"
	"os"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

// FuzzState feeds arbitrary state documents and specs through parsing and
// checking: no input may panic, and a parsed state never yields status
// error.
func FuzzState(f *testing.F) {
	seed, err := os.ReadFile("testdata/state.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, `{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "member_id", "value": 5}, "assertions": [{"path": "status", "expected": "paid"}]}`)
	f.Add([]byte(`{"p": {"r": {"k": {"a": 1}}}}`), `{"assert": "portal-state-match", "portal": "p", "correlate_by": {"resource": "r", "key": "k"}}`)
	f.Add([]byte(`[]`), `{"assert": "portal-state-match"}`)
	f.Fuzz(func(t *testing.T, state []byte, spec string) {
		s, err := portal.ParseState(state)
		env := assert.NewEnv()
		if err == nil {
			portal.Attach(env, portal.MemorySource(s))
		}
		res, evalErr := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, env)
		if evalErr != nil {
			t.Fatal(evalErr)
		}
		if err == nil && res.Criteria[0].Status == assert.StatusError {
			t.Fatalf("parsed state gave an error: %s", res.Criteria[0].Details)
		}
	})
}
