package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
)

// WriteTask writes one task result (criteria evaluated against one
// rollout) in format f: Text, JSON, JUnit or HTML.
func WriteTask(w io.Writer, f Format, r assert.TaskResult, o Options) error {
	switch f {
	case HTML:
		return writeTaskHTML(w, r)
	case JSON:
		return writeJSON(w, r)
	case JUnit:
		return writeJUnit(w, "assay eval", []junitSuite{taskSuite("assay eval", r)})
	case Text:
		return writeTaskText(w, r, o)
	}
	return fmt.Errorf("report: a task result cannot be written as %q", f)
}

// ANSI colours for the marks.
const (
	green  = "\x1b[32m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	bold   = "\x1b[1m"
	reset  = "\x1b[0m"
)

// mark renders a status: PASS, FAIL or ERROR, coloured when asked.
func mark(s assert.Status, o Options) string {
	word, colour := "PASS ", green
	switch s {
	case assert.StatusFailed:
		word, colour = "FAIL ", red
	case assert.StatusError:
		word, colour = "ERROR", yellow
	}
	if o.Color {
		return colour + word + reset
	}
	return word
}

// skipMark marks a run that judged nothing (its assertions skipped).
func skipMark(o Options) string {
	if o.Color {
		return yellow + "SKIP " + reset
	}
	return "SKIP "
}

func verdictText(v assert.Verdict, o Options) string {
	if !o.Color {
		return string(v)
	}
	switch v {
	case assert.VerdictPass:
		return bold + green + string(v) + reset
	case assert.VerdictPartial:
		return bold + yellow + string(v) + reset
	}
	return bold + red + string(v) + reset
}

func labelOf(cr assert.CriterionResult) string {
	if cr.Label == "" {
		return cr.CriterionID
	}
	return cr.Label
}

// writeCriterion writes one criterion: the mark, score, label and id, the
// details, and for a failure every failing field.
func writeCriterion(b *strings.Builder, cr assert.CriterionResult, o Options, pad string) {
	fmt.Fprintf(b, "%s%s %.3f  %s  [%s]\n", pad, mark(cr.Status, o), cr.Score, Escape(labelOf(cr)), Escape(cr.CriterionID))
	if cr.Details != "" {
		fmt.Fprintf(b, "%s             %s\n", pad, Escape(cr.Details))
	}
	if cr.Status == assert.StatusFailed {
		for _, d := range FieldDiffs(cr.Evidence) {
			fmt.Fprintf(b, "%s               %s\n", pad, Escape(d.String()))
		}
	}
}

func writeTaskText(w io.Writer, r assert.TaskResult, o Options) error {
	var b strings.Builder
	// About 250 bytes a criterion, the report of a failure twice that: one
	// buffer, not a chain of doublings each copied into the next.
	b.Grow(512 + 256*len(r.Criteria) + 256*(len(r.Criteria)-r.Counts.Passed))
	for _, cr := range r.Criteria {
		writeCriterion(&b, cr, o, "")
	}
	writeAxes(&b, r.Axes)
	writeCountsAndFailures(&b, r, o, "")
	skipped := ""
	if r.Counts.Skipped > 0 {
		skipped = fmt.Sprintf(", %d skipped", r.Counts.Skipped)
	}
	fmt.Fprintf(&b, "score %.3f  verdict %s  (%d %s%s)\n", r.Score, verdictText(r.Verdict, o), len(r.Criteria), plural(len(r.Criteria), "criterion", "criteria"), skipped)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeAxes(b *strings.Builder, axes map[string]assert.AxisScore) {
	if len(axes) == 0 {
		return
	}
	b.WriteString("\naxes:\n")
	for _, name := range sortedKeys(axes) {
		a := axes[name]
		fmt.Fprintf(b, "  %-20s %.3f  (weight %s)\n", Escape(name), a.Score, trimFloat(a.Weight))
	}
}

// writeCountsAndFailures writes "N passed, M failed, K errors" and lists the
// criteria that did not pass again, so a long report ends with what to fix.
func writeCountsAndFailures(b *strings.Builder, r assert.TaskResult, o Options, pad string) {
	fmt.Fprintf(b, "\n%s%d passed, %d failed, %d errors\n", pad, r.Counts.Passed, r.Counts.Failed, r.Counts.Error)
	if line := skippedLine(r); line != "" {
		fmt.Fprintf(b, "%s%s\n", pad, line)
	}
	var bad []assert.CriterionResult
	for _, cr := range r.Criteria {
		if cr.Status != assert.StatusPassed {
			bad = append(bad, cr)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(b, "\n%sfailures:\n", pad)
		for _, cr := range bad {
			fmt.Fprintf(b, "%s  %s %s  [%s]: %s\n", pad, mark(cr.Status, o), Escape(labelOf(cr)), Escape(cr.CriterionID), Escape(cr.Details))
		}
	}
	b.WriteString("\n")
}

// skippedLine says how many criteria were left out and why, or "" when
// none were.
func skippedLine(r assert.TaskResult) string {
	if r.Counts.Skipped == 0 {
		return ""
	}
	why := "scoped to another input entity"
	if r.Entity != "" {
		why += " than " + strconv.Quote(r.Entity)
	}
	return fmt.Sprintf("%d %s skipped: %s", r.Counts.Skipped, plural(r.Counts.Skipped, "criterion", "criteria"), why)
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func taskSuite(name string, r assert.TaskResult) junitSuite {
	s := junitSuite{Name: name, Properties: &junitProperties{Property: []junitProperty{
		{Name: "score", Value: fmt.Sprint(r.Score)},
		{Name: "verdict", Value: string(r.Verdict)},
	}}}
	for _, cr := range r.Criteria {
		tc := junitCase{Name: labelOf(cr), Classname: cr.Kind}
		switch cr.Status {
		case assert.StatusFailed:
			text := []string{cr.Details, fmt.Sprintf("score %.3f", cr.Score)}
			for _, d := range FieldDiffs(cr.Evidence) {
				text = append(text, d.String())
			}
			tc.Failure = &junitMessage{Message: cr.Details, Type: "failed", Text: strings.Join(text, "\n")}
		case assert.StatusError:
			tc.Error = &junitMessage{Message: cr.Details, Type: "error", Text: cr.Details}
		}
		s.add(tc, cr.CompletedAt.Sub(cr.StartedAt).Seconds())
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func trimFloat(f float64) string { return fmt.Sprintf("%g", f) }
