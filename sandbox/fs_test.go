package sandbox_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/sandbox"
)

// tally is the evidence of a kind a user wrote: how many lines a file of
// the snapshot's tally/ folder holds.
type tally interface {
	Lines(ctx context.Context) (int, error)
}

type tallyFile struct{ fsys fs.FS }

func (t tallyFile) Lines(context.Context) (int, error) {
	data, err := check.ReadFile(t.fsys, "count.txt", 0)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(data), "\n"), nil
}

func init() {
	sandbox.RegisterFolder("tally", func(fsys fs.FS, _ string, env *assert.Env, _ sandbox.Options) {
		assert.Attach[tally](env, tallyFile{fsys})
	})
}

// A snapshot held in memory loads like one on disk, and a folder of the
// user's own is read through RegisterFolder.
func TestLoadFS(t *testing.T) {
	snapshot := fstest.MapFS{
		"portal/state.json": {Data: []byte(`{"claims": [{"id": "C-1", "status": "paid"}]}`)},
		"tally/count.txt":   {Data: []byte("a\nb\nc\n")},
	}
	env := sandbox.LoadFS(snapshot, sandbox.Options{})
	res, err := assert.Evaluate(context.Background(), []assert.Criterion{{Label: "paid",
		Assertion: assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id", "value": "C-1"}, "assertions": [{"path": "status", "expected": "paid"}]}`)}}, env)
	if err != nil || res.Criteria[0].Status != assert.StatusPassed {
		t.Fatalf("%v %+v", err, res.Criteria)
	}
	src, err := assert.Lookup[tally](env)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := src.Lines(context.Background()); n != 3 || err != nil {
		t.Fatalf("tally %d %v", n, err)
	}
	if got := sandbox.Present(snapshot); strings.Join(got, ",") != "portal,tally" {
		t.Errorf("present %v", got)
	}
}

// A link inside a snapshot on disk is followed only while it stays inside
// it: portal/state.json pointing at a file outside is an error, not read.
func TestLoadLinkOutOfSnapshot(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(outside, []byte(`{"claims": [{"id": "C-1"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "portal"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "portal", "state.json")); err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load(dir, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := assert.Evaluate(context.Background(), []assert.Criterion{{
		Assertion: assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id"}}`)}}, env)
	if cr := res.Criteria[0]; cr.Status != assert.StatusError || !strings.Contains(cr.Details, "state.json") {
		t.Fatalf("%s %q", cr.Status, cr.Details)
	}
}

func TestRegisterFolderPanicsOnMisuse(t *testing.T) {
	for _, name := range []string{"", "portal", "a/b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterFolder(%q) did not panic", name)
				}
			}()
			sandbox.RegisterFolder(name, func(fs.FS, string, *assert.Env, sandbox.Options) {})
		}()
	}
}

func TestRunEntity(t *testing.T) {
	for _, tc := range []struct {
		files   fstest.MapFS
		want    string
		wantErr string
	}{
		{fstest.MapFS{}, "", ""},
		{fstest.MapFS{"run.json": {Data: []byte(`{"input_entity_id": "patient-7"}`)}}, "patient-7", ""},
		{fstest.MapFS{"run.json": {Data: []byte(`{"input_entity_id": null}`)}}, "", ""},
		{fstest.MapFS{"run.json": {Data: []byte(`{"input_entity_id": 7}`)}}, "", "must be a string or null"},
		{fstest.MapFS{"run.json": {Data: []byte(`["x"]`)}}, "", "must be a JSON object"},
		{fstest.MapFS{"run.json": {Mode: fs.ModeDir}}, "", "not a regular file"},
	} {
		got, err := sandbox.RunEntity(tc.files, 0)
		if got != tc.want || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%v: %q, %v; want %q, %q", tc.files, got, err, tc.want, tc.wantErr)
		}
	}
}
