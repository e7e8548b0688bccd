package clitask_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/internal/golden"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestLoadSuiteEveryField(t *testing.T) {
	s, err := clitask.LoadSuite("testdata/suites/full/cli-bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := 80.0
	got := *s
	got.Tasks, got.Dir = nil, ""
	want := clitask.Suite{
		File: "testdata/suites/full/cli-bench.yaml", CLI: "notes", VersionCommand: "notes --version",
		DisplayName: "Notes CLI", Category: "productivity", WebsiteURL: "https://example.com/notes",
		GitHubURL: "https://github.com/example/notes", Providers: []string{"anthropic/claude-sonnet-4", "openai/gpt-4.1"},
		HelpModes: []string{"injected", "discoverable", "none"}, Concurrency: 2, Upload: "never", Repeat: 2,
		SystemPrompt: "You are operating the notes CLI.", RedactEnv: []string{"NOTES_TOKEN"},
		RedactPatterns: []string{"sk-[A-Za-z0-9]{8,}"},
		Env:            map[string]string{"NOTES_HOME": "{{workdir}}/.notes", "NOTES_TOKEN": "suite-token", "LEVEL": "suite"},
		Setup:          []string{"mkdir -p .notes"}, Scaffold: "scaffold",
		Thresholds: &clitask.Thresholds{Default: &def, Models: map[string]float64{"openai/gpt-4.1": 60}, Tolerance: 5, Behavior: "informational"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(clitask.Suite{}), cmp.FilterPath(func(p cmp.Path) bool {
		f, ok := p.Last().(cmp.StructField)
		return ok && (f.Name() == "byID" || f.Name() == "redact")
	}, cmp.Ignore())); diff != "" {
		t.Errorf("suite (-want +got):\n%s", diff)
	}
	abs, _ := filepath.Abs("testdata/suites/full")
	if s.Dir != abs {
		t.Errorf("Dir %q, want %q", s.Dir, abs)
	}
	var ids []string
	for _, task := range s.Tasks {
		ids = append(ids, task.ID)
	}
	// Inline first, then each include's files in sorted order; ** matches
	// zero or more folders.
	wantIDs := []string{"add-note", "search-notes", "list-notes", "export-notes", "delete-note", "top-level-yml"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("task order %q, want %q", ids, wantIDs)
	}
	add, ok := s.Task("add-note")
	if !ok {
		t.Fatal("no add-note")
	}
	if add.Intent != `Add a note titled "groceries" with the text "milk".` || add.Difficulty != "easy" || add.Category != "basics" ||
		add.MaxTurns != 5 || add.Repeat != 3 || len(add.Assert) != 3 || add.Line != 32 || add.Column != 5 {
		t.Errorf("add-note: %+v", add)
	}
	kinds := []string{}
	for _, a := range add.Assert {
		kinds = append(kinds, a.Kind())
	}
	if !slices.Equal(kinds, []string{"exit_code", "ran", "file_exists"}) {
		t.Errorf("kinds %q", kinds)
	}
	exp, _ := s.Task("export-notes")
	if exp.File != filepath.Join("testdata/suites/full", "tasks/nested/c.yml") || exp.Line != 1 || exp.Column != 3 {
		t.Errorf("export-notes is located at %s:%d:%d", exp.File, exp.Line, exp.Column)
	}
	if _, ok := s.Task("nope"); ok {
		t.Error("found a task that does not exist")
	}
}

func TestThresholdMinimum(t *testing.T) {
	def := 80.0
	th := &clitask.Thresholds{Default: &def, Models: map[string]float64{"a/x": 60, "a/low": 3}, Tolerance: 5}
	for model, want := range map[string]float64{"a/x": 55, "b/y": 75, "a/low": 0} {
		if got, ok := th.Minimum(model); !ok || got != want {
			t.Errorf("%s: %v %v, want %v", model, got, ok, want)
		}
	}
	if _, ok := (&clitask.Thresholds{Models: map[string]float64{"a/x": 60}}).Minimum("b/y"); ok {
		t.Error("a model without a threshold and no default has a minimum")
	}
	if _, ok := (*clitask.Thresholds)(nil).Minimum("a"); ok {
		t.Error("nil thresholds have a minimum")
	}
}

// Each bad suite's full error output is in its golden file; every problem
// names the file, line and column.
func TestLoadSuiteErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/suites/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal("no bad suites", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := clitask.LoadSuite(f)
			var se *clitask.SuiteError
			if !errors.As(err, &se) || len(se.Problems) == 0 {
				t.Fatalf("got %v, want a *SuiteError", err)
			}
			for _, p := range se.Problems {
				if !strings.HasPrefix(p.File, "testdata/suites/bad/") || (p.Line == 0 && !strings.Contains(p.Message, "empty")) {
					t.Errorf("problem without a location: %+v", p)
				}
			}
			golden.Compare(t, strings.TrimSuffix(f, ".yaml")+".golden", []byte(err.Error()+"\n"), *update)
		})
	}
}

