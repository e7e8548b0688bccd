package clitask

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
)

// A pattern that backtracks catastrophically is stopped at its match
// timeout, and the check reports status error: it could not decide.
func TestPatternMatchTimeout(t *testing.T) {
	p := compilePattern(`^(a+)+$`)
	if p.re == nil {
		t.Fatal("not compiled as a regular expression")
	}
	p.re.MatchTimeout = 50 * time.Millisecond
	tr := &Trace{Commands: []Command{{Command: strings.Repeat("a", 40) + "!"}}}
	env := assert.NewEnv()
	Attach(env, MemorySource(tr))
	start := time.Now()
	res := ranCheck{pattern: p}.Check(context.Background(), env)
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "timeout") {
		t.Fatalf("got %s %q", res.Status, res.Details)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
}

// Patterns are compiled once and shared.
func TestCompilePatternCaches(t *testing.T) {
	if a, b := CompilePattern(`^git (push|pull)`), CompilePattern(`^git (push|pull)`); a != b {
		t.Error("the same pattern compiled twice")
	}
	if p := CompilePattern("plain text"); !p.literal || p.re != nil {
		t.Error("a pattern without metacharacters is not a literal")
	}
}
