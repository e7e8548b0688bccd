package clitask

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/assaykit/assay/assert"
)

// DefaultModel is the model that runs naming none count under.
const DefaultModel = "default"

// AssertionResult is the result of one assertion of a run. Its JSON keys
// are those of assay check's output.
type AssertionResult struct {
	Kind    string        `json:"kind"`
	Status  assert.Status `json:"status"`
	Passed  bool          `json:"passed"`
	Details string        `json:"details"`
	// Skipped is true for a verify that was not run because verify
	// commands are skipped (SkipVerify, CheckOptions.NoVerify). Its status
	// is error (the check did not run) and it counts neither as passed nor
	// as failed: the run is judged on its other assertions.
	Skipped bool `json:"skipped,omitempty"`
	// Evidence is the check's evidence (see the kinds' *Evidence types).
	Evidence any `json:"-"`
}

// RunResult is the result of one run of a task. Its JSON keys are those of
// assay check's output; run, help_mode, error and stopped appear when set.
type RunResult struct {
	// Run names the run: for a Runner with Workdirs, the name of its
	// working directory there (see RunName); for a recorded run, the "run"
	// its trace gives; else "".
	Run    string `json:"run,omitempty"`
	TaskID string `json:"task_id"`
	// Model is the run's model; DefaultModel when it named none.
	Model string `json:"model"`
	// HelpMode is the help mode the run was made in (see Runner), "" when
	// unknown.
	HelpMode string `json:"help_mode,omitempty"`
	// Passed is true when every assertion passed and the attempt did not
	// break down (Error is ""); skipped assertions are left out, and a run
	// with no other is not passed.
	Passed bool `json:"passed"`
	// Skipped is true when every assertion of the run was skipped (see
	// AssertionResult.Skipped) and the attempt did not break down: nothing
	// was judged, so the run counts in no pass rate and does not fail
	// Report.Passed.
	Skipped bool `json:"skipped,omitempty"`
	// Error says how the attempt broke down: the agent's error, for runs a
	// Runner made (redacted as the trace is), or the "error" a recorded
	// run carries. The run counts as failed.
	Error string `json:"error,omitempty"`
	// Stopped says how a Runner's run was cut short, to be judged on what
	// it did: StoppedTimeout or StoppedMaxTurns; "" when the agent
	// finished (or broke down: see Error).
	Stopped    string            `json:"stopped,omitempty"`
	Assertions []AssertionResult `json:"assertions"`
	// Err is the agent's error, for runs a Runner made, or Error as an
	// error for recorded runs that carry one.
	Err error `json:"-"`
	// Trace is the run's trace; a Runner's is redacted as the suite asks.
	Trace *Trace `json:"-"`
	// Usage is what the run's model calls cost, for runs a Runner made.
	Usage *Usage `json:"-"`
}