func TestParseTasks(t *testing.T) {
	data, err := os.ReadFile("testdata/suites/bad/inc/dup.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := clitask.ParseTasks("dup.yaml", data)
	if err != nil || len(tasks) != 2 || tasks[1].ID != "init" || tasks[1].Line != 5 {
		t.Fatalf("got %v, %v", tasks, err)
	}
	_, err = clitask.ParseTasks("dup.yaml", append(data, data...))
	if err == nil || !strings.Contains(err.Error(), `dup.yaml:9:3: duplicate task id "commit" (first defined at dup.yaml:1:3)`) {
		t.Fatalf("got %v", err)
	}
	_, err = clitask.ParseTasks("one.yaml", []byte("id: x\nintent: y\nassert: [{exit_code: 0}]\n"))
	if err == nil || !strings.Contains(err.Error(), "one.yaml:1:1: a task file holds a list of tasks, not a mapping") {
		t.Fatalf("got %v", err)
	}
}

func TestEnviron(t *testing.T) {
	s := &clitask.Suite{Env: map[string]string{"HOME": "{{workdir}}/home", "LEVEL": "suite", "ONLY_SUITE": "1"}}
	task := &clitask.Task{Env: map[string]string{"LEVEL": "task {{workdir}}", "CACHE": "{{workdir}}/{{workdir}}"}}
	got := s.Environ(task, "/w", []string{"PATH=/bin", "HOME=/root", "LEVEL=process"})
	want := []string{"PATH=/bin", "CACHE=/w//w", "HOME=/w/home", "LEVEL=task /w", "ONLY_SUITE=1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if env := s.Environ(nil, "/w", nil); !slices.Contains(env, "LEVEL=suite") || len(env) < 3 {
		t.Errorf("process environment not used: %q", env)
	}
}

func TestPrepare(t *testing.T) {
	s, err := clitask.LoadSuite("testdata/suites/full/cli-bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	task, _ := s.Task("add-note")
	tmp := t.TempDir()
	ws, err := s.Prepare(context.Background(), task, clitask.PrepareOptions{TempDir: tmp, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(ws.Dir) != tmp {
		t.Errorf("workdir %s is not in %s", ws.Dir, tmp)
	}
	for _, f := range []string{"seed.txt", "bin/notes", ".notes/index"} {
		if _, err := os.Stat(filepath.Join(ws.Dir, f)); err != nil {
			t.Errorf("scaffold or setup missing: %v", err)
		}
	}
	if fi, err := os.Stat(filepath.Join(ws.Dir, "bin/notes")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the scaffold's executable lost its mode: %v", err)
	}
	if !slices.Contains(ws.Env, "NOTES_HOME="+ws.Dir+"/.notes") || !slices.Contains(ws.Env, "LEVEL=task") {
		t.Errorf("env %q", ws.Env)
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.Dir); !os.IsNotExist(err) {
		t.Errorf("a fresh workdir survived Close: %v", err)
	}
}

func TestPrepareSetupFails(t *testing.T) {
	tmp := t.TempDir()
	s := &clitask.Suite{Dir: tmp, Setup: []string{"true", "echo 'no such tool' >&2; exit 127"}}
	task := &clitask.Task{ID: "t", Setup: []string{"touch never"}}
	_, err := s.Prepare(context.Background(), task, clitask.PrepareOptions{TempDir: tmp})
	var se *clitask.SetupError
	if !errors.As(err, &se) || se.Index != 1 || se.Command.ExitCode != 127 {
		t.Fatalf("got %v", err)
	}
	if want := `setup of task "t": command 2, "echo 'no such tool' >&2; exit 127", exited 127: "no such tool"`; err.Error() != want {
		t.Errorf("message %q\nwant %q", err, want)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the fresh workdir of a failed setup is left: %v", left)
	}
	// A missing scaffold is an error too.
	s = &clitask.Suite{Dir: tmp, Scaffold: "nope"}
	if _, err := s.Prepare(context.Background(), task, clitask.PrepareOptions{TempDir: tmp}); err == nil || !strings.Contains(err.Error(), "scaffold") {
		t.Fatalf("got %v", err)
	}
}

func TestPrepareSuiteWorkdir(t *testing.T) {
	tmp := t.TempDir()
	s := &clitask.Suite{Dir: tmp, Workdir: "work", Setup: []string{"echo x >> log"}}
	task := &clitask.Task{ID: "t"}
	for range 2 {
		ws, err := s.Prepare(context.Background(), task, clitask.PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ws.Dir != filepath.Join(tmp, "work") {
			t.Fatalf("workdir %s", ws.Dir)
		}
		if err := ws.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// The suite's workdir is shared and kept.
	if data, err := os.ReadFile(filepath.Join(tmp, "work", "log")); err != nil || string(data) != "x\nx\n" {
		t.Fatalf("log %q, %v", data, err)
	}
}

// A YAML syntax error is reported at the line where the document stops
// parsing, not where the enclosing block began (yaml.v3's own line for a
// misindented item is the start of the list, lines above the mistake).
func TestYAMLSyntaxErrorLine(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		line       int
		message    string
	}{
		{"misindented item", "cli: git\ntasks:\n  - id: a\n    intent: x\n    assert:\n    - exit_code: 0\n   - ran: y\n", 7, "did not find expected '-' indicator"},
		{"unterminated quote", "cli: git\ntasks:\n  - id: a\n    intent: \"x\n    assert: [{exit_code: 0}]\n", 4, "found unexpected end of stream"},
		{"tab indentation", "cli: git\ntasks:\n\t- id: a\n", 3, "found character that cannot start any token"},
	} {
		_, err := clitask.ParseSuite("s.yaml", []byte(tc.yaml))
		var se *clitask.SuiteError
		if !errors.As(err, &se) || len(se.Problems) != 1 {
			t.Errorf("%s: err = %v", tc.name, err)
			continue
		}
		p := se.Problems[0]
		if p.Line != tc.line || !strings.Contains(p.Message, tc.message) {
			t.Errorf("%s: line %d %q, want line %d %q", tc.name, p.Line, p.Message, tc.line, tc.message)
		}
	}
}
