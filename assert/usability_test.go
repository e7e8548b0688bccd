package assert_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
)

// A kind of assay's own whose package was not imported says which import
// registers it.
func TestForgottenImportNamesThePackage(t *testing.T) {
	_, err := assert.NewRegistry().Decode([]byte(`{"assert": "sftp-file-present", "path": "a"}`))
	if err == nil || !strings.Contains(err.Error(), `import "github.com/assaykit/assay/sftp"`) {
		t.Fatalf("err = %v", err)
	}
	_, err = assert.NewRegistry().Decode([]byte(`{"assert": "made-up"}`))
	if err == nil || !strings.Contains(err.Error(), `unknown kind "made-up"`) {
		t.Fatalf("err = %v", err)
	}
}

type minRows struct {
	Min int `json:"min"`
}

func (m *minRows) Check(_ context.Context, env *assert.Env) assert.Result {
	rows, err := assert.Lookup[rowCounter](env)
	if err != nil {
		return assert.Errored(err)
	}
	if n := rows.Rows(); n < m.Min {
		return assert.Fail(0, "too few rows", nil)
	}
	return assert.Pass("enough rows", nil)
}

type rowCounter interface{ Rows() int }

type fixedRows int

func (f fixedRows) Rows() int { return int(f) }

// A kind whose spec decodes straight into a struct registers in one call,
// and each decode gets its own value.
func TestRegisterType(t *testing.T) {
	r := assert.NewRegistry()
	assert.RegisterType[minRows](r, "min-rows", []byte(`{"type": "object", "required": ["min"], "additionalProperties": false,
	  "properties": {"assert": {"const": "min-rows"}, "min": {"type": "integer"}}}`))
	env := assert.NewEnv()
	assert.Attach[rowCounter](env, fixedRows(3))
	res, err := r.Evaluate(context.Background(), []assert.Criterion{
		{Label: "two", Assertion: assert.Spec(`{"assert": "min-rows", "min": 2}`)},
		{Label: "five", Assertion: assert.Spec(`{"assert": "min-rows", "min": 5}`)},
		{Label: "typo", Assertion: assert.Spec(`{"assert": "min-rows", "mni": 5}`)},
	}, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []assert.Status{assert.StatusPassed, assert.StatusFailed, assert.StatusFailed}
	for i, cr := range res.Criteria {
		if cr.Status != want[i] || cr.Kind != "min-rows" {
			t.Errorf("%s: %s %s (%s)", cr.Label, cr.Status, cr.Kind, cr.Details)
		}
	}
	if !strings.Contains(res.Criteria[2].Details, `unknown key "mni"`) {
		t.Errorf("typo: %s", res.Criteria[2].Details)
	}
}

// Attach infers its key from the value: a source attached under its
// concrete type is not found as the interface, and the error says so.
func TestMisattachedSourceIsLoud(t *testing.T) {
	env := assert.NewEnv()
	assert.Attach(env, fixedRows(3)) // keyed as fixedRows, not rowCounter
	_, err := assert.Lookup[rowCounter](env)
	if err == nil || !strings.Contains(err.Error(), "was attached under its own type") || !strings.Contains(err.Error(), "assert.Attach[assert_test.rowCounter]") {
		t.Fatalf("err = %v", err)
	}
}

type closeRecorder struct {
	order *[]string
	name  string
}

func (c closeRecorder) Close() error {
	*c.order = append(*c.order, c.name)
	if c.name == "b" {
		return errors.New("b failed")
	}
	return nil
}

// Close closes what OnClose registered, last first, once.
func TestEnvClose(t *testing.T) {
	env := assert.NewEnv()
	var order []string
	env.OnClose(closeRecorder{&order, "a"})
	env.OnClose(closeRecorder{&order, "b"})
	env.OnClose(nil)
	if err := env.Close(); err == nil || !strings.Contains(err.Error(), "b failed") {
		t.Fatalf("err = %v", err)
	}
	if err := env.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if strings.Join(order, ",") != "b,a" {
		t.Fatalf("closed %v", order)
	}
}
