package assaytest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/report"
	"github.com/google/go-cmp/cmp"
)

// Require checks spec against env and stops the test (t.Fatal) unless it
// passes. It returns the result, for tests that look further.
func Require(t testing.TB, env *assert.Env, spec assert.Spec) assert.Result {
	t.Helper()
	res, msg := run(t, assert.DefaultRegistry(), env, spec)
	if msg != "" {
		t.Fatal(msg)
	}
	return res
}

// Check checks spec against env and marks the test failed (t.Error) unless
// it passes, letting the test go on. It reports whether it passed.
func Check(t testing.TB, env *assert.Env, spec assert.Spec) bool {
	t.Helper()
	_, msg := run(t, assert.DefaultRegistry(), env, spec)
	if msg != "" {
		t.Error(msg)
		return false
	}
	return true
}

// Using returns Require and Check bound to a registry of the caller's own
// (a custom kind, or only some kinds).
func Using(r *assert.Registry) Checker { return Checker{r} }

// Checker runs checks through one registry.
type Checker struct{ registry *assert.Registry }

// Require is the package's Require through c's registry.
func (c Checker) Require(t testing.TB, env *assert.Env, spec assert.Spec) assert.Result {
	t.Helper()
	res, msg := run(t, c.registry, env, spec)
	if msg != "" {
		t.Fatal(msg)
	}
	return res
}

// Check is the package's Check through c's registry.
func (c Checker) Check(t testing.TB, env *assert.Env, spec assert.Spec) bool {
	t.Helper()
	_, msg := run(t, c.registry, env, spec)
	if msg != "" {
		t.Error(msg)
		return false
	}
	return true
}

// run returns the result and, unless it passed, the failure message.
func run(t testing.TB, r *assert.Registry, env *assert.Env, spec assert.Spec) (assert.Result, string) {
	t.Helper()
	a, err := r.Decode(spec)
	if err != nil {
		res := assert.Fail(0, err.Error(), nil).Normalize()
		return res, "assay: invalid spec: " + err.Error()
	}
	ctx := context.Background()
	if d, ok := t.(interface{ Context() context.Context }); ok {
		ctx = d.Context()
	}
	res := assert.Run(ctx, a, env)
	if res.Status == assert.StatusPassed {
		return res, ""
	}
	return res, Explain(a.Kind(), res)
}

// Explain renders a result that did not pass as Require and Check report
// it: the kind, status and score, the details, and a table of every failing
// field, with a line diff under the table for values that are long text.
func Explain(kind string, res assert.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "assay: %s %s (score %.3f): %s", kind, res.Status, res.Score, res.Details)
	diffs := report.FieldDiffs(res.Evidence)
	if len(diffs) == 0 {
		return b.String()
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  FIELD\tEXPECTED\tACTUAL\tREASON")
	var long []report.FieldDiff
	for _, d := range diffs {
		exp, act := d.Expected, d.Actual
		if isLong(exp) || isLong(act) {
			long = append(long, d)
			exp, act = shorten(exp), shorten(act)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.Name, exp, act, d.Reason)
	}
	tw.Flush()
	table := strings.Split(b.String(), "\n")
	for i := range table {
		table[i] = strings.TrimRight(table[i], " ")
	}
	b.Reset()
	b.WriteString(strings.Join(table, "\n"))
	for _, d := range long {
		fmt.Fprintf(&b, "\n%s (-expected +actual):\n%s", d.Name, cmp.Diff(lines(d.Expected), lines(d.Actual)))
	}
	return strings.TrimRight(b.String(), "\n")
}

const longText = 60

func isLong(s string) bool { return len(s) > longText || strings.Contains(s, `\n`) }

func shorten(s string) string {
	if len(s) <= longText {
		return s
	}
	return s[:longText-1] + "…"
}

// lines splits a JSON string value at its line breaks, for the diff.
func lines(raw string) []string {
	var s string
	if _, err := fmt.Sscanf(raw, "%q", &s); err != nil {
		s = raw
	}
	return strings.Split(s, "\n")
}
