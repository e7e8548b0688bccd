package command

import (
	"path/filepath"
	"strings"
	"testing"
)

// hostile is a name an input or agent may choose: it retitles the
// terminal, turns the text red and forges a second line.
const hostile = "r\x1b]0;PWNED\x07\x1b[31mred\nforged == fake  score 1.000  verdict pass"

// Every line the command prints to stderr (and validate's verdict on
// stdout) writes a name from an input escaped (DESIGN.md section 12 rule
// 23): a run folder's name, a model's name, a file's name reach the
// terminal as \x1b and \n, never as a raw escape sequence or a forged line.
func TestStderrEscapesInputs(t *testing.T) {
	runsScoped := t.TempDir()
	writeFile(t, runsScoped, filepath.Join(hostile, "sandbox/portal/state.json"), `{"r": []}`)
	scoped := writeFile(t, t.TempDir(), "crit.json",
		`[{"label": "x", "input_entity_id": "e1", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}}]`)

	runsBroken := t.TempDir()
	writeFile(t, runsBroken, filepath.Join(hostile, "notes.txt"), "no sandbox here")
	writeFile(t, runsBroken, "ok/sandbox/portal/state.json", `{"r": []}`)

	suiteDir := t.TempDir()
	suite := writeFile(t, suiteDir, "suite.yaml", "cli: x\nthresholds:\n  default: 75\n  behavior: error\ntasks:\n  - id: t1\n    intent: Run x.\n    assert: [{ran: \"^x$\"}]\n")
	trace := writeFile(t, suiteDir, "trace.json",
		`{"runs": [{"task_id": "t1", "model": "c\u001b]0;PWNED\u0007\nforged line", "commands": [{"command": "y", "exit_code": 0}]}]}`)

	files := t.TempDir()
	badFile := writeFile(t, files, hostile+".json", `[{"label": "x", "assertion": {"assert": "no-such-kind"}}]`)
	goodFile := writeFile(t, files, hostile+"-ok.json", `[{"label": "x", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "r", "key": "k"}}}]`)

	for _, tc := range []struct {
		name string
		args []string
		want string // on stderr, escaped
	}{
		{"run name in a scope warning", []string{"eval", "--runs", runsScoped, "--criteria", scoped, "--no-color"}, `warning: run r\x1b]0;PWNED\x07\x1b[31mred\nforged`},
		{"run name in bad input", []string{"eval", "--runs", runsBroken, "--criteria", scoped}, `run r\x1b]0;PWNED\x07\x1b[31mred\nforged`},
		{"model name in a threshold", []string{"check", "--suite", suite, "--trace", trace}, `model c\x1b]0;PWNED\x07\nforged line passed 0%`},
		{"file name in validate's problems", []string{"validate", badFile, goodFile}, `r\x1b]0;PWNED\x07\x1b[31mred\nforged`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, _ := runAssay(t, nil, tc.args...)
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			for _, out := range []struct{ name, text string }{{"stderr", stderr}, {"stdout", stdout}} {
				if strings.ContainsAny(out.text, "\x1b\x07") {
					t.Errorf("%s holds a raw control character: %q", out.name, out.text)
				}
				for _, line := range strings.Split(strings.TrimSuffix(out.text, "\n"), "\n") {
					if strings.HasPrefix(line, "forged") {
						t.Errorf("%s holds a forged line: %q", out.name, out.text)
					}
				}
			}
		})
	}
}
