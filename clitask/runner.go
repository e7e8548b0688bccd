package clitask

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/internal/pool"
)

// Agent is the harness's side of a run: its LLM loop, which works on the
// task through the shell (every command it runs is recorded there). An
// error means the attempt broke down (the model API failed, say); the run
// is still evaluated, and counts as failed.
type Agent interface {
	Attempt(ctx context.Context, a *Attempt) error
}

// AgentFunc adapts a function to Agent.
type AgentFunc func(ctx context.Context, a *Attempt) error

// Attempt calls f.
func (f AgentFunc) Attempt(ctx context.Context, a *Attempt) error { return f(ctx, a) }

// The help modes of a suite's help_modes: what the agent is told about the
// CLI's help.
const (
	// HelpInjected puts the output of the CLI's --help in the prompt.
	HelpInjected = "injected"
	// HelpDiscoverable says the help commands exist.
	HelpDiscoverable = "discoverable"
	// HelpNone says neither.
	HelpNone = "none"
)

// ErrRunTimeout is the cause of the context an attempt gets when it reaches
// Runner.RunTimeout (context.Cause returns it): the agent stops, and the
// run is judged on what it did.
var ErrRunTimeout = errors.New("the run reached its timeout")

// How a run was cut short (RunResult.Stopped): the agent did not finish,
// and the run is judged on what it did.
const (
	// StoppedTimeout: the attempt reached Runner.RunTimeout.
	StoppedTimeout = "timeout"
	// StoppedMaxTurns: the agent made the model calls the task's max_turns
	// (or its own limit) allows, and the model was not done.
	StoppedMaxTurns = "max_turns"
)

// Attempt is one run of a task handed to an Agent.
type Attempt struct {
	Suite *Suite
	Task  *Task
	// Model is the model to use; "" when the runner has none (the run then
	// counts under DefaultModel).
	Model string
	// HelpMode is the run's help mode: HelpInjected, HelpDiscoverable or
	// HelpNone (or what else the suite lists).
	HelpMode string
	// Repeat is the 0-based repetition of this task and model.
	Repeat int
	// Run is the run's name (see RunName).
	Run string
	// Shell runs commands in the prepared working directory and records
	// them.
	Shell *Shell
	// Usage is for the agent to fill: the model calls it made and the
	// tokens they took. The Runner adds the wall time and reports it.
	Usage Usage
	// Stopped is for the agent to set when it stopped before its model was
	// done: StoppedMaxTurns. The Runner sets StoppedTimeout when the
	// attempt reached RunTimeout. It becomes RunResult.Stopped.
	Stopped string

	redact func(string) string
}

// Redact returns text with what the run's report hides hidden: the values
// of the suite's redact_env variables in the run's environment, matches of
// its redact_patterns, and the Runner's Secrets. An agent passes what it
// shows its model through it.
func (a *Attempt) Redact(text string) string {
	if a.redact == nil {
		return text
	}
	return a.redact(text)
}

// Runner runs a suite's tasks with an Agent, evaluates each run and reports
// pass rates per model and the thresholds.
type Runner struct {
	Agent Agent
	// Models are the models to run each task with; nil means the suite's
	// providers, and with none of those, one run set without a model.
	Models []string
	// HelpModes are the help modes to run each task in; nil means the
	// suite's help_modes, and with none of those, HelpInjected.
	HelpModes []string
	// Concurrency is how many runs go at once; 0 means the suite's
	// concurrency, or 1. Runs in a suite's fixed workdir share it, so they
	// always go one at a time.
	Concurrency int
	// CommandTimeout bounds each setup and shell command, VerifyTimeout
	// each verify; 0 means DefaultTimeout.
	CommandTimeout time.Duration
	VerifyTimeout  time.Duration
	// RunTimeout, when not 0, bounds each attempt: its context then ends,
	// with ErrRunTimeout as its cause, and the run is judged on what it
	// did.
	RunTimeout time.Duration
	// MaxOutput caps each stream of each command; 0 means DefaultMaxOutput.
	MaxOutput int
	// TempDir is where fresh working directories are made; "" means
	// os.TempDir().
	TempDir string
	// Workdirs, when set, is the folder each run works in a folder of its
	// own, named by RunName (Workdirs/0007-add-entry), made fresh and kept
	// after the run, the suite's workdir notwithstanding; RunResult.Run
	// names it.
	Workdirs string
	// Environ is the base environment; nil means the process environment.
	Environ []string
	// Secrets are values hidden like redact_env's in traces, errors and
	// what Attempt.Redact returns (a model API key, say).
	Secrets []string
	// KeepWorkdirs leaves fresh working directories in place (for
	// debugging); by default each is removed after its run is evaluated.
	KeepWorkdirs bool
	// PatternBudget bounds each ran, not_ran and run_count check; 0 means
	// DefaultPatternBudget.
	PatternBudget time.Duration
	// MaxFileSize caps the file each file_contains reads; 0 means
	// check.DefaultMaxFileSize.
	MaxFileSize int64
	// OnRun, when set, is called with each run's result as soon as it is
	// judged (in the order runs finish), with how many are done and how
	// many there are. Calls never overlap.
	OnRun func(r RunResult, done, total int)
}

