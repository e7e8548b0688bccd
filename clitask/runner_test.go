package clitask_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/google/go-cmp/cmp"
)

// scripted is an Agent that runs fixed commands per model and task.
type scripted struct {
	commands map[string][]string // "model task" -> commands
	err      map[string]error
	mu       sync.Mutex
	attempts []string
}

func (a *scripted) Attempt(ctx context.Context, at *clitask.Attempt) error {
	key := at.Model + " " + at.Task.ID
	a.mu.Lock()
	a.attempts = append(a.attempts, key)
	a.mu.Unlock()
	for _, c := range a.commands[key] {
		if _, err := at.Shell.Run(ctx, c); err != nil {
			return err
		}
	}
	return a.err[key]
}

func notesAgent() *scripted {
	return &scripted{commands: map[string][]string{
		"good/model add":       {"notes --version", "notes add groceries milk"},
		"good/model export":    {"notes list", "notes export notes.json"},
		"good/model unknown":   {"notes frobnicate"},
		"sloppy/model add":     {"notes add Groceries milk"},
		"sloppy/model export":  {"echo token=$NOTES_TOKEN key=sk-abcdefgh12345", "rm -rf .cache", "notes export notes.json"},
		"sloppy/model unknown": {"notes frobnicate"},
	}}
}

