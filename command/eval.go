package command

import (
	"context"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/sandbox"
)

func init() {
	register("eval", subcommand{
		summary: "evaluate criteria against a sandbox snapshot, or against every run of a benchmark",
		usage: "assay eval --criteria FILE --sandbox DIR [--entity ID] [--format text|json|junit|html]\n" +
			"       assay eval --runs DIR [--criteria FILE] [--shard K/N] [--summary] [--format text|json|junit|jsonl|html]\n" +
			"       assay eval --merge [--summary] [--format text|json|junit|jsonl|html] FILE.jsonl...",
		run: runEval,
	})
}

// evalFlags are the flags of assay eval.
type evalFlags struct {
	criteria, sandbox, runs, shard, entity string
	judgeURL, judgeModel                   string
	merge, noColor, summary                bool
	maxFileSize, maxTotalSize              int64
	format                                 string
	timeout                                time.Duration
	criterionPattern                       string
	kinds                                  listFlag
}

// listFlag is a flag that may be given several times, each time with one
// value or a comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

func runEval(ctx context.Context, c *cli, args []string) int {
	var f evalFlags
	fs := newFlags("eval", c)
	fs.StringVar(&f.criteria, "criteria", "", "criteria `FILE`: a list of criteria or a list response {\"data\": [...]}, in JSON or YAML; with --runs, one file for every run")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox snapshot `DIR`")
	fs.StringVar(&f.runs, "runs", "", "evaluate every run folder under `DIR` (each holds sandbox/ and, without --criteria, criteria.json) and print the benchmark")
	fs.StringVar(&f.shard, "shard", "", "with --runs, take only the runs whose position in name order modulo N is K (`K/N`)")
	fs.BoolVar(&f.merge, "merge", false, "merge the JSON lines that --format jsonl wrote (the files are the arguments) into one benchmark")
	fs.StringVar(&f.entity, "entity", "", "the input entity `ID` this rollout was run for: only its criteria (and unscoped ones) run; wins over sandbox/run.json")
	fs.StringVar(&f.format, "format", "text", "output `format`: text, json, junit, html (one self-contained page), or jsonl (with --runs or --merge)")
	fs.BoolVar(&f.summary, "summary", false, "with --runs or --merge, print only the benchmark (text, json, junit, html)")
	fs.StringVar(&f.criterionPattern, "criterion", "", "evaluate only the criteria whose id or label matches this regular expression (`PATTERN`)")
	fs.Var(&f.kinds, "kind", "evaluate only the criteria of this kind `K` (repeat, or separate with commas)")
	fs.BoolVar(&f.noColor, "no-color", false, "never colour the text output (NO_COLOR does the same)")
	fs.Int64Var(&f.maxFileSize, "max-file-size", check.DefaultMaxFileSize, "the most `BYTES` read from one evidence or input file")
	fs.Int64Var(&f.maxTotalSize, "max-total-size", check.DefaultMaxTotalSize, "the most `BYTES` one evidence source reads in all (a folder's files, a FHIR search's pages)")
	fs.StringVar(&f.judgeURL, "judge-url", "", "OpenAI-compatible base `URL` for the voice matcher's LLM judge (default $ASSAY_JUDGE_URL)")
	fs.StringVar(&f.judgeModel, "judge-model", "", "`model` for the LLM judge (default $ASSAY_JUDGE_MODEL)")
	fs.DurationVar(&f.timeout, "timeout", DefaultEvalTimeout, "bound each evaluation (per run with --runs) to `D`: checks unfinished then report an error, and the report is still printed")
	rest, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	format, err := report.ParseFormat(f.format)
	if err != nil {
		return c.badInput("eval: --format: %v", err)
	}
	if f.timeout <= 0 {
		return c.badInput("eval: --timeout must be a positive duration, not %s", f.timeout)
	}
	sel, err := newSelection(f.criterionPattern, f.kinds, c.registry)
	if err != nil {
		return c.badInput("eval: %v", err)
	}
	if f.summary && f.runs == "" && !f.merge {
		return c.badInput("eval: --summary needs --runs or --merge")
	}
	if f.summary && format == report.JSONL {
		return c.badInput("eval: --summary goes with --format text, json, junit or html")
	}
	switch {
	case f.merge:
		if f.runs != "" || f.sandbox != "" || f.criteria != "" || f.shard != "" {
			return c.badInput("eval: --merge takes only JSON-lines files (and --format)")
		}
		if sel != nil {
			return c.badInput("eval: --merge judges nothing: --criterion and --kind apply when runs are judged")
		}
		return c.evalMerge(rest, format, f)
	case len(rest) > 0:
		return c.badInput("eval: unexpected arguments %s", quoteList(rest))
	case f.runs != "" && f.sandbox != "":
		return c.badInput("eval: --runs and --sandbox cannot be used together")
	case f.runs != "":
		return c.evalRuns(ctx, format, f, sel)
	case format == report.JSONL:
		return c.badInput("eval: --format jsonl needs --runs or --merge")
	case f.shard != "":
		return c.badInput("eval: --shard needs --runs")
	case f.criteria == "":
		return c.badInput("eval: --criteria FILE is required")
	case f.sandbox == "":
		return c.badInput("eval: --sandbox DIR is required")
	}
	criteria, err := c.readCriteria(f.criteria, f.maxFileSize)
	if err != nil {
		return c.badInput("eval: %v", err)
	}
	plan, err := c.registry.Compile(criteria)
	if err != nil {
		return c.badInput("eval: %s: %v", f.criteria, err)
	}
	if err := sel.check(criteria); err != nil {
		return c.badInput("eval: %s: %v", f.criteria, err)
	}
	// run.json and the warning read the snapshot through one open folder.
	snapshot := check.DirFS(f.sandbox)
	entity := f.entity
	if entity == "" {
		if entity, err = readRunEntity(snapshot, f.sandbox, f.maxFileSize); err != nil {
			return c.badInput("eval: %v", err)
		}
	}
	env, err := c.loadSandbox(f.sandbox, f)
	if err != nil {
		return c.badInput("eval: %v", err)
	}
	defer env.Close()
	c.warnSandbox(snapshot, f.sandbox)
	if w := assert.ScopeWarning(criteria, entity); w != "" {
		c.eprintf("eval: warning: %s", w)
	}
	evalCtx, cancel := withEvalTimeout(ctx, f.timeout)
	defer cancel()
	result, err := plan.Evaluate(evalCtx, env, assert.WithEntity(entity), sel.option())
	if err != nil && evalCtx.Err() == nil {
		return c.badInput("eval: %s: %v", f.criteria, err)
	}
	if result.Counts.Skipped > 0 {
		from := "--entity"
		if f.entity == "" {
			from = filepath.Join(f.sandbox, "run.json")
		}
		c.eprintf("eval: %d of %d criteria skipped: scoped to another input entity than %q (from %s)",
			result.Counts.Skipped, len(criteria), result.Entity, from)
	}
	if err := report.WriteTask(c.stdout, format, result, c.textOptions(f.noColor)); err != nil {
		return c.badInput("eval: writing output: %v", err)
	}
	if ctx.Err() != nil {
		c.eprintf("eval: interrupted: %v", ctx.Err())
		return exitFail
	}
	if evalCtx.Err() != nil {
		c.eprintf("eval: warning: %v; the checks unfinished then report an error", context.Cause(evalCtx))
	}
	return exitForVerdict(result.Verdict)
}

