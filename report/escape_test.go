package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain label, ünïcode ok": "plain label, ünïcode ok",
		"a\nb":                    `a\nb`,
		"\x1b]0;owned\x07":        `\x1b]0;owned\x07`,
		"\x1b[31mred":             `\x1b[31mred`,
		"tab\there\r":             `tab\there\r`,
		"\u202egnp.exe":           `\u202egnp.exe`,
		"\x9b2J":                  `\x9b2J`,
		"bad \xff byte":           `bad \xff byte`,
		`back\slash`:              `back\slash`,
	} {
		if got := report.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// A run name or a label holding a newline cannot forge a report line, and
// one holding escape sequences cannot reach the terminal (rule 23): in
// every text writer.
func TestTextQuotesInput(t *testing.T) {
	hostile := "x\n== fake  score 1.000  verdict pass\x1b]0;pwned\x07\x1b[2J"
	res := assert.Score([]assert.CriterionResult{{Label: hostile, CriterionID: hostile, Status: assert.StatusFailed,
		Details: hostile, Axis: hostile, Weight: 1}})
	var b bytes.Buffer
	if err := report.WriteTask(&b, report.Text, res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteRunText(&b, report.Run{Name: hostile, Result: res}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteBenchmarkText(&b, assert.Benchmark([]assert.TaskResult{res}), 1, report.Options{}); err != nil {
		t.Fatal(err)
	}
	cli := &clitask.Report{Runs: []clitask.RunResult{{TaskID: hostile, Model: hostile, Assertions: []clitask.AssertionResult{
		{Kind: "ran", Status: assert.StatusFailed, Details: hostile}}}}, NotRun: []string{hostile}}
	if err := report.WriteSuite(&b, report.Text, cli, report.Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("an escape sequence reached the output:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "== fake") {
			t.Errorf("a forged line: %q", line)
		}
	}
	if !strings.Contains(out, `x\n== fake  score 1.000  verdict pass\x1b]0;pwned\x07\x1b[2J`) {
		t.Errorf("the input is not shown escaped:\n%s", out)
	}
}
