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
