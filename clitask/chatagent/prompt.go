package chatagent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assaykit/assay/clitask"
)

// MaxHelp is how many bytes of the CLI's --help the system prompt holds;
// longer help is cut and ends with a note.
const MaxHelp = 16 << 10

// helpTimeout bounds the CLI's --help.
const helpTimeout = 30 * time.Second

// systemPrompt is the default system prompt, then (help mode injected) the
// CLI's help, or (discoverable) where the help is, then the suite's
// system_prompt.
func systemPrompt(a *clitask.Attempt, help string) string {
	cli := a.Suite.CLI
	var b strings.Builder
	fmt.Fprintf(&b, "You are an agent that completes tasks on a computer with the command-line tool %s.\n", cli)
	fmt.Fprintf(&b, "Your working directory is %s.\n", a.Shell.Workdir())
	fmt.Fprintf(&b, "Use the %s tool to run a shell command there: it runs with sh -c and returns the command's exit code, stdout and stderr as JSON. ", ToolName)
	b.WriteString("Run one command at a time and read its result before the next. When the task is done, or cannot be done, answer in plain text, without a tool call.")
	switch a.HelpMode {
	case clitask.HelpInjected:
		fmt.Fprintf(&b, "\n\nThe output of `%s --help`:\n\n```\n%s\n```", cli, strings.TrimRight(help, "\n"))
	case clitask.HelpDiscoverable:
		fmt.Fprintf(&b, "\n\nHelp is available: run `%s --help`, and `%s COMMAND --help` for a command.", cli, cli)
	}
	if s := strings.TrimSpace(a.Suite.SystemPrompt); s != "" {
		b.WriteString("\n\n" + s)
	}
	return b.String()
}

// Help runs `CLI --help` once, as help mode injected needs it: with sh -c,
// stdout and stderr together, with the suite's env over environ (nil: the
// process environment), in a fresh temporary folder prepared as a run's
// working directory is (the scaffold copied in, the suite's setup run: how
// a suite may provide its CLI), removed afterwards. The output is redacted
// as the suite asks (and secrets hidden) and cut at MaxHelp. A help that
// exits non-zero still counts (many CLIs do); one that prints nothing says
// so. The error is for a folder that could not be prepared or a command
// that could not run.
func Help(ctx context.Context, s *clitask.Suite, environ []string, secrets ...string) (string, error) {
	ws, done, err := scratch(ctx, s, nil, environ, helpTimeout)
	if err != nil {
		return "", fmt.Errorf("chatagent: help: %w", err)
	}
	defer done()
	rec, err := clitask.Executor{Dir: ws.Dir, Env: ws.Env, Timeout: helpTimeout, MaxOutput: 4 * MaxHelp}.Run(ctx, s.CLI+" --help 2>&1")
	if err != nil && !errors.Is(err, clitask.ErrTimeout) {
		return "", fmt.Errorf("chatagent: running %q: %w", s.CLI+" --help", err)
	}
	out := rec.Stdout
	if redact := s.Redactor(ws.Env, secrets...); redact != nil {
		out = redact(out)
	}
	if strings.TrimSpace(out) == "" {
		return fmt.Sprintf("(`%s --help` printed nothing; it exited %d)", s.CLI, rec.ExitCode), nil
	}
	return cut(out, MaxHelp), nil
}

// scratch prepares a working directory for task t (nil: no task's own
// setup) in a temporary folder; done removes it.
func scratch(ctx context.Context, s *clitask.Suite, t *clitask.Task, environ []string, timeout time.Duration) (*clitask.Workspace, func(), error) {
	tmp, err := os.MkdirTemp("", "assay-")
	if err != nil {
		return nil, nil, err
	}
	if t == nil {
		t = &clitask.Task{ID: "(help)"}
	}
	ws, err := s.Prepare(ctx, t, clitask.PrepareOptions{Dir: filepath.Join(tmp, "workdir"), Environ: environ, Timeout: timeout})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	return ws, func() { os.RemoveAll(tmp) }, nil
}

// CLIError reports a suite's CLI that is not on the PATH its runs get.
type CLIError struct {
	CLI  string
	Path string // the PATH searched
}

func (e *CLIError) Error() string {
	return fmt.Sprintf("the suite's cli %q is not on the PATH its runs get (%s)", e.CLI, e.Path)
}

// FindCLI checks that the suite's cli (its first word) is a command its runs
// can start, before any model is asked: a path with a slash must name an
// executable file (a relative one in the scaffold, which every working
// directory starts as), a name must be an executable file in a folder of
// PATH as the suite's env over environ sets it, "{{workdir}}" standing for
// the scaffold folder. When that finds nothing and the suite has setup
// commands (which may install the CLI), the first task's working directory
// is prepared (scaffold and setup, with timeout for each) and the CLI looked
// for there; it is then removed. The error is a *CLIError, or a setup's
// error.
func FindCLI(ctx context.Context, s *clitask.Suite, t *clitask.Task, environ []string, timeout time.Duration) error {
	fields := strings.Fields(s.CLI)
	if len(fields) == 0 {
		return &CLIError{CLI: s.CLI}
	}
	name := fields[0]
	scaffold := s.Dir
	if s.Scaffold != "" {
		scaffold = s.Scaffold
		if !filepath.IsAbs(scaffold) {
			scaffold = filepath.Join(s.Dir, scaffold)
		}
	}
	path := pathOf(s.Environ(t, scaffold, environ))
	if lookPath(name, path, scaffold) {
		return nil
	}
	if len(s.Setup) == 0 && (t == nil || len(t.Setup) == 0) {
		return &CLIError{CLI: name, Path: path}
	}
	ws, done, err := scratch(ctx, s, t, environ, timeout)
	if err != nil {
		return err
	}
	defer done()
	path = pathOf(ws.Env)
	if lookPath(name, path, ws.Dir) {
		return nil
	}
	return &CLIError{CLI: name, Path: path}
}

func pathOf(env []string) string {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// lookPath reports whether name is an executable file: as a path
// (relative to dir) when it holds a slash, else in a folder of path
// (relative folders relative to dir).
func lookPath(name, path, dir string) bool {
	executable := func(p string) bool {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	}
	if strings.Contains(name, "/") {
		return executable(name)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if executable(filepath.Join(d, name)) {
			return true
		}
	}
	return false
}