// job is one run to make.
type job struct {
	task     *Task
	model    string
	helpMode string
	repeat   int
	name     string
}

// RunName is the name of the run at 0-based position index in run order,
// for task id: the 1-based position, four digits or more, "-", and the id
// with every byte outside [A-Za-z0-9._-] as "_" ("0007-add-entry"). Ids
// over 200 bytes are cut there, so that the name is a file name anywhere.
func RunName(index int, id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return fmt.Sprintf("%04d-%s", index+1, b[:min(len(b), 200)])
}

// Run runs every task (or the tasks named by taskIDs), each with every
// model in every help mode, as many times as its repeat (the task's, else
// the suite's, else once), and returns the report, runs in task, model,
// help mode, repeat order. A setup failure (a *SetupError) or the end of
// ctx stops the runner: it returns the error along with the report of the
// runs that completed.
func (r *Runner) Run(ctx context.Context, s *Suite, taskIDs ...string) (*Report, error) {
	if r.Agent == nil {
		return nil, errors.New("clitask: Runner has no Agent")
	}
	scope := s.Tasks
	if len(taskIDs) > 0 {
		scope = nil
		for _, id := range taskIDs {
			t, ok := s.Task(id)
			if !ok {
				return nil, fmt.Errorf("task %q: %w", id, ErrUnknownTask)
			}
			if !slices.Contains(scope, t) {
				scope = append(scope, t)
			}
		}
	}
	jobs := r.jobs(s, scope)
	workers := r.Concurrency
	if workers <= 0 {
		workers = max(s.Concurrency, 1)
	}
	if s.Workdir != "" && r.Workdirs == "" {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]RunResult, len(jobs))
	done := make([]bool, len(jobs))
	var (
		mu       sync.Mutex
		firstErr error
		finished int
	)
	pool.Each(ctx, len(jobs), workers, func(i int) {
		res, err := r.runOne(ctx, s, jobs[i])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			cancel()
			return
		}
		results[i], done[i] = res, true
		finished++
		if r.OnRun != nil {
			r.OnRun(res, finished, len(jobs))
		}
	})
	var completed []RunResult
	for i, ok := range done {
		if ok {
			completed = append(completed, results[i])
		}
	}
	rep := summarize(scope, completed, s.Thresholds)
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return rep, firstErr
}

// jobs lists the runs to make, in run order, named.
func (r *Runner) jobs(s *Suite, scope []*Task) []job {
	models := r.Models
	if models == nil {
		models = s.Providers
	}
	if len(models) == 0 {
		models = []string{""}
	}
	modes := r.HelpModes
	if modes == nil {
		modes = s.HelpModes
	}
	if len(modes) == 0 {
		modes = []string{HelpInjected}
	}
	var jobs []job
	for _, t := range scope {
		n := max(t.Repeat, 1)
		if t.Repeat == 0 && s.Repeat > 0 {
			n = s.Repeat
		}
		for _, m := range models {
			for _, mode := range modes {
				for i := range n {
					jobs = append(jobs, job{task: t, model: m, helpMode: mode, repeat: i, name: RunName(len(jobs), t.ID)})
				}
			}
		}
	}
	return jobs
}

