package clitask_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
)

// benchTrace is a 10,000-command trace of a long agent session.
func benchTrace(dir string) (*clitask.Trace, int64) {
	verbs := []string{
		"git status", "git add -A", `git commit -m "wip %d"`, "git push origin feature-%d", "git push --dry-run origin main",
		"npm install lodash@4.17.%d", "npm test -- --grep case%d", "ls -la src/%d", "cat package.json", "grep -rn TODO src/ | head -%d",
	}
	t := &clitask.Trace{Workdir: dir, Commands: make([]clitask.Command, 10000)}
	var size int64
	for i := range t.Commands {
		v := verbs[i%len(verbs)]
		if strings.Contains(v, "%d") {
			v = fmt.Sprintf(v, i)
		}
		t.Commands[i] = clitask.Command{Command: v, Stdout: "ok\n", DurationMS: 12}
		size += int64(len(v) + 3)
	}
	return t, size
}

// benchTask has 50 assertions, 20 of them run_count patterns.
func benchTask(b *testing.B) *clitask.Task {
	var items []string
	runCounts := []string{
		`^git commit`, `^git push(?!.*--dry-run)`, `git push.*--dry-run`, `^npm (install|i) `, `npm test`,
		`^ls\b`, `cat package\.json`, `grep -rn`, `lodash@4\.17\.\d+`, `feature-\d{3,}`,
		`^git (add|commit)`, `-m "wip \d+"`, `head -\d+$`, `src/\d+`, `--grep case\d*5\b`,
		`^(?:git|npm) `, `status$`, `origin main$`, `[A-Z]{4}`, `npm install [react`,
	}
	for i, p := range runCounts {
		items = append(items, fmt.Sprintf("      - run_count: {pattern: '%s', min: %d}", p, i%3))
	}
	for i := range 10 {
		items = append(items, fmt.Sprintf("      - ran: 'git commit -m \"wip %d\"'", i*10+2))
		items = append(items, fmt.Sprintf("      - not_ran: 'rm -rf /%d'", i))
	}
	for range 2 {
		items = append(items, "      - exit_code: 0", "      - output_contains: ok", "      - output_equals: ok",
			"      - error_contains: ''", "      - file_exists: .")
	}
	suite := "cli: git\ntasks:\n  - id: bench\n    intent: a long session\n    assert:\n" + strings.Join(items, "\n") + "\n"
	s, err := clitask.ParseSuite("bench.yaml", []byte(suite))
	if err != nil {
		b.Fatal(err)
	}
	if n := len(s.Tasks[0].Assert); n != 50 {
		b.Fatalf("%d assertions", n)
	}
	return s.Tasks[0]
}

// BenchmarkCheckTrace evaluates 50 assertions (20 run_count patterns, each
// compiled once when the suite loaded) against a 10,000-command trace.
func BenchmarkCheckTrace(b *testing.B) {
	task := benchTask(b)
	tr, size := benchTrace(b.TempDir())
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		// A fresh source each time: each trace is evaluated once, so its
		// one-off conversion for the regular expression engine counts.
		task.Check(context.Background(), clitask.MemorySource(tr))
	}
}

// BenchmarkLoadSuite loads a suite of 500 tasks spread over 50 included
// files.
func BenchmarkLoadSuite(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tasks", "group"), 0o755); err != nil {
		b.Fatal(err)
	}
	var size int64
	for f := range 50 {
		var sb strings.Builder
		for t := range 10 {
			fmt.Fprintf(&sb, `- id: task-%02d-%02d
  intent: Do step %d of area %d with the CLI and report the result.
  difficulty: medium
  max_turns: 10
  env: {AREA: "area-%d", CACHE: "{{workdir}}/.cache"}
  setup: ["mkdir -p data"]
  assert:
    - exit_code: 0
    - ran: "^tool (run|exec) step-%d"
    - not_ran: "rm -rf"
    - run_count: {pattern: "^tool ", min: 1, max: 5}
    - file_contains: {path: data/out.txt, text: "step %d"}
    - verify: {run: "tool check", output_contains: "ok"}
`, f, t, t, f, f, t, t)
		}
		sub := "tasks"
		if f%2 == 1 {
			sub = filepath.Join("tasks", "group")
		}
		if err := os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("f%02d.yaml", f)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		size += int64(sb.Len())
	}
	suite := []byte("cli: tool\nrepeat: 3\nenv: {HOME: \"{{workdir}}\"}\ntasks:\n  - file://tasks/**/*.yaml\n")
	path := filepath.Join(dir, "cli-bench.yaml")
	if err := os.WriteFile(path, suite, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size + int64(len(suite)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := clitask.LoadSuite(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Tasks) != 500 {
			b.Fatalf("%d tasks", len(s.Tasks))
		}
	}
}

// BenchmarkReadRuns reads a trace file of 10,000 commands.
func BenchmarkReadRuns(b *testing.B) {
	tr, _ := benchTrace("/w")
	runs := []clitask.Run{{TaskID: "t", Trace: *tr}}
	data, err := jsonMarshal(map[string]any{"runs": runs})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := clitask.ParseRuns(data, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
