package clitask

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// source looks up env's CLI source and its trace. A nil *Result means the
// check can go on; otherwise it is the error result to return.
func source(ctx context.Context, env *assert.Env) (Source, *Trace, *assert.Result) {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		r := assert.Errored(err)
		return nil, nil, &r
	}
	t, err := src.Trace(ctx)
	if err != nil {
		r := assert.Errored(fmt.Errorf("cannot read the trace: %w", err))
		return nil, nil, &r
	}
	if t == nil {
		t = &Trace{}
	}
	return src, t, nil
}

// quote renders a command or an output for a details sentence: quoted, at
// most assert.MaxQuote characters of it.
func quote(s string) string { return strconv.Quote(assert.Truncate(s)) }

// LastEvidence is the evidence of exit_code, output_contains, output_equals
// and error_contains: how many commands the trace holds, the last command,
// and what was expected of it and found (an exit code, or the stream's text
// cut to assert.MaxQuote characters). Command and Actual are null when no
// command ran.
type LastEvidence struct {
	Commands int     `json:"commands"`
	Command  *string `json:"command"`
	Expected any     `json:"expected"`
	Actual   any     `json:"actual"`
}

// FieldDiffs returns nil: the evidence of the cli-bench kinds holds no
// per-field results (check.Differ), so a report need not marshal it to
// look for them.
func (LastEvidence) FieldDiffs() []check.FieldDiff { return nil }

// FieldDiffs returns nil, as LastEvidence's does.
func (PatternEvidence) FieldDiffs() []check.FieldDiff { return nil }

// FieldDiffs returns nil, as LastEvidence's does.
func (VerifyEvidence) FieldDiffs() []check.FieldDiff { return nil }

// FieldDiffs returns nil, as LastEvidence's does.
func (FileEvidence) FieldDiffs() []check.FieldDiff { return nil }

func lastEvidence(t *Trace, expected any, actual func(Command) any) (Command, bool, LastEvidence) {
	ev := LastEvidence{Commands: len(t.Commands), Expected: expected}
	last, ok := t.Last()
	if ok {
		cmd := assert.Truncate(last.Command)
		ev.Command = &cmd
		ev.Actual = actual(last)
	}
	return last, ok, ev
}

type exitCodeCheck struct{ want int }

func (exitCodeCheck) Kind() string { return KindExitCode }

func (c exitCodeCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	_, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	last, ok, ev := lastEvidence(t, c.want, func(l Command) any { return l.ExitCode })
	switch {
	case !ok:
		return assert.Fail(0, fmt.Sprintf("No command ran, so there is no exit code to compare with %d.", c.want), ev)
	case last.ExitCode == c.want:
		return assert.Pass(fmt.Sprintf("The last command, %s, exited %d as expected.", quote(last.Command), last.ExitCode), ev)
	}
	return assert.Fail(0, fmt.Sprintf("The last command, %s, exited %d, expected %d.", quote(last.Command), last.ExitCode, c.want), ev)
}

// streamCheck is the shared logic of output_contains, output_equals and
// error_contains.
func streamCheck(ctx context.Context, env *assert.Env, want, stream string, read func(Command) string, match func(got string) bool, relation string) assert.Result {
	_, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	last, ok, ev := lastEvidence(t, want, func(l Command) any { return assert.Truncate(read(l)) })
	if !ok {
		return assert.Fail(0, fmt.Sprintf("No command ran, so there is no %s to check for %s.", stream, quote(want)), ev)
	}
	got := read(last)
	if match(got) {
		return assert.Pass(fmt.Sprintf("The %s of the last command, %s, %s %s.", stream, quote(last.Command), relation, quote(want)), ev)
	}
	return assert.Fail(0, fmt.Sprintf("The %s of the last command, %s, does not %s %s; it was %s.", stream, quote(last.Command), strings.TrimSuffix(relation, "s"), quote(want), quote(got)), ev)
}

