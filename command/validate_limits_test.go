package command

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate reads a suite's includes as eval reads evidence (rule 17):
// --max-file-size reaches each included task file, --max-total-size caps
// them in all (each name read counts, hard links included), and neither a
// task file nor a suite is called an evidence file.
func TestValidateSuiteIncludeLimits(t *testing.T) {
	dir := t.TempDir()
	task := "- id: t%d\n  intent: " + strings.Repeat("Run x. ", 200) + "\n  assert: [{ran: \"^x$\"}]\n"
	size := len(fmt.Sprintf(task, 0))
	for i := range 6 {
		writeFile(t, dir, fmt.Sprintf("tasks/t%d.yaml", i), fmt.Sprintf(task, i))
	}
	one := writeFile(t, dir, "one.yaml", "cli: x\ntasks:\n  - file://tasks/t0.yaml\n")
	all := writeFile(t, dir, "all.yaml", "cli: x\ntasks:\n  - file://tasks/*.yaml\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // on stderr
	}{
		{"include under the caps", []string{one}, exitOK, ""},
		{"include over --max-file-size", []string{"--max-file-size", "1000", one}, exitUsage,
			fmt.Sprintf("tasks/t0.yaml: %d bytes is over the 1000-byte cap on a suite or task file", size)},
		{"task file named over --max-file-size", []string{"--max-file-size", "1000", filepath.Join(dir, "tasks", "t0.yaml")}, exitUsage,
			fmt.Sprintf("t0.yaml: %d bytes is over the 1000-byte cap on one input file", size)},
		{"includes under --max-total-size", []string{"--max-total-size", fmt.Sprint(6 * size), all}, exitOK, ""},
		{"includes over --max-total-size", []string{"--max-total-size", fmt.Sprint(4 * size), all}, exitUsage,
			fmt.Sprintf("past the %d-byte cap on what a suite's includes read in all", 4*size)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runAssay(t, nil, append([]string{"validate"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "evidence") {
				t.Errorf("code %d, want %d with %q:\n%s", code, tc.code, tc.want, stderr)
			}
		})
	}

	// Hard links of one task file are as many files to read: each counts.
	links := t.TempDir()
	first := writeFile(t, links, "tasks/a.yaml", fmt.Sprintf(task, 0))
	for i := range 9 {
		if err := os.Link(first, filepath.Join(links, "tasks", fmt.Sprintf("b%d.yaml", i))); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	suite := writeFile(t, links, "suite.yaml", "cli: x\ntasks:\n  - file://tasks/*.yaml\n")
	_, stderr, code := runAssay(t, nil, "validate", "--max-total-size", fmt.Sprint(5*size), suite)
	want := fmt.Sprintf("past the %d-byte cap on what a suite's includes read in all", 5*size)
	if code != exitUsage || strings.Count(stderr, want) != 5 {
		t.Errorf("10 names of one file under a cap of 5: code %d, want 5 refused:\n%s", code, stderr)
	}
}
