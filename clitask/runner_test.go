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
	"time"

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

// TestRunnerHelpModesNamesAndUsage: every help mode runs every task, runs
// are named in run order and work in Workdirs/NAME, kept; the agent's usage
// adds up per model; a secret is hidden from the trace, the error and what
// the agent shows its model.
func TestRunnerHelpModesNamesAndUsage(t *testing.T) {
	s := loadE2E(t)
	s.Repeat = 1
	dir := filepath.Join(t.TempDir(), "workdirs")
	var mu sync.Mutex
	seen := map[string]string{} // run -> help mode, model, redacted text
	agent := clitask.AgentFunc(func(ctx context.Context, a *clitask.Attempt) error {
		if _, err := a.Shell.Run(ctx, "echo key=sk-live-0123456789 token=$NOTES_TOKEN > out.txt"); err != nil {
			return err
		}
		a.Usage = clitask.Usage{Turns: 2, PromptTokens: 100, CompletionTokens: 10}
		mu.Lock()
		seen[a.Run] = a.HelpMode + " " + a.Model + " " + a.Redact("sk-live-0123456789 s3cret-token") + " " + a.Shell.Workdir()
		mu.Unlock()
		if a.Task.ID == "export" {
			return errors.New("the model API failed with key sk-live-0123456789")
		}
		return nil
	})
	r := &clitask.Runner{Agent: agent, HelpModes: []string{clitask.HelpInjected, clitask.HelpNone}, Workdirs: dir,
		Secrets: []string{"sk-live-0123456789"}, Concurrency: 3}
	rep, err := r.Run(context.Background(), s, "add", "export")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, run := range rep.Runs {
		got = append(got, run.Run+" "+run.Model+" "+run.HelpMode)
		if _, err := os.Stat(filepath.Join(dir, run.Run, "out.txt")); err != nil {
			t.Errorf("%s: the workdir was not kept: %v", run.Run, err)
		}
		if run.Trace.Workdir != filepath.Join(dir, run.Run) || !strings.HasSuffix(seen[run.Run], " "+run.Trace.Workdir) {
			t.Errorf("%s worked in %q (%q)", run.Run, run.Trace.Workdir, seen[run.Run])
		}
		if c := run.Trace.Commands[0].Command; strings.Contains(c, "sk-live") {
			t.Errorf("%s: the secret is in the trace: %q", run.Run, c)
		}
		if run.TaskID == "export" && (run.Passed || run.Error != "the model API failed with key [REDACTED]") {
			t.Errorf("%s: an agent error: passed %v, %q", run.Run, run.Passed, run.Error)
		}
		if run.Usage == nil || run.Usage.Turns != 2 {
			t.Errorf("%s: usage %+v", run.Run, run.Usage)
		}
	}
	want := []string{
		"0001-add good/model injected", "0002-add good/model none", "0003-add sloppy/model injected", "0004-add sloppy/model none",
		"0005-export good/model injected", "0006-export good/model none", "0007-export sloppy/model injected", "0008-export sloppy/model none",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if v := seen["0002-add"]; !strings.HasPrefix(v, "none good/model [REDACTED] [REDACTED] ") {
		t.Errorf("the attempt saw %q", v)
	}
	u := rep.Usage["good/model"]
	if u.Turns != 8 || u.PromptTokens != 400 || u.CompletionTokens != 40 || u.WallMS < 0 {
		t.Errorf("usage %+v", rep.Usage)
	}
	byMode := rep.ByHelpMode["none"]["sloppy/model"]
	if byMode.Total != 2 || len(rep.ByHelpMode) != 2 {
		t.Errorf("by help mode %+v", rep.ByHelpMode)
	}
	// the run's folder exists already: the runner does not reuse it
	if _, err := r.Run(context.Background(), s, "add"); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second run into the same folders: %v", err)
	}
}

// TestRunnerTimeout: at RunTimeout the attempt's context ends with
// ErrRunTimeout, and the run is judged on what it did.
func TestRunnerTimeout(t *testing.T) {
	s := loadE2E(t)
	s.Repeat = 1
	var cause error
	agent := clitask.AgentFunc(func(ctx context.Context, a *clitask.Attempt) error {
		if _, err := a.Shell.Run(ctx, "notes frobnicate"); err != nil {
			return err
		}
		<-ctx.Done()
		cause = context.Cause(ctx)
		return nil
	})
	start := time.Now()
	rep, err := (&clitask.Runner{Agent: agent, Models: []string{"m"}, RunTimeout: 100 * time.Millisecond, TempDir: t.TempDir()}).Run(context.Background(), s, "unknown")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(cause, clitask.ErrRunTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("cause %v after %v", cause, time.Since(start))
	}
	if !rep.Runs[0].Passed || len(rep.Runs[0].Trace.Commands) != 1 {
		t.Errorf("the run is judged on what it did: %+v", rep.Runs[0])
	}
	if rep.Runs[0].Stopped != clitask.StoppedTimeout {
		t.Errorf("Stopped = %q, want %q", rep.Runs[0].Stopped, clitask.StoppedTimeout)
	}
	// An agent's own Stopped is reported; a run that ends in time has none
	// of the Runner's.
	for _, stopped := range []string{"", clitask.StoppedMaxTurns} {
		agent := clitask.AgentFunc(func(ctx context.Context, a *clitask.Attempt) error {
			a.Stopped = stopped
			_, err := a.Shell.Run(ctx, "notes frobnicate")
			return err
		})
		rep, err := (&clitask.Runner{Agent: agent, Models: []string{"m"}, RunTimeout: time.Minute, TempDir: t.TempDir()}).Run(context.Background(), s, "unknown")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Runs[0].Stopped != stopped {
			t.Errorf("Stopped = %q, want %q", rep.Runs[0].Stopped, stopped)
		}
	}
}