// DefaultEvalTimeout bounds one evaluation of assay eval (per run with
// --runs) unless --timeout says otherwise.
const DefaultEvalTimeout = 10 * time.Minute

// withEvalTimeout bounds an evaluation to d; the checks cut short say
// "evaluation timed out after D".
func withEvalTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("evaluation timed out after %s", d))
}

func exitForVerdict(v assert.Verdict) int {
	if v == assert.VerdictPass {
		return exitOK
	}
	return exitFail
}

func (c *cli) textOptions(noColor bool) report.Options {
	return report.Options{Color: report.ColorFor(c.stdout, noColor, c.getenv)}
}

// readCriteria reads a criteria file named on the command line: a regular
// file under the cap, parsed strictly.
func (c *cli) readCriteria(path string, limit int64) ([]assert.Criterion, error) {
	data, err := readInputFile(path, limit)
	if err != nil {
		return nil, err
	}
	return parseCriteriaFile(path, data)
}

// parseCriteriaFile parses a criteria file's bytes strictly; errors name
// the file.
// A file named .yaml or .yml, or whose content does not begin as JSON
// does, is read as YAML; a YAML file's problems give line and column.
func parseCriteriaFile(path string, data []byte) ([]assert.Criterion, error) {
	var criteria []assert.Criterion
	var err error
	if assert.IsYAMLCriteria(path, data) {
		criteria, err = assert.ParseCriteriaYAML(data)
	} else {
		criteria, err = assert.ParseCriteria(data)
	}
	if err != nil {
		return nil, locatedError(path, err)
	}
	return criteria, nil
}

