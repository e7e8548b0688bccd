package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

func TestLoadExample(t *testing.T) {
	env, err := sandbox.Load("../examples/priorauth/sandbox", sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := readCriteria("../examples/priorauth/criteria.json")
	if err != nil {
		t.Fatal(err)
	}
	// The rollout's run.json names its entity: Load applies it, as assay
	// eval does.
	res, err := assert.Evaluate(context.Background(), data, env)
	if err != nil {
		t.Fatal(err)
	}
	// The example fails some criteria on purpose (see its README); every
	// other criterion, of all sixteen kinds' six criteria kinds and the
	// cli-bench ones, passes.
	wantFailed := map[string]float64{
		"crit_fhir_appointment_in_auth_window": 0,
		"crit_portal_attachment":               0.5,
		"crit_voice_no_ssn":                    0,
		"crit_cli_submit_once":                 0,
	}
	kinds := map[string]bool{}
	for _, c := range res.Criteria {
		kinds[c.Kind] = true
		score, failing := wantFailed[c.CriterionID]
		switch {
		case failing && (c.Status != assert.StatusFailed || c.Score != score):
			t.Errorf("%s: %s %.2f, want failed %.2f: %s", c.CriterionID, c.Status, c.Score, score, c.Details)
		case !failing && c.Status != assert.StatusPassed:
			t.Errorf("%s: %s %s", c.CriterionID, c.Status, c.Details)
		}
	}
	for _, k := range []string{"fhir-resource-state", "hl7-structural", "x12-response", "portal-state-match", "sftp-file-present", "voice-transcript"} {
		if !kinds[k] {
			t.Errorf("the example has no %s criterion", k)
		}
	}
	if len(res.Criteria) != 16 || res.Verdict != assert.VerdictPartial || res.Score != 0.75 || res.Counts.Skipped != 1 || res.Entity != "patient-jane-doe" {
		t.Fatalf("%d criteria (%d skipped for %q), score %v, verdict %s; want 16 (1 skipped for patient-jane-doe), 0.75, partial",
			len(res.Criteria), res.Counts.Skipped, res.Entity, res.Score, res.Verdict)
	}
}

// A run.json that is not {"input_entity_id": ...} fails Load (which entity
// a rollout is for decides which criteria apply: no guess); through LoadFS
// it fails the evaluation.
func TestBadRunJSON(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"input_entity_id": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Load(dir, sandbox.Options{}); err == nil || !strings.Contains(err.Error(), "input_entity_id must be a string") {
		t.Fatalf("Load: %v", err)
	}
	env := sandbox.LoadFS(os.DirFS(dir), sandbox.Options{})
	if _, err := assert.Evaluate(context.Background(), nil, env); err == nil {
		t.Fatal("LoadFS with a bad run.json evaluated")
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := sandbox.Load(filepath.Join(t.TempDir(), "nope"), sandbox.Options{})
	if !errors.Is(err, sandbox.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if _, err := sandbox.Load("sandbox.go", sandbox.Options{}); err == nil {
		t.Fatal("a file loaded as a sandbox")
	}
}

func TestEmptySandboxHasNoSources(t *testing.T) {
	env, err := sandbox.Load(t.TempDir(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(
		`{"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}`)}}, env)
	if res.Criteria[0].Status != assert.StatusError {
		t.Fatalf("got %s %q", res.Criteria[0].Status, res.Criteria[0].Details)
	}
}

func TestFolders(t *testing.T) {
	if !slices.Contains(sandbox.Folders(), "portal") {
		t.Fatalf("folders %q", sandbox.Folders())
	}
}