func TestRunName(t *testing.T) {
	for _, tt := range []struct {
		i        int
		id, want string
	}{
		{6, "add-entry", "0007-add-entry"},
		{12344, "a b/c:d", "12345-a_b_c_d"},
		{0, "..", "0001-.."},
		{0, "é", "0001-__"},
		{0, strings.Repeat("x", 300), "0001-" + strings.Repeat("x", 200)},
	} {
		if got := clitask.RunName(tt.i, tt.id); got != tt.want {
			t.Errorf("RunName(%d, %q) = %q, want %q", tt.i, tt.id, got, tt.want)
		}
	}
}

// TestCheckCountsARecordedErrorFailed: a run whose attempt broke down
// carries "error" in the trace; check counts it failed with that message,
// and keeps its run name and help mode.
func TestCheckCountsARecordedErrorFailed(t *testing.T) {
	s := loadE2E(t)
	runs, err := clitask.ParseRuns([]byte(`{"runs": [
		{"run": "0001-unknown", "task_id": "unknown", "model": "m", "help_mode": "none", "commands": [{"command": "notes frobnicate", "exit_code": 2, "stderr": "notes: unknown command: frobnicate"}]},
		{"run": "0002-unknown", "task_id": "unknown", "model": "m", "help_mode": "none", "error": "the model API failed", "commands": [{"command": "notes frobnicate", "exit_code": 2, "stderr": "notes: unknown command: frobnicate"}]}
	]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Check(context.Background(), runs, clitask.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Runs[0], rep.Runs[1]
	if !a.Passed || b.Passed || b.Error != "the model API failed" || b.Err == nil || b.Run != "0002-unknown" || b.HelpMode != "none" {
		t.Errorf("runs %+v\n%+v", a, b)
	}
	if pr := rep.ByHelpMode["none"]["m"]; pr.Passed != 1 || pr.Total != 2 || rep.Usage != nil {
		t.Errorf("by help mode %+v, usage %+v", rep.ByHelpMode, rep.Usage)
	}
	if _, err := clitask.ParseRuns([]byte(`{"task_id": "unknown", "error": 5, "commands": []}`), ""); err == nil || !strings.Contains(err.Error(), "/error") {
		t.Errorf("an error that is not a string: %v", err)
	}
}

// With NoVerify a verify is not run: it is a skipped result (status error,
// Skipped), and the run is judged on its other assertions; a run with no
// other assertion judges nothing, so it counts in no pass rate and does
// not fail the report. (Before, each skipped verify failed its run.)
func TestCheckNoVerifySkipsVerify(t *testing.T) {
	dir := t.TempDir()
	s, err := clitask.ParseSuite("cli-bench.yaml", []byte(`cli: make
tasks:
  - id: build
    intent: Build.
    assert:
      - exit_code: 0
      - verify: {run: touch verified}
  - id: only-verify
    intent: Check.
    assert:
      - verify: {run: touch verified}
  - id: broken
    intent: Break.
    assert:
      - exit_code: 0
      - verify: {run: touch verified}
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := []clitask.Run{
		{TaskID: "build", Model: "m", Trace: clitask.Trace{Workdir: dir, Commands: []clitask.Command{{Command: "make", ExitCode: 0}}}},
		{TaskID: "only-verify", Model: "m", Trace: clitask.Trace{Workdir: dir, Commands: []clitask.Command{{Command: "make"}}}},
		{TaskID: "broken", Model: "m", Trace: clitask.Trace{Workdir: dir, Commands: []clitask.Command{{Command: "make", ExitCode: 2}}}},
	}
	rep, err := s.Check(context.Background(), runs, clitask.CheckOptions{NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "verified")); err == nil {
		t.Error("a verify ran")
	}
	build, only, broken := rep.Runs[0], rep.Runs[1], rep.Runs[2]
	v := build.Assertions[1]
	if !build.Passed || build.Skipped || v.Kind != "verify" || !v.Skipped || v.Passed || v.Status != "error" ||
		v.Details != `Verify "touch verified" was not run: verify commands are skipped.` {
		t.Errorf("build: %+v", build)
	}
	if only.Passed || !only.Skipped || !only.Assertions[0].Skipped {
		t.Errorf("only-verify: %+v", only)
	}
	if broken.Passed || broken.Skipped {
		t.Errorf("broken: %+v", broken)
	}
	if pr := rep.PassRates["m"]; pr.Passed != 1 || pr.Total != 2 {
		t.Errorf("pass rates %+v (the run that judged nothing counts in none)", rep.PassRates)
	}
	if rep.Passed() || rep.SkippedAssertions() != 3 {
		t.Errorf("passed %v, skipped %d", rep.Passed(), rep.SkippedAssertions())
	}
	// Without the broken run the report passes: nothing judged is not a
	// failure.
	rep, err = s.Check(context.Background(), runs[:2], clitask.CheckOptions{NoVerify: true})
	if err != nil || !rep.Passed() {
		t.Errorf("report %+v, %v", rep, err)
	}
	// Without NoVerify the verify runs.
	if rep, err = s.Check(context.Background(), runs[:1], clitask.CheckOptions{}); err != nil || !rep.Passed() || rep.Runs[0].Assertions[1].Skipped {
		t.Errorf("verify run: %+v, %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "verified")); err != nil {
		t.Errorf("the verify did not run: %v", err)
	}
}
