package clitask_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

func TestCLIFolder(t *testing.T) {
	if !slices.Contains(sandbox.Folders(), "cli") {
		t.Fatalf("folders %q", sandbox.Folders())
	}
	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "exit", "assertion": {"exit_code": 0}},
	  {"label": "file", "assertion": {"file_exists": "out.txt"}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string) []assert.CriterionResult {
		t.Helper()
		env, err := sandbox.Load(dir, sandbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := assert.Evaluate(context.Background(), criteria, env)
		if err != nil {
			t.Fatal(err)
		}
		return res.Criteria
	}
	write := func(dir, name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A relative workdir is relative to the cli folder.
	ok := t.TempDir()
	write(ok, "cli/trace.json", `{"workdir": "work", "commands": [{"command": "touch out.txt", "exit_code": 0}]}`)
	write(ok, "cli/work/out.txt", "")
	for _, c := range run(ok) {
		if c.Status != assert.StatusPassed {
			t.Errorf("%s: %s %s", c.Label, c.Status, c.Details)
		}
	}

	// No cli folder: the source is missing. A malformed or missing trace:
	// the checks report it. All are errors, not failures.
	missing := t.TempDir()
	bad := t.TempDir()
	write(bad, "cli/trace.json", `{"commands": [`)
	empty := t.TempDir()
	write(empty, "cli/README", "no trace here")
	for dir, want := range map[string]string{missing: "no clitask evidence", bad: "not JSON", empty: "no such file"} {
		for _, c := range run(dir) {
			if c.Status != assert.StatusError || !strings.Contains(c.Details, want) {
				t.Errorf("%s: %s %q, want error with %q", c.Label, c.Status, c.Details, want)
			}
		}
	}
}

// The cli folder read through an fs.FS: a relative workdir of a snapshot
// that is not on disk cannot be resolved, and the checks that need it say
// so; the others judge the trace.
func TestCLIFolderFS(t *testing.T) {
	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "exit", "assertion": {"exit_code": 0}},
	  {"label": "file", "assertion": {"file_exists": "out.txt"}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"cli/trace.json": {Data: []byte(`{"workdir": "work", "commands": [{"command": "touch out.txt", "exit_code": 0}]}`)}}
	res, err := assert.Evaluate(context.Background(), criteria, sandbox.LoadFS(fsys, sandbox.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Criteria[0]; c.Status != assert.StatusPassed {
		t.Errorf("exit: %s %s", c.Status, c.Details)
	}
	if c := res.Criteria[1]; c.Status != assert.StatusError || !strings.Contains(c.Details, `workdir "work" is relative`) {
		t.Errorf("file: %s %s", c.Status, c.Details)
	}
}

// A FIFO where cli/trace.json belongs is an error, not a hang; a trace over
// the snapshot's cap is an error that says so.
func TestCLIFolderBadTrace(t *testing.T) {
	criteria, err := assert.ParseCriteria([]byte(`[{"label": "exit", "assertion": {"exit_code": 0}}]`))
	if err != nil {
		t.Fatal(err)
	}
	fifo := t.TempDir()
	if err := os.Mkdir(filepath.Join(fifo, "cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, "cli", "trace.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	big := t.TempDir()
	if err := os.Mkdir(filepath.Join(big, "cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	trace := `{"commands": [` + strings.Repeat(`{"command": "x", "exit_code": 0},`, 50) + `{"command": "y", "exit_code": 0}]}`
	if err := os.WriteFile(filepath.Join(big, "cli", "trace.json"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{fifo: "it is a FIFO", big: "over the 500-byte cap"} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			env, err := sandbox.Load(dir, sandbox.Options{MaxFileSize: 500})
			if err != nil {
				t.Error(err)
				return
			}
			res, err := assert.Evaluate(context.Background(), criteria, env)
			if err != nil {
				t.Error(err)
				return
			}
			if c := res.Criteria[0]; c.Status != assert.StatusError || !strings.Contains(c.Details, want) {
				t.Errorf("%s: %s %q, want error with %q", dir, c.Status, c.Details, want)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the snapshot's trace hung the check")
		}
	}
}
