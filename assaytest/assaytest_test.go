package assaytest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/assaykit/assay/assaytest"
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

// recorder is a testing.TB that records what a helper reports.
type recorder struct {
	testing.TB
	helper       int
	errs, fatals []string
}

func (r *recorder) Helper()                  { r.helper++ }
func (r *recorder) Error(args ...any)        { r.errs = append(r.errs, fmt.Sprint(args...)) }
func (r *recorder) Fatal(args ...any)        { r.fatals = append(r.fatals, fmt.Sprint(args...)) }
func (r *recorder) Context() context.Context { return context.Background() }

func env(t *testing.T) *assert.Env {
	t.Helper()
	s, err := portal.ParseState([]byte(`{"claims": [{"id": "C-1", "status": "denied", "amount": 120.5,
	  "note": "line one\nline two\nline three is rather long so that the value is long text for sure"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e := assert.NewEnv()
	portal.Attach(e, portal.MemorySource(s))
	return e
}

func TestCheckReportsEveryFailingField(t *testing.T) {
	rec := &recorder{TB: t}
	ok := assaytest.Check(rec, env(t), assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id", "value": "C-1"},
	  "assertions": [{"path": "status", "expected": "paid"}, {"path": "amount", "expected": 99}, {"path": "id", "expected": "C-1"},
	  {"path": "note", "expected": "line one\nline 2\nline three is rather long so that the value is long text for sure"}]}`))
	if ok || len(rec.errs) != 1 || len(rec.fatals) != 0 || rec.helper == 0 {
		t.Fatalf("ok %v, errs %q, fatals %q, helper calls %d", ok, rec.errs, rec.fatals, rec.helper)
	}
	msg := rec.errs[0]
	for _, want := range []string{
		"portal-state-match failed (score 0.250)",
		"FIELD", "EXPECTED", "ACTUAL",
		`status  "paid"`, `"denied"`,
		`amount  99`, `120.5`,
		"note (-expected +actual):", `"line 2",`, `"line two",`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, `  id  `) {
		t.Errorf("a passing field is listed:\n%s", msg)
	}
}

func TestRequire(t *testing.T) {
	rec := &recorder{TB: t}
	res := assaytest.Require(rec, env(t), assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id"}}`))
	if res.Status != assert.StatusPassed || len(rec.fatals)+len(rec.errs) != 0 {
		t.Fatalf("%+v %q %q", res, rec.fatals, rec.errs)
	}
	// No evidence: an error fails the test too, saying why.
	assaytest.Require(rec, assert.NewEnv(), assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id"}}`))
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "error (score 0.000): no portal evidence") {
		t.Fatalf("fatals %q", rec.fatals)
	}
	// A bad spec fails with its violations.
	assaytest.Require(rec, env(t), assert.Spec(`{"assert": "portal-state-match", "correlate_by": {"resource": "claims"}}`))
	if len(rec.fatals) != 2 || !strings.Contains(rec.fatals[1], "invalid spec") {
		t.Fatalf("fatals %q", rec.fatals)
	}
}