// Usage is what model calls cost: the calls (turns), the tokens of their
// prompts and completions as the model's API counted them, and the wall
// time, in milliseconds. An Agent fills Attempt.Usage (all but WallMS,
// which the Runner measures around the attempt).
type Usage struct {
	Turns            int   `json:"turns"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	WallMS           int64 `json:"wall_ms"`
}

// add sums u and v.
func (u Usage) add(v Usage) Usage {
	return Usage{Turns: u.Turns + v.Turns, PromptTokens: u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens, WallMS: u.WallMS + v.WallMS}
}

// PassRate is the share of a model's runs that passed. Rate is in percent
// (0..100), the unit thresholds use.
type PassRate struct {
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	Rate   float64 `json:"rate"`
}

// ThresholdResult compares a model's pass rate with its effective minimum
// (both in percent).
type ThresholdResult struct {
	Model    string  `json:"model"`
	Minimum  float64 `json:"minimum"`
	Rate     float64 `json:"rate"`
	Violated bool    `json:"violated"`
	Behavior string  `json:"behavior"`
}

// Report is the result of a suite's runs: each run, the tasks that had no
// run, pass rates per model, and the thresholds that apply. Its JSON is
// assay check's output, and assay run's.
type Report struct {
	Runs      []RunResult         `json:"runs"`
	NotRun    []string            `json:"not_run"`
	PassRates map[string]PassRate `json:"pass_rates"`
	// ByHelpMode holds the pass rates per help mode, then model, when some
	// run has a help mode; nil otherwise.
	ByHelpMode map[string]map[string]PassRate `json:"by_help_mode,omitempty"`
	// Usage holds per model the totals of the runs' Usage, when some run
	// has one (a Runner's); nil otherwise.
	Usage      map[string]Usage  `json:"usage,omitempty"`
	Thresholds []ThresholdResult `json:"thresholds"`
}

// Passed reports whether every run passed (runs with nothing judged,
// RunResult.Skipped, aside).
func (r *Report) Passed() bool {
	for _, run := range r.Runs {
		if !run.Passed && !run.Skipped {
			return false
		}
	}
	return true
}

// SkippedAssertions counts the assertions of the runs that were skipped
// (AssertionResult.Skipped).
func (r *Report) SkippedAssertions() int {
	n := 0
	for _, run := range r.Runs {
		for _, a := range run.Assertions {
			if a.Skipped {
				n++
			}
		}
	}
	return n
}

// Violations returns the violated thresholds with the given behavior.
func (r *Report) Violations(behavior string) []ThresholdResult {
	var out []ThresholdResult
	for _, t := range r.Thresholds {
		if t.Violated && t.Behavior == behavior {
			out = append(out, t)
		}
	}
	return out
}

// rateEpsilon absorbs floating-point noise when a rate is compared with a
// minimum, as assert.Epsilon does for scores (percent scale).
const rateEpsilon = 1e-7

// summarize builds the report of runs over the tasks in scope.
func summarize(scope []*Task, runs []RunResult, th *Thresholds) *Report {
	rep := &Report{Runs: runs, NotRun: []string{}, PassRates: map[string]PassRate{}, Thresholds: []ThresholdResult{}}
	if rep.Runs == nil {
		rep.Runs = []RunResult{}
	}
	seen := map[string]bool{}
	count := func(rates map[string]PassRate, run RunResult) {
		pr := rates[run.Model]
		pr.Total++
		if run.Passed {
			pr.Passed++
		}
		pr.Rate = 100 * float64(pr.Passed) / float64(pr.Total)
		rates[run.Model] = pr
	}
	for _, run := range runs {
		seen[run.TaskID] = true
		if run.Skipped {
			continue // nothing was judged
		}
		count(rep.PassRates, run)
		if run.HelpMode != "" {
			if rep.ByHelpMode == nil {
				rep.ByHelpMode = map[string]map[string]PassRate{}
			}
			if rep.ByHelpMode[run.HelpMode] == nil {
				rep.ByHelpMode[run.HelpMode] = map[string]PassRate{}
			}
			count(rep.ByHelpMode[run.HelpMode], run)
		}
		if run.Usage != nil {
			if rep.Usage == nil {
				rep.Usage = map[string]Usage{}
			}
			rep.Usage[run.Model] = rep.Usage[run.Model].add(*run.Usage)
		}
	}
	for _, t := range scope {
		if !seen[t.ID] {
			rep.NotRun = append(rep.NotRun, t.ID)
		}
	}
	models := make([]string, 0, len(rep.PassRates))
	for m := range rep.PassRates {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		minimum, ok := th.Minimum(m)
		if !ok {
			continue
		}
		rate := rep.PassRates[m].Rate
		rep.Thresholds = append(rep.Thresholds, ThresholdResult{Model: m, Minimum: minimum, Rate: rate,
			Violated: rate < minimum-rateEpsilon, Behavior: th.Behavior})
	}
	return rep
}

// Check evaluates the task's assertions, in order, against src, each through
// assert.Run (a check that panics reports status error; results are
// normalised). The trace is taken once, so every assertion judges the same
// commands. The task passes when every assertion passes; every one is
// evaluated either way. When src skips verify (SkipVerify), each verify is
// a skipped result and the task passes when every other assertion passes
// and there is one.
func (t *Task) Check(ctx context.Context, src Source) (passed bool, results []AssertionResult) {
	skip := skipsVerify(src)
	if _, ok := src.(runeSource); !ok {
		tr, err := src.Trace(ctx)
		src = &snapshot{Source: src, trace: tr, err: err}
	}
	env := assert.NewEnv()
	Attach(env, src)
	results = make([]AssertionResult, len(t.Assert))
	passed = true
	judged := 0
	for i, a := range t.Assert {
		if v, ok := a.(verifyCheck); ok && skip {
			res := v.skipped()
			results[i] = AssertionResult{Kind: KindVerify, Status: res.Status, Details: res.Details, Skipped: true}
			continue
		}
		res := assert.Run(ctx, a, env)
		results[i] = AssertionResult{Kind: kindOf(a), Status: res.Status, Passed: res.Passed, Details: res.Details, Evidence: res.Evidence}
		passed = passed && res.Passed
		judged++
	}
	return passed && judged > 0, results
}

// allSkipped reports whether every result is skipped (and there is one).
func allSkipped(results []AssertionResult) bool {
	for _, r := range results {
		if !r.Skipped {
			return false
		}
	}
	return len(results) > 0
}

// kindOf is a.Kind(), or "?" for a nil assertion or one whose Kind panics.
func kindOf(a assert.Assertion) (kind string) {
	defer func() {
		if recover() != nil {
			kind = "?"
		}
	}()
	if a == nil {
		return "?"
	}
	return a.Kind()
}

// ErrUnknownTask is wrapped by errors about a task id the suite lacks.
var ErrUnknownTask = errors.New("the suite has no such task")

// ErrNoTaskID is wrapped by the error about a run without a task_id.
var ErrNoTaskID = errors.New(`the run has no "task_id"`)

// RunError reports a recorded run that cannot be matched to a task.
type RunError struct {
	// Index is the run's 0-based position in the trace file.
	Index  int
	TaskID string
	Err    error
}

// Error says which run and why.
func (e *RunError) Error() string {
	if e.TaskID == "" {
		return fmt.Sprintf("/runs/%d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("/runs/%d: task %q: %v", e.Index, e.TaskID, e.Err)
}

// Unwrap returns ErrNoTaskID or ErrUnknownTask.
func (e *RunError) Unwrap() error { return e.Err }

// CheckOptions tune Suite.Check.
type CheckOptions struct {
	// TaskID, when set, limits the check to that task's runs.
	TaskID string
	// VerifyTimeout bounds each verify; 0 means DefaultTimeout.
	VerifyTimeout time.Duration
	// Environ is the base environment of verify; nil means the process
	// environment. The suite's and the task's env override it.
	Environ []string
	// PatternBudget bounds each ran, not_ran and run_count check; 0 means
	// DefaultPatternBudget.
	PatternBudget time.Duration
	// MaxFileSize caps the file each file_contains reads; 0 means
	// check.DefaultMaxFileSize.
	MaxFileSize int64
	// NoVerify runs no verify command: each verify is a skipped result
	// (status error, AssertionResult.Skipped) and each run is judged on
	// its other assertions (SkipVerify).
	NoVerify bool
	// OnRun, when set, is called with each run's result as soon as it is
	// judged, with how many runs are judged so far and how many will be,
	// so that a caller can stream results and show progress.
	OnRun func(r RunResult, done, total int)
}

// Check evaluates recorded runs against the suite's tasks and returns the
// report. Before evaluating anything it rejects, with a *RunError, a run
// without a task id or naming a task the suite lacks, and, with an error
// wrapping ErrUnknownTask, an opts.TaskID the suite lacks. With
// opts.TaskID set, runs of other tasks are skipped.
func (s *Suite) Check(ctx context.Context, runs []Run, opts CheckOptions) (*Report, error) {
	scope := s.Tasks
	if opts.TaskID != "" {
		t, ok := s.Task(opts.TaskID)
		if !ok {
			return nil, fmt.Errorf("task %q: %w", opts.TaskID, ErrUnknownTask)
		}
		scope = []*Task{t}
	}
	for i, r := range runs {
		if r.TaskID == "" {
			return nil, &RunError{Index: i, Err: ErrNoTaskID}
		}
		if _, ok := s.Task(r.TaskID); !ok {
			return nil, &RunError{Index: i, TaskID: r.TaskID, Err: ErrUnknownTask}
		}
	}
	var results []RunResult
	total := 0
	for _, r := range runs {
		if opts.TaskID == "" || r.TaskID == opts.TaskID {
			total++
		}
	}
	for i := range runs {
		r := &runs[i]
		if opts.TaskID != "" && r.TaskID != opts.TaskID {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, _ := s.Task(r.TaskID)
		var skip Option
		if opts.NoVerify {
			skip = SkipVerify()
		}
		src := MemorySource(&r.Trace, VerifyEnv(s.Environ(t, r.Workdir, opts.Environ)), VerifyTimeout(opts.VerifyTimeout),
			PatternBudget(opts.PatternBudget), MaxFileSize(opts.MaxFileSize), skip)
		passed, res := t.Check(ctx, src)
		model := r.Model
		if model == "" {
			model = DefaultModel
		}
		rr := RunResult{Run: r.Name, TaskID: r.TaskID, Model: model, HelpMode: r.HelpMode, Passed: passed && r.Error == "",
			Skipped: r.Error == "" && allSkipped(res), Error: r.Error, Assertions: res, Trace: &r.Trace}
		if r.Error != "" {
			rr.Err = errors.New(r.Error)
		}
		results = append(results, rr)
		if opts.OnRun != nil {
			opts.OnRun(results[len(results)-1], len(results), total)
		}
	}
	return summarize(slices.Clip(scope), results, s.Thresholds), nil
}