func loadE2E(t *testing.T) *clitask.Suite {
	t.Helper()
	s, err := clitask.LoadSuite("testdata/suites/e2e/cli-bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// summary renders runs as "task model passed failing-kinds".
func summary(runs []clitask.RunResult) []string {
	var out []string
	for _, r := range runs {
		var failed []string
		for _, a := range r.Assertions {
			if !a.Passed {
				failed = append(failed, a.Kind)
			}
		}
		line := r.TaskID + " " + r.Model + " " + map[bool]string{true: "PASS", false: "FAIL"}[r.Passed]
		if len(failed) > 0 {
			line += " " + strings.Join(failed, ",")
		}
		out = append(out, line)
	}
	return out
}

func TestRunnerEndToEnd(t *testing.T) {
	s := loadE2E(t)
	agent := notesAgent()
	tmp := t.TempDir()
	var progress []int
	streamed := 0
	r := &clitask.Runner{Agent: agent, TempDir: tmp, KeepWorkdirs: true,
		OnRun: func(rr clitask.RunResult, done, total int) {
			progress = append(progress, done)
			if total != 12 || rr.TaskID == "" {
				t.Errorf("OnRun(%q, %d, %d)", rr.TaskID, done, total)
			}
			streamed++
		}}
	rep, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if streamed != 12 || progress[len(progress)-1] != 12 {
		t.Errorf("OnRun was called %d times, last with %v", streamed, progress)
	}
	want := []string{
		"add good/model PASS", "add good/model PASS",
		"add sloppy/model FAIL output_contains,ran", "add sloppy/model FAIL output_contains,ran",
		"export good/model PASS", "export good/model PASS",
		"export sloppy/model FAIL not_ran", "export sloppy/model FAIL not_ran",
		"unknown good/model PASS", "unknown good/model PASS",
		"unknown sloppy/model PASS", "unknown sloppy/model PASS",
	}
	if diff := cmp.Diff(want, summary(rep.Runs)); diff != "" {
		t.Fatalf("runs (-want +got):\n%s", diff)
	}
	if len(agent.attempts) != 12 {
		t.Errorf("%d attempts", len(agent.attempts))
	}
	wantRates := map[string]clitask.PassRate{
		"good/model":   {Passed: 6, Total: 6, Rate: 100},
		"sloppy/model": {Passed: 2, Total: 6, Rate: 100.0 / 3},
	}
	if diff := cmp.Diff(wantRates, rep.PassRates); diff != "" {
		t.Errorf("pass rates (-want +got):\n%s", diff)
	}
	wantTh := []clitask.ThresholdResult{
		{Model: "good/model", Minimum: 65, Rate: 100, Behavior: "error"},
		{Model: "sloppy/model", Minimum: 40, Rate: 100.0 / 3, Violated: true, Behavior: "error"},
	}
	if diff := cmp.Diff(wantTh, rep.Thresholds); diff != "" {
		t.Errorf("thresholds (-want +got):\n%s", diff)
	}
	if rep.Passed() || len(rep.Violations(clitask.BehaviorError)) != 1 || len(rep.NotRun) != 0 {
		t.Errorf("report %+v", rep)
	}
	// The recorded trace is redacted; the evaluation saw the real one.
	leak := rep.Runs[6].Trace.Commands[0]
	if leak.Stdout != "token=[REDACTED] key=[REDACTED]\n" {
		t.Errorf("redacted stdout %q", leak.Stdout)
	}

	// Replaying the recorded runs through Suite.Check gives the same
	// verdicts: the trace file is the whole evidence, with the workdirs.
	var runs []clitask.Run
	for _, rr := range rep.Runs {
		runs = append(runs, clitask.Run{TaskID: rr.TaskID, Model: rr.Model, Trace: *rr.Trace})
	}
	data, err := json.Marshal(map[string]any{"runs": runs})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "trace.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	replay, err := clitask.ReadRuns(file)
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	checked, err := s.Check(context.Background(), replay, clitask.CheckOptions{
		OnRun: func(_ clitask.RunResult, done, _ int) { judged = done }})
	if err != nil {
		t.Fatal(err)
	}
	if judged != len(replay) {
		t.Errorf("Check's OnRun saw %d of %d runs", judged, len(replay))
	}
	// The redacted echo no longer matters: no assertion reads it.
	if diff := cmp.Diff(want, summary(checked.Runs)); diff != "" {
		t.Errorf("replayed runs (-want +got):\n%s", diff)
	}
	only, err := s.Check(context.Background(), replay, clitask.CheckOptions{TaskID: "unknown"})
	if err != nil || len(only.Runs) != 4 || !only.Passed() || len(only.NotRun) != 0 {
		t.Errorf("--task unknown: %+v, %v", only, err)
	}
}

func TestRunnerDefaultModelAndNotRun(t *testing.T) {
	s := loadE2E(t)
	s.Providers = nil
	agent := &scripted{
		commands: map[string][]string{" unknown": {"notes frobnicate"}},
		err:      map[string]error{" unknown": nil},
	}
	rep, err := (&clitask.Runner{Agent: agent, TempDir: t.TempDir(), Concurrency: 1}).Run(context.Background(), s, "unknown")
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(rep.Runs); !slices.Equal(got, []string{"unknown default PASS", "unknown default PASS"}) {
		t.Errorf("runs %q", got)
	}
	if rep.PassRates["default"].Total != 2 || len(rep.NotRun) != 0 {
		t.Errorf("report %+v", rep)
	}
	if _, err := (&clitask.Runner{Agent: agent}).Run(context.Background(), s, "nope"); !errors.Is(err, clitask.ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}
}

func TestRunnerAgentErrorFailsTheRun(t *testing.T) {
	s := loadE2E(t)
	boom := errors.New("model API unavailable")
	agent := &scripted{
		commands: map[string][]string{"m unknown": {"notes frobnicate"}},
		err:      map[string]error{"m unknown": boom},
	}
	s.Repeat = 1
	rep, err := (&clitask.Runner{Agent: agent, Models: []string{"m"}, TempDir: t.TempDir()}).Run(context.Background(), s, "unknown")
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if run.Passed || !errors.Is(run.Err, boom) {
		t.Errorf("run %+v", run)
	}
	for _, a := range run.Assertions {
		if !a.Passed {
			t.Errorf("the assertions still pass on their own: %+v", a)
		}
	}
}

func TestRunnerSetupFailureStops(t *testing.T) {
	s := loadE2E(t)
	s.Setup = append(s.Setup, "notes frobnicate")
	agent := notesAgent()
	rep, err := (&clitask.Runner{Agent: agent, TempDir: t.TempDir()}).Run(context.Background(), s)
	var se *clitask.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `exited 2: "notes: unknown command: frobnicate"`) {
		t.Fatalf("got %v", err)
	}
	if rep == nil || len(agent.attempts) != 0 {
		t.Errorf("report %+v, attempts %q", rep, agent.attempts)
	}
}

func TestSuiteCheckRejectsRuns(t *testing.T) {
	s := loadE2E(t)
	cases := []struct {
		runs []clitask.Run
		opts clitask.CheckOptions
		want error
		msg  string
	}{
		{[]clitask.Run{{TaskID: "add"}, {}}, clitask.CheckOptions{}, clitask.ErrNoTaskID, `/runs/1: the run has no "task_id"`},
		{[]clitask.Run{{TaskID: "nope"}}, clitask.CheckOptions{}, clitask.ErrUnknownTask, `/runs/0: task "nope": the suite has no such task`},
		{nil, clitask.CheckOptions{TaskID: "nope"}, clitask.ErrUnknownTask, `task "nope": the suite has no such task`},
		// A run of another task is still validated when --task is given.
		{[]clitask.Run{{TaskID: "nope"}}, clitask.CheckOptions{TaskID: "add"}, clitask.ErrUnknownTask, `task "nope"`},
	}
	for _, c := range cases {
		_, err := s.Check(context.Background(), c.runs, c.opts)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("got %v, want %v with %q", err, c.want, c.msg)
		}
	}
	rep, err := s.Check(context.Background(), nil, clitask.CheckOptions{})
	if err != nil || !slices.Equal(rep.NotRun, []string{"add", "export", "unknown"}) || len(rep.Runs) != 0 || !rep.Passed() {
		t.Errorf("no runs: %+v, %v", rep, err)
	}
}
