package clitask

import (
	"testing"

	"github.com/dlclark/regexp2"
)

var prefixCases = []struct{ pattern, command string }{
	{`^payerctl eligibility check --member W123456789\b`, "payerctl eligibility check --member W123456789 --service-type MR"},
	{`^payerctl eligibility check --member W123456789\b`, "payerctl eligibility check --member W1234567890"},
	{`^payerctl auth submit `, "payerctl auth submit --file auth-request.json"},
	{`^git push`, "  git push"},
	{`rm -rf /\b`, "sudo rm -rf /tmp"},
	{`rm -rf /\b`, "rm -rf / "},
	{`npm test\b`, "npm testing && npm test"},
	{`npm test\b`, "npm test_all"},
	{`a\b`, "a\u00e9"},
	{`_\b`, "x_"},
	{`-\b`, "a-b"},
	{`^make`, ""},
	{`\b`, "x"},
	{`^`, "x"},
	{`^é`, "é"},
}

// A pattern read as a prefix pattern matches what regexp2, in ECMAScript
// mode, matches.
func TestPrefixPatternAsRegexp2(t *testing.T) {
	taken := 0
	for _, c := range prefixCases {
		if checkPrefixPattern(t, c.pattern, c.command) {
			taken++
		}
	}
	if taken < 11 {
		t.Errorf("%d cases read as prefix patterns, want 11", taken)
	}
	if p := CompilePattern(`^payerctl auth submit `); p.prefix == nil || p.re != nil || p.Mode() != "regex" {
		t.Errorf("^payerctl auth submit : prefix %v, re %v, mode %s", p.prefix, p.re, p.Mode())
	}
}

// FuzzPrefixPatternAsRegexp2: the same on any pattern and command.
func FuzzPrefixPatternAsRegexp2(f *testing.F) {
	for _, c := range prefixCases {
		f.Add(c.pattern, c.command)
	}
	f.Fuzz(func(t *testing.T, pattern, command string) { checkPrefixPattern(t, pattern, command) })
}

// checkPrefixPattern compares the two on one command; false when pattern
// is not a prefix pattern.
func checkPrefixPattern(t *testing.T, pattern, command string) bool {
	t.Helper()
	p, ok := parsePrefix(pattern)
	if !ok {
		return false
	}
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		t.Fatalf("%q is a prefix pattern but not a regular expression: %v", pattern, err)
	}
	want, err := re.MatchString(command)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.match(command); got != want {
		t.Fatalf("%q on %q: %v, regexp2 %v", pattern, command, got, want)
	}
	return true
}
