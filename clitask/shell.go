package clitask

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Shell is a recording shell for harnesses: it runs the commands an agent
// asks for (sh -c, in the task's working directory, with the task's
// environment and a timeout) and appends each to its trace. It is also the
// task's Source, so the checks read what it recorded and verify runs through
// the same executor. A Shell is safe for concurrent use; commands are
// recorded in the order they finish.
//
// Processes a command leaves running in the background (a dev server, say)
// live on until Close, which ends them: with a child subreaper (see
// BecomeSubreaper) every process the shell's commands started, new
// sessions included; without, the processes of their process groups.
type Shell struct {
	exec Executor
	opts options
	tag  string

	mu       sync.Mutex
	commands []Command
	groups   []int
	closed   bool
}

// ErrShellClosed is returned by Run after Close.
var ErrShellClosed = errors.New("clitask: shell is closed")

// NewShell returns a shell that runs commands with e (e.Dir is the working
// directory). Of the options, VerifyTimeout, PatternBudget and MaxFileSize
// apply; verify runs with e's environment.
func NewShell(e Executor, opts ...Option) *Shell {
	return &Shell{exec: e, opts: newOptions(opts), tag: newTag()}
}

// Workdir returns the working directory.
func (s *Shell) Workdir() string { return s.exec.Dir }

// Run runs command, records it and returns its record. The error is as
// Executor.Run's; a command that started is recorded even when it timed out
// or was cancelled. A command that could not start is not recorded.
func (s *Shell) Run(ctx context.Context, command string) (Command, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return Command{Command: command}, ErrShellClosed
	}
	c, pgid, err := s.exec.run(ctx, command, runSpec{tag: s.tag, note: true})
	if pgid == 0 {
		return c, err
	}
	s.mu.Lock()
	s.commands = append(s.commands, c)
	closed = s.closed
	if !closed {
		s.groups = append(s.groups, pgid)
	}
	s.mu.Unlock()
	if closed {
		// Close ran meanwhile: what this command left must go too.
		endShell(s.tag, []int{pgid})
	}
	return c, err
}

// Trace returns a copy of what the shell recorded so far. It fails only
// when ctx has ended.
func (s *Shell) Trace(ctx context.Context) (*Trace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Trace{Workdir: s.exec.Dir, Commands: slices.Clone(s.commands)}, nil
}

// Verify runs command in the working directory with the shell's environment
// and timeout, without recording it, and ends every process it left behind
// (not those of the recorded commands) before returning.
func (s *Shell) Verify(ctx context.Context, command string) (Command, error) {
	e := s.exec
	if s.opts.verifyTimeout > 0 {
		e.Timeout = s.opts.verifyTimeout
	}
	return e.verify(ctx, command)
}

func (s *Shell) limits() limits { return s.opts.limits() }

// Close ends every process the recorded commands left running, so nothing
// an agent started outlives the task, and makes later Runs fail. It never
// signals a process the shell did not start.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	groups := s.groups
	s.groups = nil
	s.mu.Unlock()
	endShell(s.tag, groups)
	return nil
}
