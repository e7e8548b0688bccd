package clitask

import (
	"context"
	"errors"
	"fmt"
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

// Attempt is one run of a task handed to an Agent.
type Attempt struct {
	Suite *Suite
	Task  *Task
	// Model is the model to use; "" when the runner has none (the run then
	// counts under DefaultModel).
	Model string
	// Repeat is the 0-based repetition of this task and model.
	Repeat int
	// Shell runs commands in the prepared working directory and records
	// them.
	Shell *Shell
}

// Runner runs a suite's tasks with an Agent, evaluates each run and reports
// pass rates per model and the thresholds.
type Runner struct {
	Agent Agent
	// Models are the models to run each task with; nil means the suite's
	// providers, and with none of those, one run set without a model.
	Models []string
	// Concurrency is how many runs go at once; 0 means the suite's
	// concurrency, or 1. Runs in a suite's fixed workdir share it, so they
	// always go one at a time.
	Concurrency int
	// CommandTimeout bounds each setup and shell command, VerifyTimeout
	// each verify; 0 means DefaultTimeout.
	CommandTimeout time.Duration
	VerifyTimeout  time.Duration
	// MaxOutput caps each stream of each command; 0 means DefaultMaxOutput.
	MaxOutput int
	// TempDir is where fresh working directories are made; "" means
	// os.TempDir().
	TempDir string
	// Environ is the base environment; nil means the process environment.
	Environ []string
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
	task   *Task
	model  string
	repeat int
}

// Run runs every task (or the tasks named by taskIDs), each with every
// model, as many times as its repeat (the task's, else the suite's, else
// once), and returns the report, runs in task, model, repeat order. A setup
// failure (a *SetupError) or the end of ctx stops the runner: it returns
// the error along with the report of the runs that completed.
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
			scope = append(scope, t)
		}
	}
	models := r.Models
	if models == nil {
		models = s.Providers
	}
	if len(models) == 0 {
		models = []string{""}
	}
	var jobs []job
	for _, t := range scope {
		n := max(t.Repeat, 1)
		if t.Repeat == 0 && s.Repeat > 0 {
			n = s.Repeat
		}
		for _, m := range models {
			for i := range n {
				jobs = append(jobs, job{task: t, model: m, repeat: i})
			}
		}
	}
	workers := r.Concurrency
	if workers <= 0 {
		workers = max(s.Concurrency, 1)
	}
	if s.Workdir != "" {
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

// runOne prepares the workspace, hands it to the agent, evaluates the run
// and cleans up.
func (r *Runner) runOne(ctx context.Context, s *Suite, j job) (RunResult, error) {
	ws, err := s.Prepare(ctx, j.task, PrepareOptions{TempDir: r.TempDir, Environ: r.Environ, Timeout: r.CommandTimeout})
	if err != nil {
		return RunResult{}, err
	}
	if !r.KeepWorkdirs {
		defer ws.Close()
	}
	sh := NewShell(Executor{Dir: ws.Dir, Env: ws.Env, Timeout: r.CommandTimeout, MaxOutput: r.MaxOutput},
		VerifyTimeout(r.VerifyTimeout), PatternBudget(r.PatternBudget), MaxFileSize(r.MaxFileSize))
	defer sh.Close()
	agentErr := r.Agent.Attempt(ctx, &Attempt{Suite: s, Task: j.task, Model: j.model, Repeat: j.repeat, Shell: sh})
	if err := ctx.Err(); err != nil {
		return RunResult{}, err
	}
	passed, res := j.task.Check(ctx, sh)
	model := j.model
	if model == "" {
		model = DefaultModel
	}
	tr, _ := sh.Trace(context.WithoutCancel(ctx))
	return RunResult{TaskID: j.task.ID, Model: model, Passed: passed && agentErr == nil, Assertions: res,
		Err: agentErr, Trace: s.Redact(tr, ws.Env)}, nil
}

// Redacted replaces what a suite asks to redact.
const Redacted = "[REDACTED]"

// Redact returns a copy of t with the values of the suite's redact_env
// variables (looked up in env, a run's environment) and every match of its
// redact_patterns replaced by Redacted, in command strings and output. A
// pattern match that times out leaves that text as it is.
func (s *Suite) Redact(t *Trace, env []string) *Trace {
	if t == nil || (len(s.RedactEnv) == 0 && len(s.redact) == 0) {
		return t
	}
	var secrets []string
	for _, name := range s.RedactEnv {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name && v != "" {
				secrets = append(secrets, v)
			}
		}
	}
	redact := func(text string) string {
		for _, v := range secrets {
			text = strings.ReplaceAll(text, v, Redacted)
		}
		for _, re := range s.redact {
			if out, err := re.Replace(text, Redacted, -1, -1); err == nil {
				text = out
			}
		}
		return text
	}
	out := &Trace{Workdir: t.Workdir, Commands: make([]Command, len(t.Commands))}
	for i, c := range t.Commands {
		c.Command, c.Stdout, c.Stderr = redact(c.Command), redact(c.Stdout), redact(c.Stderr)
		out.Commands[i] = c
	}
	return out
}
