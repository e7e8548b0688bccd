package portal_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/golden"
	"github.com/assaykit/assay/portal"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestEvidenceGolden runs portal-state-match specs (a pass, a partial
// failure, a failure without a candidate, keyed rows, a named portal)
// against testdata/state.json and compares every result with
// testdata/golden/evidence.json. Run with -update after a deliberate
// change, and review the diff.
func TestEvidenceGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	state, err := portal.ParseState(data)
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))
	specs := []string{
		`{"assert":"portal-state-match","correlate_by":{"resource":"claims","key":"claim_id","value":"C-2"},"assertions":[{"path":"amount","expected":120.5},{"path":"lines.#.cpt","expected":"72148"}]}`,
		`{"assert":"portal-state-match","correlate_by":{"resource":"claims","key":"claim_id"},"assertions":[{"path":"status","expected":"paid"},{"path":"amount","expected":99},{"path":"notes","expected":null}]}`,
		`{"assert":"portal-state-match","correlate_by":{"resource":"claims","key":"claim_id","value":"C-9"},"assertions":[{"path":"status","expected":"paid"}]}`,
		`{"assert":"portal-state-match","correlate_by":{"resource":"members","key":"member_id","value":"W2"},"assertions":[{"path":"plan","expected":"silver"},{"path":"name","expected":"Jane Doe"}]}`,
		`{"assert":"portal-state-match","portal":"payer-portal","correlate_by":{"resource":"claims","key":"claim_id","value":"P-1"},"assertions":[{"path":"status","expected":"approved"}]}`,
	}
	type entry struct {
		Spec   json.RawMessage `json:"spec"`
		Result assert.Result   `json:"result"`
	}
	var got []entry
	for _, s := range specs {
		a, err := assert.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{Spec: json.RawMessage(s), Result: assert.Run(context.Background(), a, env)})
	}
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), golden.JSON(t, got), *update)
}
