package clitask_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// addFiles seeds a fuzzer with every file matching the globs.
func addFiles(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzParseSuite feeds the suite loader arbitrary YAML. It must return a
// suite or a *SuiteError whose problems each name the file, never panic.
// Includes resolve against testdata/suites/full, so seeds that include
// files exercise the glob code on a real tree.
func FuzzParseSuite(f *testing.F) {
	addFiles(f, "testdata/suites/*/*.yaml", "testdata/suites/bad/*.yaml", "testdata/suites/*/tasks/*.yaml")
	f.Add([]byte("cli: x\ntasks:\n  - file://tasks/**/*.yml\n  - file://tasks/[ab].yaml\n"))
	f.Add([]byte("cli: x\ntasks: [{id: a, intent: b, assert: [{run_count: {pattern: '(', min: 2, max: 1}}]}]\n"))
	f.Add([]byte("a: &a [*a]\n"))
	// The same task file through two includes loads once; a task file may
	// not include further.
	f.Add([]byte("cli: x\ntasks:\n  - file://tasks/*.yaml\n  - file://tasks/../tasks/basics.yaml\n  - file://./tasks/basics.yaml\n"))
	f.Add([]byte("- id: a\n  intent: b\n  assert: [{exit_code: 0}]\n- file://tasks/basics.yaml\n"))
	const base = "testdata/suites/full/fuzz.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		// Globs that escape the test tree would walk the whole disk.
		if strings.Contains(string(data), "file:///") || strings.Contains(string(data), "..") {
			t.Skip()
		}
		s, err := clitask.ParseSuite(base, data)
		if err == nil {
			if s == nil || len(s.Tasks) == 0 {
				t.Fatal("a suite without tasks loaded")
			}
			for _, task := range s.Tasks {
				if task.ID == "" || len(task.Assert) == 0 {
					t.Fatalf("task %+v loaded", task)
				}
			}
			return
		}
		var se *clitask.SuiteError
		if !errors.As(err, &se) || len(se.Problems) == 0 {
			t.Fatalf("error %v is not a *SuiteError with problems", err)
		}
		for _, p := range se.Problems {
			if p.File == "" || p.Message == "" {
				t.Fatalf("problem %+v lacks a file or message", p)
			}
		}
	})
}

// FuzzParseRuns feeds the trace reader arbitrary bytes, then checks every
// kind against what it read.
func FuzzParseRuns(f *testing.F) {
	addFiles(f, "testdata/traces/*.json")
	for _, seed := range []string{
		"\xef\xbb\xbf{\"commands\": []}",
		"{\"commands\": [\r{\"command\": \"x\",\r\"exit_code\": \"0\"}]}",
		`{"runs": null, "commands": [{"command": "x", "exit_code": 0, "stdout": null, "duration_ms": null}]}`,
		`{"runs": [{"commands": [null]}]}`,
		`{"runs": [{"commands": [{"command": 7, "exit_code": 0}]}]}`,
		`{"commands": [{"command": "x", "exit_code": 2147483648}]}`,
		`{"commands": [{"command": "x", "exit_code": 0, "stderr": {}}], "workdir": ["a"]}`,
		`{"commands": [{"command": "x", "exit_code": 0, "duration_ms": 1e400}]}`,
		`{"workdir": "../../etc", "commands": [{"command": "cat passwd", "exit_code": 0}]}`,
	} {
		f.Add([]byte(seed))
	}
	specs := []string{
		`{"exit_code": 0}`, `{"output_contains": "a"}`, `{"output_equals": "a"}`, `{"error_contains": "a"}`,
		`{"ran": "git (push|pull)(?!.*-n)"}`, `{"not_ran": "rm -rf"}`, `{"run_count": {"pattern": "[", "min": 1}}`,
		`{"file_exists": "/"}`,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := clitask.ParseRuns(data, "/nonexistent")
		if err != nil {
			var te *clitask.TraceError
			if !errors.As(err, &te) || te.Message == "" {
				t.Fatalf("error %v is not a *TraceError with a message", err)
			}
			return
		}
		for i := range runs {
			src := clitask.MemorySource(&runs[i].Trace)
			for _, spec := range specs {
				res := check(t, spec, src)
				if res.Status == "" || res.Details == "" {
					t.Fatalf("%s: empty result %+v", spec, res)
				}
			}
		}
	})
}

// FuzzPattern compiles arbitrary patterns and matches them: an invalid one
// falls back to a substring, and nothing panics.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{`git push(?!.*--dry-run)`, `npm install [react`, `^a+$`, `(?<n>x)\k<n>`, `\u{1F600}`, `[\d-z]`, `(?=`, `a{2,1}`} {
		f.Add(s, "git push origin main")
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		p := clitask.CompilePattern(pattern)
		ok, err := p.MatchString(text)
		if p.Fallback() != nil {
			if p.Mode() != "substring" || err != nil || ok != strings.Contains(text, pattern) {
				t.Fatalf("fallback pattern %q on %q: %v, %v", pattern, text, ok, err)
			}
		}
		if pattern == "" || !utf8.ValidString(pattern) {
			return // the schema rejects an empty pattern; JSON cannot carry invalid UTF-8
		}
		// The check agrees with the pattern.
		res := check(t, `{"run_count": {"pattern": `+jsonString(pattern)+`, "min": 1}}`,
			clitask.MemorySource(&clitask.Trace{Commands: []clitask.Command{{Command: text}}}))
		if err != nil {
			if res.Status != assert.StatusError {
				t.Fatalf("a match error gave %s", res.Status)
			}
			return
		}
		if res.Passed != ok {
			t.Fatalf("pattern %q on %q: MatchString %v, run_count %s %q", pattern, text, ok, res.Status, res.Details)
		}
	})
}

func jsonString(s string) string {
	b, _ := jsonMarshal(s)
	return string(b)
}

// FuzzWorkdirPath checks arbitrary paths against a working directory whose
// links lead out of it: a relative path without ".." never reads the file
// outside, whatever links it passes, and nothing panics or hangs.
func FuzzWorkdirPath(f *testing.F) {
	for _, p := range []string{"out.txt", "dir-out/secret.txt", "in.txt", "./sub/../out.txt", "loop/x", "sub//in.txt", "sub/up/real/out.txt", ".", "pipe"} {
		f.Add(p)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	wd, outside := filepath.Join(base, "wd"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(wd, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "in.txt"), []byte("inside"), 0o644); err != nil {
		f.Fatal(err)
	}
	for link, target := range map[string]string{
		"out.txt": filepath.Join(outside, "secret.txt"), "dir-out": "../outside", "loop": "loop",
		"sub/up": "..", "sub/far": "../../outside", "abs": outside,
	} {
		if err := os.Symlink(target, filepath.Join(wd, link)); err != nil {
			f.Skipf("symlink: %v", err)
		}
	}
	src := clitask.MemorySource(&clitask.Trace{Workdir: wd})
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
			return
		}
		res := check(t, `{"file_contains": {"path": `+jsonString(p)+`, "text": "SECRET"}}`, src)
		if res.Status == "" || res.Details == "" {
			t.Fatalf("empty result %+v", res)
		}
		authorLeaves := filepath.IsAbs(p) || strings.Contains(p, "..")
		if res.Passed && !authorLeaves {
			t.Fatalf("%q read the file outside the working directory: %s", p, res.Details)
		}
	})
}
