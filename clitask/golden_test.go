package clitask_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/internal/golden"
)

// TestEvidenceGolden pins the evidence of every kind, passing and failing,
// in testdata/golden/evidence.json (go test -update rewrites it). The
// working directory reads as $WORK, the folder outside it as $OUTSIDE.
func TestEvidenceGolden(t *testing.T) {
	dir := workdir(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("root:x:0:0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out.txt")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	src := clitask.MemorySource(gitTrace(dir))
	specs := []string{
		`{"exit_code": 0}`, `{"exit_code": 1}`, `{"output_contains": "README"}`, `{"output_equals": "x"}`,
		`{"error_contains": "LF"}`, `{"file_exists": "src"}`, `{"file_exists": "missing.txt"}`,
		`{"file_exists": "out.txt"}`, `{"file_contains": {"path": "README.md", "text": "world"}}`,
		`{"ran": "git commit.*-m"}`, `{"not_ran": "git push(?!.*--dry-run)"}`,
		`{"run_count": {"pattern": "^git ", "min": 1, "max": 3}}`, `{"run_count": {"pattern": "npm install [react", "max": 0}}`,
		`{"verify": {"run": "head -c 5 README.md", "output_equals": "# Hel"}}`,
	}
	type entry struct {
		Spec     json.RawMessage `json:"spec"`
		Status   assert.Status   `json:"status"`
		Details  string          `json:"details"`
		Evidence any             `json:"evidence"`
	}
	var got []entry
	for _, spec := range specs {
		res := check(t, spec, src)
		if v, ok := res.Evidence.(clitask.VerifyEvidence); ok {
			v.DurationMS = 0 // not reproducible
			res.Evidence = v
		}
		got = append(got, entry{json.RawMessage(spec), res.Status, res.Details, res.Evidence})
	}
	data := golden.JSON(t, got)
	data = []byte(strings.NewReplacer(real, "$WORK", dir, "$WORK", outside, "$OUTSIDE").Replace(string(data)))
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), data, *update)
}