// locatedError words a criteria file's problems with the file's name, as
// FILE:LINE:COLUMN: POINTER: MESSAGE where a line is known, else FILE:
// POINTER: MESSAGE.
func locatedError(path string, err error) error {
	var list assert.CriteriaErrors
	if !errors.As(err, &list) {
		return fmt.Errorf("%s: %w", path, err)
	}
	parts := make([]string, len(list))
	for i, ce := range list {
		if ce.Line > 0 {
			parts[i] = path + ":" + ce.Error()
		} else {
			parts[i] = path + ": " + ce.Error()
		}
	}
	return fmt.Errorf("%s", strings.Join(parts, "; "))
}

// readRunEntity reads the input entity a snapshot on disk names in
// run.json, or "" when it has none.
func readRunEntity(snapshot fs.FS, dir string, limit int64) (string, error) {
	id, err := sandbox.RunEntity(snapshot, limit)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return id, nil
}

func (c *cli) loadSandbox(dir string, f evalFlags) (*assert.Env, error) {
	opts := sandbox.Options{JudgeURL: f.judgeURL, JudgeModel: f.judgeModel, MaxFileSize: f.maxFileSize, MaxTotalSize: f.maxTotalSize}
	if opts.JudgeURL == "" {
		opts.JudgeURL = c.getenv("ASSAY_JUDGE_URL")
	}
	if opts.JudgeModel == "" {
		opts.JudgeModel = c.getenv("ASSAY_JUDGE_MODEL")
	}
	opts.JudgeAPIKey = c.getenv("ASSAY_JUDGE_API_KEY")
	env, err := sandbox.Load(dir, opts)
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil, fmt.Errorf("--sandbox %s: the folder does not exist", dir)
	}
	return env, err
}

// warnSandbox warns when a snapshot holds none of the evidence folders: a
// misconfiguration that would otherwise read as "the agent failed".
func (c *cli) warnSandbox(snapshot fs.FS, dir string) {
	if len(sandbox.Present(snapshot)) == 0 {
		c.eprintf("eval: warning: %s holds none of the evidence folders %s; every check that needs evidence will report an error",
			dir, strings.Join(sandbox.Folders(), ", "))
	}
}

// readInputFile reads a file named on the command line: it must be a
// regular file (a FIFO or folder is bad input, found without blocking) of
// at most limit bytes (<= 0: check.DefaultMaxFileSize).
func readInputFile(path string, limit int64) ([]byte, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	data, err := check.ReadFile(hostFS(dir), name, limit)
	if err != nil {
		var fe *check.FileError
		if errors.As(err, &fe) {
			fe.Path = path
			if errors.Is(err, check.ErrTooLarge) {
				return nil, inputTooLarge{fe}
			}
		}
		return nil, err
	}
	return data, nil
}

// inputTooLarge is a file named on the command line over the cap, worded
// as what it is (criteria, a suite), not as an evidence file.
type inputTooLarge struct{ *check.FileError }

func (e inputTooLarge) Error() string {
	return fmt.Sprintf("%s: %d bytes is over the %d-byte cap on one input file", e.Path, e.Size, e.Limit)
}

func (e inputTooLarge) Unwrap() error { return e.FileError }

// hostFS is the folder dir as an fs.FS that follows links wherever they
// lead (a file a user names may be a link anywhere) but, like check.DirFS,
// opens a FIFO without blocking.
type hostFS string

func (d hostFS) Open(name string) (fs.File, error) {
	f, err := os.OpenFile(filepath.Join(string(d), name), os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpensWithoutBlocking tells check.ReadFile that it need not look at a
// file's type before opening it (see package nonblock).
func (hostFS) OpensWithoutBlocking() bool { return nonBlock != 0 }

func (d hostFS) Stat(name string) (fs.FileInfo, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}