type outputContainsCheck struct{ text string }

func (outputContainsCheck) Kind() string { return KindOutputContains }

func (c outputContainsCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	return streamCheck(ctx, env, c.text, "stdout", func(l Command) string { return l.Stdout },
		func(got string) bool { return strings.Contains(got, c.text) }, "contains")
}

type outputEqualsCheck struct{ text string }

func (outputEqualsCheck) Kind() string { return KindOutputEquals }

func (c outputEqualsCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	want := trimJS(c.text)
	return streamCheck(ctx, env, c.text, "stdout", func(l Command) string { return l.Stdout },
		func(got string) bool { return trimJS(got) == want }, "equals")
}

type errorContainsCheck struct{ text string }

func (errorContainsCheck) Kind() string { return KindErrorContains }

func (c errorContainsCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	return streamCheck(ctx, env, c.text, "stderr", func(l Command) string { return l.Stderr },
		func(got string) bool { return strings.Contains(got, c.text) }, "contains")
}

// trimJS trims what JavaScript's String.prototype.trim trims: WhiteSpace
// (tab, VT, FF, space, NBSP, BOM and every Zs character) and LineTerminator
// (LF, CR, U+2028, U+2029). Unlike unicode.IsSpace it trims U+FEFF and keeps
// U+0085.
func trimJS(s string) string { return strings.TrimFunc(s, isJSSpace) }

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// PatternEvidence is the evidence of ran, not_ran and run_count: the pattern,
// how it was matched ("regex", or "substring" when it is not a valid regular
// expression, with the reason under fallback), how many commands the trace
// holds, and the matching commands (0-based index and command string; ran
// and not_ran stop at the first, run_count lists up to MaxListedMatches).
// run_count adds the count and its bounds.
type PatternEvidence struct {
	Pattern  string  `json:"pattern"`
	Mode     string  `json:"mode"`
	Fallback string  `json:"fallback,omitempty"`
	Commands int     `json:"commands"`
	Matches  []Match `json:"matches"`
	Count    *int    `json:"count,omitempty"`
	Min      *int    `json:"min,omitempty"`
	Max      *int    `json:"max,omitempty"`
}

// Match is one command a pattern matched.
type Match struct {
	Index   int    `json:"index"`
	Command string `json:"command"`
}

// MaxListedMatches is how many matching commands run_count's evidence lists.
const MaxListedMatches = 10

// ErrPatternBudget is wrapped by the error of a ran, not_ran or run_count
// check whose matching over all commands ran past its budget (see
// PatternBudget).
var ErrPatternBudget = errors.New("the pattern's time budget ran out")

// scan matches p against the trace's commands in order, stopping at the
// first match when stopAtFirst. It returns the number of matches. A regular
// expression is matched within the source's pattern budget, all commands
// together, and stops when ctx ends: past either, scan returns an error at
// once and the matching left over stops after its current match.
func scan(ctx context.Context, src Source, t *Trace, p *Pattern, ev *PatternEvidence, stopAtFirst bool) (int, error) {
	ev.Pattern, ev.Mode, ev.Commands, ev.Matches = p.text, p.Mode(), len(t.Commands), []Match{}
	if p.invalid != nil {
		ev.Fallback = p.invalid.Error()
	}
	if p.re == nil {
		// A substring search takes linear time: no budget needed.
		return scanCommands(ctx, t, p, nil, ev, stopAtFirst, time.Time{})
	}
	var runes [][]rune
	if rs, ok := src.(runeSource); ok {
		runes = rs.commandRunes(t)
	}
	// The matching runs here, not on a goroutine of its own that this one
	// would wait on beside ctx and the budget: that cost more than the
	// matching of a usual trace. A budget or ctx that ends stops it at the
	// next command (the clock is read between commands: a timer to set a
	// flag cost more than reading it), and regexp2 stops a match under way
	// within MatchTimeout.
	budget := limitsOf(src).budget
	deadline := time.Now().Add(budget)
	out := *ev
	n, err := scanCommands(ctx, t, p, runes, &out, stopAtFirst, deadline)
	switch {
	case err == nil:
	case errors.Is(err, ErrPatternBudget) || !time.Now().Before(deadline):
		// The budget ran out, perhaps during a match that then hit
		// MatchTimeout: the budget is what stopped the check.
		return 0, fmt.Errorf("matching %s against %s took longer than %s: %w", quote(p.text), commandsWord(len(t.Commands)), budget, ErrPatternBudget)
	case ctx.Err() != nil:
		return 0, fmt.Errorf("matching %s stopped: %w", quote(p.text), ctx.Err())
	}
	*ev = out
	return n, err
}

