package x12_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

func TestX12BrokenFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "x12"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x12", "a.request.x12"), []byte("ISA"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load(dir, sandbox.Options{})
	if err != nil {
		t.Fatalf("a broken x12 folder failed the load: %v", err)
	}
	criteria, _ := assert.ParseCriteria([]byte(`[{"label": "any 278", "assertion": {"assert": "x12-response", "transaction": "278"}},
	  {"label": "any 271", "assertion": {"assert": "x12-response", "transaction": "271", "fields": [{"path": "EB01", "expected": "1"}]}}]`))
	if len(criteria) != 2 {
		t.Fatal("criteria did not parse")
	}
	res, _ := assert.Evaluate(context.Background(), criteria, env)
	for _, c := range res.Criteria {
		if c.Status != assert.StatusError || !strings.Contains(c.Details, "a.request.x12 has no a.response.x12") {
			t.Errorf("%s: %s %q", c.Label, c.Status, c.Details)
		}
	}
}

// The x12 folder is read through fs.FS (LoadFS), lazily, with every file
// capped and regular files only: a FIFO or an oversized response makes the
// x12 checks error, never hang.
func TestX12FolderSource(t *testing.T) {
	resp, err := os.ReadFile("testdata/own/janedoe_271.x12")
	if err != nil {
		t.Fatal(err)
	}
	spec := `[{"label": "eligibility", "assertion": {"assert": "x12-response", "transaction": "271", "fields": [{"path": "2110C/EB(*)11", "expected": "Y"}]}}]`
	criteria, err := assert.ParseCriteria([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	evaluate := func(env *assert.Env) assert.CriterionResult {
		t.Helper()
		res, _ := assert.Evaluate(context.Background(), criteria, env)
		return res.Criteria[0]
	}

	env := sandbox.LoadFS(fstest.MapFS{"x12/elig.response.x12": {Data: resp}}, sandbox.Options{})
	if c := evaluate(env); c.Status != assert.StatusPassed {
		t.Errorf("from an fs.FS: %s %q", c.Status, c.Details)
	}

	env = sandbox.LoadFS(fstest.MapFS{"x12/elig.response.x12": {Data: resp}}, sandbox.Options{MaxFileSize: 100})
	if c := evaluate(env); c.Status != assert.StatusError || !strings.Contains(c.Details, "cap") {
		t.Errorf("over the cap: %s %q", c.Status, c.Details)
	}

	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "x12"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "x12", "elig.response.x12"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	env, err = sandbox.Load(dir, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := evaluate(env); c.Status != assert.StatusError || !strings.Contains(c.Details, "not a regular file") {
		t.Errorf("a FIFO: %s %q", c.Status, c.Details)
	}
}
