package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/clitask/chatagent"
	"github.com/assaykit/assay/internal/jsonenc"
	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/report"
)

// The environment assay run reads: base URL and key, each the first set.
var (
	runBaseURLEnv = []string{"ASSAY_LLM_BASE_URL", "OPENAI_BASE_URL"}
	runKeyEnv     = []string{"ASSAY_LLM_API_KEY", "AI_GATEWAY_API_KEY", "OPENAI_API_KEY"}
)

// defaultRunTimeout bounds each run unless --timeout says otherwise.
const defaultRunTimeout = 10 * time.Minute

func init() {
	register("run", subcommand{summary: "run a cli-bench suite with models through a Chat Completions API",
		usage: "assay run --suite FILE [--model M]... [--task ID]... [--base-url URL] [--out DIR] [--concurrency N] [--timeout D] [--format text|json|junit] [--no-color]",
		run:   runRun})
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

var _ flag.Value = (*stringList)(nil)

// runOptions is what assay run was asked to do.
type runOptions struct {
	suite       *clitask.Suite
	models      []string
	tasks       []string
	baseURL     string
	key         string
	out         string
	concurrency int
	timeout     time.Duration
	format      report.Format
	noColor     bool
}

func runRun(ctx context.Context, c *cli, args []string) int {
	handed, err := c.handedKey()
	if err != nil {
		return c.badInput("run: %v", err)
	}
	o, code, ok := c.runFlags(args, handed)
	if !ok {
		return code
	}
	if o.key != "" && c.ownsProcess {
		if err := guardProcess(); err != nil {
			c.eprintf("run: warning: %v", err)
		}
	}
	environ := runEnviron(os.Environ(), o.key)
	modes := o.suite.HelpModes
	if len(modes) == 0 {
		modes = []string{clitask.HelpInjected}
	}
	// Before any model is asked: the CLI, and its help when a mode needs it.
	first := o.suite.Tasks[0]
	if len(o.tasks) > 0 {
		first, _ = o.suite.Task(o.tasks[0])
	}
	if err := chatagent.FindCLI(ctx, o.suite, first, environ, 0); err != nil {
		return c.badInput("run: %s", redactKey(err.Error(), o.key))
	}
	var help string
	if slices.Contains(modes, clitask.HelpInjected) {
		var err error
		if help, err = chatagent.Help(ctx, o.suite, environ, o.key); err != nil {
			return c.badInput("run: %s", redactKey(err.Error(), o.key))
		}
	}
	var out *runOut
	if o.out != "" {
		out = &runOut{dir: o.out, key: o.key}
	}
	cfg := chatagent.Config{BaseURL: o.baseURL, APIKey: o.key, Help: help}
	if out != nil {
		cfg.OnConversation = out.conversation
	}
	agent, err := chatagent.New(cfg)
	if err != nil {
		return c.badInput("run: --base-url: %s", redactKey(err.Error(), o.key))
	}
	runner := &clitask.Runner{Agent: agent, Models: o.models, HelpModes: modes, Concurrency: o.concurrency,
		RunTimeout: o.timeout, Environ: environ, Secrets: []string{o.key}}
	if out != nil {
		runner.Workdirs = filepath.Join(o.out, "workdirs")
	}
	// Text streams each run as it is judged, once the server has been
	// reached (a server no run reaches gets no report, only exit 2).
	opts := c.textOptions(o.noColor)
	progress := newProgress(c.stderr, 0, "runs done")
	stream := &runStream{w: c.stdout, name: report.RunNamer(), opts: opts}
	runner.OnRun = func(r clitask.RunResult, done, total int) {
		progress.pause()
		if o.format == report.Text {
			stream.add(r, agent.Reached())
		}
		progress.stepOf(done, total, !r.Passed)
	}
	// Model calls are slow: the line's clock is redrawn every second
	// between runs.
	progress.tick(time.Second)
	result, runErr := runner.Run(ctx, o.suite, o.tasks...)
	progress.done()
	if out != nil && result != nil {
		if err := errors.Join(out.writeTrace(result), out.err()); err != nil {
			c.eprintf("run: --out: %v", err)
			return exitUsage
		}
	}
	interrupted := runErr != nil && ctx.Err() != nil
	switch {
	case runErr != nil && !interrupted:
		return c.badInput("run: %s", redactKey(runErr.Error(), o.key))
	case !interrupted && len(result.Runs) > 0 && !agent.Reached():
		why := "no model call was made"
		if err := agent.Unreachable(); err != nil {
			why = err.Error()
		}
		return c.badInput("%s", redactKey(fmt.Sprintf("run: no run could reach the model server at %s: %s", agent.Endpoint(), why), o.key))
	}
	if o.format == report.Text {
		err = errors.Join(stream.flush(), report.WriteSuiteSummaryText(c.stdout, result, opts))
	} else {
		err = report.WriteSuite(c.stdout, o.format, result, opts)
	}
	if err != nil {
		c.eprintf("run: writing output: %v", err)
		return exitUsage
	}
	if interrupted {
		c.eprintf("run: interrupted: %v", ctx.Err())
		return exitFail
	}
	return c.suiteExit("run", o.suite, result, len(o.tasks) == 0)
}

// runStream writes runs as they are judged, holding them back until the
// model server has been reached.
type runStream struct {
	w       io.Writer
	name    func(clitask.RunResult) string
	opts    report.Options
	pending []clitask.RunResult
	err     error
}

// add writes r, and the runs held back before it, or holds it back.
func (s *runStream) add(r clitask.RunResult, reached bool) {
	s.pending = append(s.pending, r)
	if reached {
		s.flush()
	}
}

// flush writes the runs held back.
func (s *runStream) flush() error {
	for _, r := range s.pending {
		if s.err == nil {
			s.err = report.WriteSuiteRunText(s.w, s.name(r), r, s.opts)
		}
	}
	s.pending = nil
	return s.err
}

// runFlags reads and checks assay run's flags. ok is false when the
// command must stop with code. handed is the key a re-executed assay run
// was handed, "" when it was not (the key is then the environment's).
func (c *cli) runFlags(args []string, handed string) (o runOptions, code int, ok bool) {
	fs := newFlags("run", c)
	suitePath := fs.String("suite", "", "cli-bench suite `FILE` (cli-bench.yaml)")
	var models, tasks stringList
	fs.Var(&models, "model", "a `model` to run every task with, sent as written (repeatable; wins over the suite's providers)")
	fs.Var(&tasks, "task", "run only the task with this `ID` (repeatable)")
	baseURL := fs.String("base-url", "", "the Chat Completions API's base `URL` (\"http://127.0.0.1:8000/v1\"; else $ASSAY_LLM_BASE_URL, else $OPENAI_BASE_URL)")
	outDir := fs.String("out", "", "write `DIR`/trace.json, DIR/conversations/RUN.json and each run's working directory, DIR/workdirs/RUN")
	concurrency := fs.Int("concurrency", 0, "how many runs go at once, `N` >= 1 (default: the suite's concurrency, else 1)")
	timeout := fs.Duration("timeout", defaultRunTimeout, "bound each run to `D`uration; a run that reaches it is judged on what it did")
	formatName := fs.String("format", "text", "output `format`: text, json or junit")
	noColor := fs.Bool("no-color", false, "never colour the text output (NO_COLOR does the same)")
	rest, parsed := parseFlags(fs, c, args)
	if !parsed {
		return o, exitUsage, false
	}
	fail := func(format string, args ...any) (runOptions, int, bool) {
		return o, c.badInput(format, args...), false
	}
	var err error
	if o.format, err = report.ParseFormat(*formatName, report.Text, report.JSON, report.JUnit); err != nil {
		return fail("run: --format: %v", err)
	}
	switch {
	case len(rest) > 0:
		return fail("run: unexpected arguments %s", quoteList(rest))
	case *suitePath == "":
		return fail("run: --suite FILE is required")
	case *concurrency < 0:
		return fail("run: --concurrency must be 1 or more, not %d", *concurrency)
	case *timeout <= 0:
		return fail("run: --timeout must be a positive duration, not %s", *timeout)
	}
	o.key = handed
	if o.key == "" {
		o.key = firstEnv(c.getenv, runKeyEnv)
	}
	o.baseURL = *baseURL
	if o.baseURL == "" {
		o.baseURL = firstEnv(c.getenv, runBaseURLEnv)
	}
	if o.baseURL == "" {
		return fail("run: no model server: give --base-url URL, or set %s", strings.Join(runBaseURLEnv, " or "))
	}
	suite, loaded := c.loadSuite("run", *suitePath)
	if !loaded {
		return o, exitUsage, false
	}
	o.suite, o.tasks, o.models = suite, tasks, models
	if len(o.models) == 0 {
		o.models = suite.Providers
	}
	if len(o.models) == 0 {
		return fail("run: no model: give --model M, or list providers in %s", *suitePath)
	}
	for _, id := range tasks {
		if _, ok := suite.Task(id); !ok {
			return fail("run: --task: task %q: %v (the suite's tasks: %s)", id, clitask.ErrUnknownTask, taskList(suite))
		}
	}
	o.concurrency, o.timeout, o.noColor = *concurrency, *timeout, *noColor
	// The usage is good: before anything is written or run, the key
	// leaves the process's environment image (hideKey returns only when
	// it could not).
	if handed == "" && o.key != "" && c.ownsProcess {
		if err := hideKey(o.key); err != nil {
			c.eprintf("run: warning: the key stays in this process's environment, which the runs' commands may read: %v", err)
		}
	}
	if *outDir != "" {
		if err := prepareOut(*outDir); err != nil {
			return fail("run: --out: %v", err)
		}
		o.out = *outDir
	}
	return o, exitOK, true
}

// firstEnv returns the value of the first of names that is set.
func firstEnv(getenv func(string) string, names []string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// runEnviron is the environment the runs' commands get: the process's,
// without any variable that holds the model's key (so that no command an
// agent runs can print it, however encoded).
func runEnviron(environ []string, key string) []string {
	if key == "" {
		return environ
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if _, v, _ := strings.Cut(kv, "="); v != key {
			out = append(out, kv)
		}
	}
	return out
}

// redactKey replaces the key in s, as written and as JSON and URLs escape
// it, with [REDACTED].
func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(origin.Redact(s, key), key, clitask.Redacted)
}

// prepareOut makes the --out folder, which must not hold an earlier run.
func prepareOut(dir string) error {
	for _, name := range []string{"trace.json", "workdirs", "conversations"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("%s already holds %s from an earlier run: choose another folder, or remove it", dir, name)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "conversations"), 0o755); err != nil {
		return err
	}
	return nil
}

