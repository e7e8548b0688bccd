package portal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

// The portal/ folder of a snapshot, loaded by sandbox.Load: without the
// folder the source is missing (an error naming the folder), with a good
// state.json the check judges it, and a state.json that is missing, not
// JSON or over the cap makes the check an error naming the file.
func TestSandboxFolder(t *testing.T) {
	criteria, err := assert.ParseCriteria([]byte(`[{"label": "paid", "assertion": {"assert": "portal-state-match",
	  "correlate_by": {"resource": "claims", "key": "claim_id", "value": "C-2"}, "assertions": [{"path": "status", "expected": "paid"}]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join("testdata", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	// snapshot makes a snapshot folder; a nil state leaves portal/ empty,
	// and no folder at all when withFolder is false.
	snapshot := func(withFolder bool, state []byte) string {
		dir := t.TempDir()
		if withFolder {
			if err := os.Mkdir(filepath.Join(dir, "portal"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if state != nil {
			if err := os.WriteFile(filepath.Join(dir, "portal", "state.json"), state, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	tests := []struct {
		name    string
		dir     string
		maxSize int64
		status  assert.Status
		details string
	}{
		{"no folder", snapshot(false, nil), 0, assert.StatusError,
			"no portal evidence: the sandbox has no portal/ folder (or, in Go, nothing was attached with portal.Attach)"},
		{"good state", snapshot(true, good), 0, assert.StatusPassed, `claims row "C-2" matched; 1 of 1 fields passed.`},
		{"no state.json", snapshot(true, nil), 0, assert.StatusError, "state.json"},
		{"not JSON", snapshot(true, []byte(`{"claims": [`)), 0, assert.StatusError, "portal state is not JSON"},
		{"over the cap", snapshot(true, good), 16, assert.StatusError, "over the 16-byte cap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := sandbox.Load(tt.dir, sandbox.Options{MaxFileSize: tt.maxSize})
			if err != nil {
				t.Fatal(err)
			}
			res, err := assert.Evaluate(context.Background(), criteria, env)
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Criteria[0]; c.Status != tt.status || !strings.Contains(c.Details, tt.details) {
				t.Errorf("got %s %q, want %s with %q", c.Status, c.Details, tt.status, tt.details)
			}
		})
	}
}