// scanCommands is the loop of scan; it gives up at the deadline, unless
// that is zero.
func scanCommands(ctx context.Context, t *Trace, p *Pattern, runes [][]rune, ev *PatternEvidence, stopAtFirst bool, deadline time.Time) (int, error) {
	n := 0
	timed := !deadline.IsZero()
	for i := range t.Commands {
		if timed && !time.Now().Before(deadline) {
			return n, ErrPatternBudget
		}
		// Regular expressions are looked at between every two commands
		// (a match may take MatchTimeout), substrings every 1,024.
		if (timed || i&1023 == 1023) && ctx.Err() != nil {
			return n, ctx.Err()
		}
		var ok bool
		var err error
		if runes != nil {
			ok, err = p.matchRunes(runes[i])
		} else {
			ok, err = p.MatchString(t.Commands[i].Command)
		}
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		n++
		if len(ev.Matches) < MaxListedMatches {
			ev.Matches = append(ev.Matches, Match{Index: i, Command: assert.Truncate(t.Commands[i].Command)})
		}
		if stopAtFirst {
			break
		}
	}
	return n, nil
}

func commandsWord(n int) string {
	if n == 1 {
		return "1 command"
	}
	return strconv.Itoa(n) + " commands"
}

// ranCheck is ran, or not_ran when forbidden: some command matches the
// pattern, or none does. Both stop at the first match, which they report.
type ranCheck struct {
	pattern   *Pattern
	forbidden bool
}

func (c ranCheck) Kind() string {
	if c.forbidden {
		return KindNotRan
	}
	return KindRan
}

func (c ranCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	var ev PatternEvidence
	n, err := scan(ctx, src, t, c.pattern, &ev, true)
	if err != nil {
		return assert.Errored(err)
	}
	note := c.pattern.fallbackNote()
	if n == 0 {
		none := fmt.Sprintf("None of the %s matches %s%s.", commandsWord(len(t.Commands)), quote(c.pattern.text), note)
		if c.forbidden {
			return assert.Pass(none, ev)
		}
		return assert.Fail(0, none, ev)
	}
	m := ev.Matches[0]
	if c.forbidden {
		return assert.Fail(0, fmt.Sprintf("Command %d, %s, matches %s, which must not run%s.", m.Index+1, quote(m.Command), quote(c.pattern.text), note), ev)
	}
	return assert.Pass(fmt.Sprintf("Command %d, %s, matches %s%s.", m.Index+1, quote(m.Command), quote(c.pattern.text), note), ev)
}

type runCountCheck struct {
	pattern  *Pattern
	min, max int // -1: no bound
}

func (runCountCheck) Kind() string { return KindRunCount }

func (c runCountCheck) bounds() string {
	switch {
	case c.min >= 0 && c.max >= 0 && c.min == c.max:
		return fmt.Sprintf("exactly %d", c.min)
	case c.min >= 0 && c.max >= 0:
		return fmt.Sprintf("between %d and %d", c.min, c.max)
	case c.min >= 0:
		return fmt.Sprintf("at least %d", c.min)
	}
	return fmt.Sprintf("at most %d", c.max)
}

