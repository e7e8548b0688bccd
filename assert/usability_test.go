package assert_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
)

// A kind registered with From in one registry, decoded through another
// that lacks it, names the package whose Register adds it; a kind no
// registration told of is unknown.
func TestUnregisteredKindNamesItsPackage(t *testing.T) {
	assert.NewRegistry().Register("from-elsewhere", []byte(`{}`), func(assert.Spec) (assert.Assertion, error) { return nil, nil },
		assert.From("example.com/kinds/elsewhere"))
	_, err := assert.NewRegistry().Decode([]byte(`{"assert": "from-elsewhere"}`))
	if err == nil || !errors.Is(err, assert.ErrUnknownKind) ||
		!strings.Contains(err.Error(), `kind "from-elsewhere" is not registered in this registry: the Register function of "example.com/kinds/elsewhere" adds it`) {
		t.Fatalf("err = %v", err)
	}
	_, err = assert.NewRegistry().Decode([]byte(`{"assert": "made-up"}`))
	if err == nil || !strings.Contains(err.Error(), `unknown kind "made-up"`) {
		t.Fatalf("err = %v", err)
	}
}

// The members a kind reports (Reports) are kept by the registry it is
// registered in, as given, and by no other.
func TestEvidenceKeys(t *testing.T) {
	none := func(assert.Spec) (assert.Assertion, error) { return nil, nil }
	keys := []string{"matched", "rows"}
	r := assert.NewRegistry()
	r.Register("rows-kind", []byte(`{}`), none, assert.Reports(keys...))
	r.Register("silent-kind", []byte(`{}`), none)
	keys[0] = "changed"
	got := r.EvidenceKeys("rows-kind")
	if !slices.Equal(got, []string{"matched", "rows"}) {
		t.Fatalf("EvidenceKeys = %v", got)
	}
	got[0] = "changed"
	for _, tt := range []struct {
		r    *assert.Registry
		kind string
		want []string
	}{
		{r, "rows-kind", []string{"matched", "rows"}},
		{r, "silent-kind", nil},
		{r, "made-up", nil},
		{assert.NewRegistry(), "rows-kind", nil},
	} {
		if got := tt.r.EvidenceKeys(tt.kind); !slices.Equal(got, tt.want) {
			t.Errorf("EvidenceKeys(%q) = %v, want %v", tt.kind, got, tt.want)
		}
	}
}

type ledgerSource interface{ Balance() int }

type tallySource interface{ Tally() int }

type unregisteredSource interface{ Nothing() }

type ledger int

func (l ledger) Balance() int { return int(l) }

// The message of a missing source says what the kind registered with
// Reads: the evidence's name, the snapshot folder that holds it and what
// attaches it in Go; without Reads, the source's Go type.
func TestMissingSourceMessages(t *testing.T) {
	none := func(assert.Spec) (assert.Assertion, error) { return nil, nil }
	r := assert.NewRegistry()
	r.Register("ledger-kind", []byte(`{}`), none, assert.Reads[ledgerSource](assert.Evidence{Name: "ledger", Folder: "ledger", Attach: "ledgers.Attach"}))
	r.Register("tally-kind", []byte(`{}`), none, assert.Reads[tallySource](assert.Evidence{}))
	env := assert.NewEnv()
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"folder", func() error { _, err := assert.Lookup[ledgerSource](env); return err },
			"no ledger evidence: the sandbox has no ledger/ folder (or, in Go, nothing was attached with ledgers.Attach)"},
		{"no folder, names defaulted", func() error { _, err := assert.Lookup[tallySource](env); return err },
			"no assert_test evidence: nothing was attached with assert.Attach[assert_test.tallySource]"},
		{"unregistered", func() error { _, err := assert.Lookup[unregisteredSource](env); return err },
			"no assert_test evidence: the environment has no assert_test.unregisteredSource source"},
		{"misattached", func() error {
			e := assert.NewEnv()
			assert.Attach(e, ledger(3))
			_, err := assert.Lookup[ledgerSource](e)
			return err
		}, "no ledger evidence: a assert_test.ledger was attached under its own type, not as assert_test.ledgerSource; attach it with ledgers.Attach or assert.Attach[assert_test.ledgerSource]"},
	}
	for _, tt := range tests {
		var mse *assert.MissingSourceError
		if err := tt.err(); !errors.As(err, &mse) || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
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

// A mistyped criterion key is answered with the key meant, as a mistyped
// assertion key or kind is; a key near none lists the keys.
func TestUnknownCriterionKeySuggests(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"wieght", `/0/wieght: unknown criterion key "wieght" (did you mean "weight"?)`},
		{"weigth", `/0/weigth: unknown criterion key "weigth" (did you mean "weight"?)`},
		{"lable", `/0/lable: unknown criterion key "lable" (did you mean "label"?)`},
		{"axes", `/0/axes: unknown criterion key "axes" (did you mean "axis"?)`},
		{"colour", `/0/colour: unknown criterion key "colour" (a criterion has id, task_id, input_entity_id, label, assertion, weight, axis, created_at)`},
	} {
		_, err := assert.ParseCriteria([]byte(`[{"label": "a", "assertion": {"assert": "exit_code", "exit_code": 0}, "` + tc.key + `": 1}]`))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %s", tc.key, err, tc.want)
		}
	}
}