// runOut writes what --out keeps.
type runOut struct {
	dir, key string
	mu       sync.Mutex
	first    error
}

// conversation writes conversations/RUN.json.
func (o *runOut) conversation(_ *clitask.Attempt, conv *chatagent.Conversation) {
	err := writeJSONFile(filepath.Join(o.dir, "conversations", conv.Run+".json"), conv, o.key)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil && o.first == nil {
		o.first = err
	}
}

func (o *runOut) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.first
}

// writeTrace writes trace.json: every run, in the form assay check --trace
// reads, its workdir relative to the file.
func (o *runOut) writeTrace(rep *clitask.Report) error {
	runs := make([]clitask.Run, 0, len(rep.Runs))
	for _, r := range rep.Runs {
		tr := clitask.Trace{Workdir: "workdirs/" + r.Run, Commands: []clitask.Command{}}
		if r.Trace != nil && r.Trace.Commands != nil {
			tr.Commands = r.Trace.Commands
		}
		runs = append(runs, clitask.Run{Name: r.Run, TaskID: r.TaskID, Model: r.Model, HelpMode: r.HelpMode, Error: r.Error, Trace: tr})
	}
	return writeJSONFile(filepath.Join(o.dir, "trace.json"), map[string]any{"runs": runs}, o.key)
}

// writeJSONFile writes v as indented JSON, the key (if any slipped
// through) redacted.
func writeJSONFile(path string, v any, key string) error {
	var b strings.Builder
	if err := jsonenc.Write(&b, v, true); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(redactKey(b.String(), key)), 0o644)
}
