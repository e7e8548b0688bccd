package clitask_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	evidence "github.com/assaykit/assay/check"
	"github.com/assaykit/assay/clitask"
)

// linkNames makes n hard links of file in its folder, named prefix-NN.ext;
// it skips the test where the file system has none.
func linkNames(t *testing.T, file, prefix, ext string, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		name := filepath.Join(filepath.Dir(file), fmt.Sprintf("%s-%02d%s", prefix, i, ext))
		if err := os.Link(file, name); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		names = append(names, name)
	}
	return names
}

// What file_contains reads counts against its source's total (rule 17), a
// hard link per name: checks past the cap are status error naming it,
// before the file is read, while a file read again costs nothing more.
func TestFileContainsTotal(t *testing.T) {
	wd := t.TempDir()
	big := filepath.Join(wd, "big.txt")
	writeFile(t, big, strings.Repeat("x", 4000)+"needle")
	links := linkNames(t, big, "link", ".txt", 5)
	traceDir := t.TempDir()
	writeFile(t, filepath.Join(traceDir, "trace.json"), fmt.Sprintf(`{"workdir": %q, "commands": []}`, wd))
	for _, tc := range []struct {
		name   string
		src    clitask.Source
		passed int // of the file_contains checks of big.txt twice, then its links
	}{
		// 4006 bytes a name: big.txt (read twice, counted once) and one
		// link fit in 10,000 bytes (with trace.json, for a folder); the
		// other four links do not.
		{"memory source", clitask.MemorySource(&clitask.Trace{Workdir: wd}, clitask.MaxTotalSize(10_000)), 3},
		{"folder source", clitask.FolderSource(evidence.DirFS(traceDir), traceDir, 0, clitask.MaxTotalSize(10_000)), 3},
		{"default cap", clitask.MemorySource(&clitask.Trace{Workdir: wd}), 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			passed := 0
			for _, path := range append([]string{"big.txt", "big.txt"}, links...) {
				res := check(t, fmt.Sprintf(`{"file_contains": {"path": %q, "text": "needle"}}`, path), tc.src)
				switch {
				case res.Status == assert.StatusPassed:
					passed++
				case res.Status != assert.StatusError || !strings.Contains(res.Details, "past the 10000-byte cap on what one evidence source reads in all"):
					t.Errorf("%s: %s %q, want passed, or error naming the cap", path, res.Status, res.Details)
				}
			}
			if passed != tc.passed {
				t.Errorf("%d checks passed, want %d", passed, tc.passed)
			}
		})
	}
}

// A suite reads its includes as evidence is read (rule 17): each within
// MaxFileSize, worded as a task file, and all of them within MaxTotalSize,
// each name counted (hard links of one file are as many files).
func TestSuiteIncludeLimits(t *testing.T) {
	dir := t.TempDir()
	task := "- id: t%s\n  intent: " + strings.Repeat("Run x. ", 200) + "\n  assert: [{ran: \"^x$\"}]\n"
	writeFile(t, filepath.Join(dir, "tasks", "a.yaml"), fmt.Sprintf(task, "a"))
	writeFile(t, filepath.Join(dir, "one.yaml"), "cli: x\ntasks:\n  - file://tasks/a.yaml\n")
	size := int64(len(fmt.Sprintf(task, "a")))

	if _, err := clitask.LoadSuite(filepath.Join(dir, "one.yaml")); err != nil {
		t.Fatalf("under the default caps: %v", err)
	}
	_, err := clitask.LoadSuite(filepath.Join(dir, "one.yaml"), clitask.MaxFileSize(1000))
	want := fmt.Sprintf("%d bytes is over the 1000-byte cap on a suite or task file", size)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "evidence") {
		t.Errorf("an include over MaxFileSize: %v, want %q", err, want)
	}
	// The suite file itself is held to the cap too.
	if _, err := clitask.LoadSuite(filepath.Join(dir, "one.yaml"), clitask.MaxFileSize(10)); err == nil || !strings.Contains(err.Error(), "over the 10-byte cap on a suite or task file") {
		t.Errorf("a suite file over MaxFileSize: %v", err)
	}

	// Many names of one file: each is read and counts (the ids repeat;
	// the cap is what is looked for).
	linkNames(t, filepath.Join(dir, "tasks", "a.yaml"), "b", ".yaml", 9)
	writeFile(t, filepath.Join(dir, "many.yaml"), "cli: x\ntasks:\n  - file://tasks/*.yaml\n")
	_, err = clitask.LoadSuite(filepath.Join(dir, "many.yaml"), clitask.MaxTotalSize(5*size))
	want = fmt.Sprintf("past the %d-byte cap on what a suite's includes read in all", 5*size)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("10 names of one file over MaxTotalSize: %v, want %q", err, want)
	}
	if n := strings.Count(err.Error(), want); n != 5 {
		t.Errorf("%d includes refused for the total, want the 5 past it:\n%v", n, err)
	}
	_, err = clitask.LoadSuite(filepath.Join(dir, "many.yaml"))
	if err == nil || strings.Contains(err.Error(), "cap") {
		t.Errorf("under the default total: %v, want only the repeated ids", err)
	}
}