// runOne prepares the workspace, hands it to the agent, evaluates the run
// and cleans up.
func (r *Runner) runOne(ctx context.Context, s *Suite, j job) (RunResult, error) {
	opts := PrepareOptions{TempDir: r.TempDir, Environ: r.Environ, Timeout: r.CommandTimeout}
	if r.Workdirs != "" {
		opts.Dir = filepath.Join(r.Workdirs, j.name)
	}
	ws, err := s.Prepare(ctx, j.task, opts)
	if err != nil {
		return RunResult{}, err
	}
	if !r.KeepWorkdirs {
		defer ws.Close()
	}
	sh := NewShell(Executor{Dir: ws.Dir, Env: ws.Env, Timeout: r.CommandTimeout, MaxOutput: r.MaxOutput},
		VerifyTimeout(r.VerifyTimeout), PatternBudget(r.PatternBudget), MaxFileSize(r.MaxFileSize))
	defer sh.Close()
	redact := s.Redactor(ws.Env, r.Secrets...)
	a := &Attempt{Suite: s, Task: j.task, Model: j.model, HelpMode: j.helpMode, Repeat: j.repeat, Run: j.name, Shell: sh, redact: redact}
	attemptCtx, stop := ctx, context.CancelFunc(func() {})
	if r.RunTimeout > 0 {
		attemptCtx, stop = context.WithTimeoutCause(ctx, r.RunTimeout, ErrRunTimeout)
	}
	start := time.Now()
	agentErr := r.Agent.Attempt(attemptCtx, a)
	if attemptCtx.Err() != nil && errors.Is(context.Cause(attemptCtx), ErrRunTimeout) && ctx.Err() == nil {
		a.Stopped = StoppedTimeout
	}
	stop()
	a.Usage.WallMS = time.Since(start).Milliseconds()
	if err := ctx.Err(); err != nil {
		return RunResult{}, err
	}
	passed, res := j.task.Check(ctx, sh)
	model := j.model
	if model == "" {
		model = DefaultModel
	}
	tr, _ := sh.Trace(context.WithoutCancel(ctx))
	out := RunResult{TaskID: j.task.ID, Model: model, HelpMode: j.helpMode, Passed: passed && agentErr == nil, Assertions: res,
		Err: agentErr, Trace: redactTrace(tr, redact), Usage: &a.Usage, Stopped: a.Stopped}
	if agentErr != nil {
		out.Error = a.Redact(agentErr.Error())
	}
	if r.Workdirs != "" {
		out.Run = j.name
	}
	return out, nil
}

// Redacted replaces what a suite asks to redact.
const Redacted = "[REDACTED]"

// Redact returns a copy of t with the values of the suite's redact_env
// variables (looked up in env, a run's environment) and every match of its
// redact_patterns replaced by Redacted, in command strings and output. A
// pattern match that times out leaves that text as it is.
func (s *Suite) Redact(t *Trace, env []string) *Trace {
	return redactTrace(t, s.Redactor(env))
}

// Redactor returns what Redact does to each text: the values of the
// suite's redact_env variables in env and the secrets given (longest
// first, so that one that holds another is not left half written), then
// every match of its redact_patterns, replaced by Redacted.
func (s *Suite) Redactor(env []string, secrets ...string) func(string) string {
	var values []string
	for _, v := range secrets {
		if v != "" {
			values = append(values, v)
		}
	}
	for _, name := range s.RedactEnv {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name && v != "" {
				values = append(values, v)
			}
		}
	}
	if len(values) == 0 && len(s.redact) == 0 {
		return nil
	}
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	return func(text string) string {
		for _, v := range values {
			text = strings.ReplaceAll(text, v, Redacted)
		}
		for _, re := range s.redact {
			if out, err := re.Replace(text, Redacted, -1, -1); err == nil {
				text = out
			}
		}
		return text
	}
}

// redactTrace returns a copy of t with redact applied to its command
// strings and output; t itself when redact is nil.
func redactTrace(t *Trace, redact func(string) string) *Trace {
	if t == nil || redact == nil {
		return t
	}
	out := &Trace{Workdir: t.Workdir, Commands: make([]Command, len(t.Commands))}
	for i, c := range t.Commands {
		c.Command, c.Stdout, c.Stderr = redact(c.Command), redact(c.Stdout), redact(c.Stderr)
		out.Commands[i] = c
	}
	return out
}