func (c runCountCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	var ev PatternEvidence
	n, err := scan(ctx, src, t, c.pattern, &ev, false)
	if err != nil {
		return assert.Errored(err)
	}
	ev.Count = &n
	if c.min >= 0 {
		ev.Min = &c.min
	}
	if c.max >= 0 {
		ev.Max = &c.max
	}
	within := (c.min < 0 || n >= c.min) && (c.max < 0 || n <= c.max)
	verb := "match"
	if n == 1 {
		verb = "matches"
	}
	msg := fmt.Sprintf("%d of %s %s %s, expected %s%s.", n, commandsWord(len(t.Commands)), verb, quote(c.pattern.text), c.bounds(), c.pattern.fallbackNote())
	if within {
		return assert.Pass(msg, ev)
	}
	return assert.Fail(0, msg, ev)
}

// VerifyEvidence is the evidence of verify: the command, its exit code, its
// output (each stream cut to assert.MaxQuote characters), its duration, and
// the optional expectations.
type VerifyEvidence struct {
	Run        string `json:"run"`
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMS int64  `json:"duration_ms"`
	// OutputCapped is the cap in bytes when verify's output was cut at it:
	// only what was captured is judged.
	OutputCapped   int     `json:"output_capped,omitempty"`
	OutputContains *string `json:"output_contains,omitempty"`
	OutputEquals   *string `json:"output_equals,omitempty"`
}

type verifyCheck struct {
	run              string
	contains, equals *string
}

func (verifyCheck) Kind() string { return KindVerify }

// skipped is the result of the verify when verify commands are skipped.
func (c verifyCheck) skipped() assert.Result {
	return assert.Errorf("Verify %s was not run: %v.", quote(c.run), ErrVerifySkipped)
}

func (c verifyCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, _, res := source(ctx, env)
	if res != nil {
		return *res
	}
	out, err := src.Verify(ctx, c.run)
	if errors.Is(err, ErrVerifySkipped) {
		return c.skipped()
	}
	if err != nil {
		return assert.Errored(fmt.Errorf("verify %s could not run: %w", quote(c.run), err))
	}
	ev := VerifyEvidence{Run: c.run, ExitCode: out.ExitCode, Stdout: assert.Truncate(out.Stdout), Stderr: assert.Truncate(out.Stderr),
		DurationMS: out.DurationMS, OutputCapped: out.Capped, OutputContains: c.contains, OutputEquals: c.equals}
	capped := ""
	if out.Capped > 0 {
		capped = fmt.Sprintf(" (output capped at %d bytes; only what was captured is judged)", out.Capped)
	}
	if out.ExitCode != 0 {
		return assert.Fail(0, fmt.Sprintf("Verify %s exited %d; stderr: %s%s.", quote(c.run), out.ExitCode, quote(out.Stderr), capped), ev)
	}
	if c.contains != nil && !strings.Contains(out.Stdout, *c.contains) {
		return assert.Fail(0, fmt.Sprintf("Verify %s exited 0 but its stdout does not contain %s; it was %s%s.", quote(c.run), quote(*c.contains), quote(out.Stdout), capped), ev)
	}
	if c.equals != nil && trimJS(out.Stdout) != trimJS(*c.equals) {
		return assert.Fail(0, fmt.Sprintf("Verify %s exited 0 but its stdout does not equal %s; it was %s%s.", quote(c.run), quote(*c.equals), quote(out.Stdout), capped), ev)
	}
	var checks []string
	if c.contains != nil {
		checks = append(checks, "contains "+quote(*c.contains))
	}
	if c.equals != nil {
		checks = append(checks, "equals "+quote(*c.equals))
	}
	if len(checks) == 0 {
		return assert.Pass(fmt.Sprintf("Verify %s exited 0%s.", quote(c.run), capped), ev)
	}
	return assert.Pass(fmt.Sprintf("Verify %s exited 0 and its stdout %s%s.", quote(c.run), strings.Join(checks, " and "), capped), ev)
}
