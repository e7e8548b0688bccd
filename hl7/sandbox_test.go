package hl7_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

func TestHL7Folder(t *testing.T) {
	if !slices.Contains(sandbox.Folders(), "hl7") {
		t.Fatalf("folders %q", sandbox.Folders())
	}
	criteria, err := assert.ParseCriteria([]byte(`[{"label": "any ADT", "assertion": {"assert": "hl7-structural", "correlate_by": {"message_type": "ADT"}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string) assert.CriterionResult {
		env, err := sandbox.Load(dir, sandbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := assert.Evaluate(context.Background(), criteria, env)
		if err != nil {
			t.Fatal(err)
		}
		return res.Criteria[0]
	}
	// No hl7/ folder: the source is missing.
	if c := run(t.TempDir()); c.Status != assert.StatusError {
		t.Errorf("no folder: %s %q", c.Status, c.Details)
	}
	// A good file passes; a malformed one beside it makes the check error.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "hl7"), 0o755)
	os.WriteFile(filepath.Join(dir, "hl7", "a.hl7"), []byte("MSH|^~\\&|A|B|C|D|20250101||ADT^A01|ADT-1|P|2.5\nPID|1\n"), 0o644)
	if c := run(dir); c.Status != assert.StatusPassed {
		t.Errorf("good file: %s %q", c.Status, c.Details)
	}
	// A file that does not parse is listed under "rejected" (DESIGN
	// section 11); the good file still passes.
	os.WriteFile(filepath.Join(dir, "hl7", "b.hl7"), []byte("PID|1\n"), 0o644)
	if c := run(dir); c.Status != assert.StatusPassed || !strings.Contains(compact(t, c.Evidence), `"rejected":[{"index":1,"from":"b.hl7","reason":"hl7: b.hl7:1:1: segment 1: `) {
		t.Errorf("malformed file: %s %q %s", c.Status, c.Details, compact(t, c.Evidence))
	}
	// A file that cannot be read makes the check error, naming it: a link
	// that leads out of the snapshot, and a file over the size cap.
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "hl7", "c.hl7")); err == nil {
		if c := run(dir); c.Status != assert.StatusError || !strings.Contains(c.Details, "c.hl7") {
			t.Errorf("link out of the snapshot: %s %q", c.Status, c.Details)
		}
		os.Remove(filepath.Join(dir, "hl7", "c.hl7"))
	}
	env, err := sandbox.Load(dir, sandbox.Options{MaxFileSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := assert.Evaluate(context.Background(), criteria, env); err != nil || res.Criteria[0].Status != assert.StatusError || !strings.Contains(res.Criteria[0].Details, "a.hl7") {
		t.Errorf("over the cap: %v %+v", err, res.Criteria)
	}
	// An empty folder holds no messages: the check fails, it does not error.
	empty := t.TempDir()
	os.Mkdir(filepath.Join(empty, "hl7"), 0o755)
	if c := run(empty); c.Status != assert.StatusFailed || !strings.Contains(c.Details, "0 messages") {
		t.Errorf("empty folder: %s %q", c.Status, c.Details)
	}
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
