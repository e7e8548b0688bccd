package fhir_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/sandbox"
)

func TestFHIRFolder(t *testing.T) {
	if !slices.Contains(sandbox.Folders(), "fhir") {
		t.Fatalf("folders %q", sandbox.Folders())
	}
	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "booked", "assertion": {"assert": "fhir-resource-state", "resource_type": "Appointment",
	    "search": {"patient": "Patient/p1", "date": "ge2024-03-01T00:00:00+01:00"}, "fields": [{"path": "status", "expected": "booked"}]}},
	  {"label": "no such", "assertion": {"assert": "fhir-resource-state", "resource_type": "Patient", "search": {"family": "nobody"}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	evaluate := func(env *assert.Env) []assert.CriterionResult {
		res, err := assert.Evaluate(context.Background(), criteria, env)
		if err != nil {
			t.Fatal(err)
		}
		return res.Criteria
	}
	run := func(dir string, opts sandbox.Options) []assert.CriterionResult {
		env, err := sandbox.Load(dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		return evaluate(env)
	}
	// No fhir/ folder: the source is missing.
	if c := run(t.TempDir(), sandbox.Options{}); c[0].Status != assert.StatusError {
		t.Errorf("no folder: %s %q", c[0].Status, c[0].Details)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "fhir"), 0o755)
	os.WriteFile(filepath.Join(dir, "fhir", "bundle.json"), []byte(`{"resourceType":"Bundle","type":"transaction","entry":[
	  {"resource":{"resourceType":"Patient","id":"p1","name":[{"family":"One"}]},"request":{"method":"PUT","url":"Patient/p1"}},
	  {"resource":{"resourceType":"Appointment","id":"a1","status":"booked","start":"2024-03-01T09:00:00+01:00",
	    "participant":[{"actor":{"reference":"Patient/p1"},"status":"accepted"}]},"request":{"method":"PUT","url":"Appointment/a1"}}]}`), 0o644)
	c := run(dir, sandbox.Options{})
	if c[0].Status != assert.StatusPassed || c[0].Details != "Appointment/a1 matched; 1 of 1 fields passed." {
		t.Errorf("bundle: %s %q", c[0].Status, c[0].Details)
	}
	if c[1].Status != assert.StatusFailed {
		t.Errorf("no match: %s %q", c[1].Status, c[1].Details)
	}
	// The size cap applies to every file; an over-cap file makes the
	// checks error, naming it.
	c = run(dir, sandbox.Options{MaxFileSize: 64})
	if c[0].Status != assert.StatusError || !strings.Contains(c[0].Details, "bundle.json") {
		t.Errorf("over the cap: %s %q", c[0].Status, c[0].Details)
	}
	// A file that is not a resource makes every check error.
	os.WriteFile(filepath.Join(dir, "fhir", "z.json"), []byte(`{"id": "no type"}`), 0o644)
	for _, r := range run(dir, sandbox.Options{}) {
		if r.Status != assert.StatusError || !strings.Contains(r.Details, "z.json") {
			t.Errorf("bad file: %s %q", r.Status, r.Details)
		}
	}
	// fhir.url names a live server instead.
	s := fhir.NewStore()
	s.LoadJSON([]byte(`{"resourceType":"Appointment","id":"live","status":"booked","start":"2024-03-02T09:00:00Z","participant":[{"actor":{"reference":"Patient/p1"},"status":"accepted"}]}`))
	srv := fhir.NewServer(s)
	base, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	os.WriteFile(filepath.Join(dir, "fhir", "fhir.url"), []byte(base+"\n"), 0o644)
	c = run(dir, sandbox.Options{})
	if c[0].Status != assert.StatusPassed || !strings.HasPrefix(c[0].Details, "Appointment/live matched") {
		t.Errorf("fhir.url: %s %q", c[0].Status, c[0].Details)
	}
	// A fhir.url that cannot be read (here a folder) makes the checks
	// error, naming it; so does one that names no server.
	os.Remove(filepath.Join(dir, "fhir", "fhir.url"))
	os.Mkdir(filepath.Join(dir, "fhir", "fhir.url"), 0o755)
	for _, r := range run(dir, sandbox.Options{}) {
		if r.Status != assert.StatusError || !strings.Contains(r.Details, "fhir/fhir.url") {
			t.Errorf("unreadable fhir.url: %s %q", r.Status, r.Details)
		}
	}
	os.Remove(filepath.Join(dir, "fhir", "fhir.url"))
	os.WriteFile(filepath.Join(dir, "fhir", "fhir.url"), []byte("# nothing yet\n"), 0o644)
	if c := run(dir, sandbox.Options{}); c[0].Status != assert.StatusError || !strings.Contains(c[0].Details, "fhir.url names no server") {
		t.Errorf("empty fhir.url: %s %q", c[0].Status, c[0].Details)
	}
	// LoadFS: a snapshot that is not on disk.
	env := sandbox.LoadFS(fstest.MapFS{"fhir/p.json": {Data: []byte(`{"resourceType":"Patient","id":"x","name":[{"family":"Nobody"}]}`)}}, sandbox.Options{})
	if c := evaluate(env); c[1].Status != assert.StatusPassed {
		t.Errorf("LoadFS: %s %q", c[1].Status, c[1].Details)
	}
}
