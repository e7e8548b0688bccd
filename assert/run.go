package assert

import (
	"context"
	"fmt"
)

// Run checks one assertion against env and returns its normalised Result.
// It is how every caller runs a check: Evaluate uses it for criteria and
// clitask for the assertions of a cli-bench task. A check that panics is
// reported as status error naming the kind, never propagated, so one broken
// check cannot take a harness down; a nil assertion fails. When ctx has
// already ended the check is not started and the result is an error.
func Run(ctx context.Context, a Assertion, env *Env) (res Result) {
	if a == nil {
		return Fail(0, "invalid assertion: nil", nil).Normalize()
	}
	if err := ctx.Err(); err != nil {
		return Errored(fmt.Errorf("not checked: %w", err)).Normalize()
	}
	defer func() {
		if p := recover(); p != nil {
			res = Errorf("internal error: the %q check panicked: %v", kindOf(a), p).Normalize()
		}
	}()
	return a.Check(ctx, env).Normalize()
}

// kindOf is a.Kind(), or "?" when even that panics.
func kindOf(a Assertion) (kind string) {
	defer func() {
		if recover() != nil {
			kind = "?"
		}
	}()
	return a.Kind()
}
