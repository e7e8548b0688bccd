package x12_test

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/golden"
	"github.com/assaykit/assay/x12"
)

// TestEvidenceGolden runs x12-response specs (a pass, a partial failure, a
// failure without a candidate, a wildcard read, a request's transaction
// that finds its response) against the snapshot folder testdata/records and compares every
// result with testdata/golden/evidence.json. Run with -update after a
// deliberate change, and review the diff.
func TestEvidenceGolden(t *testing.T) {
	env := assert.NewEnv()
	x12.Attach(env, x12.FolderSource(check.DirFS(filepath.Join("testdata", "records")), 0))
	specs := []string{
		`{"assert":"x12-response","transaction":"278","correlate_by":{"request_id":"PA-2026-0417"},"fields":[{"path":"2000F/HCR01","expected":"A1"},{"path":"2000F/HCR02","expected":"AUTH88231"}]}`,
		`{"assert":"x12-response","transaction":"278","fields":[{"path":"2000F/HCR01","expected":"A1"},{"path":"2000F/HCR02","expected":"AUTH00000"}]}`,
		`{"assert":"x12-response","transaction":"278","correlate_by":{"request_id":"PA-9999"}}`,
		`{"assert":"x12-response","transaction":"271","correlate_by":{"patient_id":"W123456789"},"fields":[{"path":"2110C/EB(*)11","expected":"Y"},{"path":"EB(3)08","expected":0.2}]}`,
		`{"assert":"x12-response","transaction":"276"}`,
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
	// The flag is golden_test.go's, in package x12.
	update := flag.Lookup("update")
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), golden.JSON(t, got), update != nil && update.Value.String() == "true")
}
