package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/pool"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/sandbox"
)

func init() {
	register("eval", subcommand{
		summary: "evaluate criteria against a sandbox snapshot, or against every run of a benchmark",
		usage: "assay eval --criteria FILE --sandbox DIR [--entity ID] [--format text|json|junit]\n" +
			"       assay eval --runs DIR [--criteria FILE] [--shard K/N] [--format text|json|junit|jsonl]\n" +
			"       assay eval --merge [--format text|json|junit|jsonl] FILE.jsonl...",
		run: runEval,
	})
}

// evalFlags are the flags of assay eval.
type evalFlags struct {
	criteria, sandbox, runs, shard, entity string
	judgeURL, judgeModel                   string
	merge, noColor                         bool
	maxFileSize                            int64
	format                                 string
	timeout                                time.Duration
}

func runEval(ctx context.Context, c *cli, args []string) int {
	var f evalFlags
	fs := newFlags("eval", c)
	fs.StringVar(&f.criteria, "criteria", "", "criteria `FILE`: a JSON array of criteria or a list response {\"data\": [...]}; with --runs, one file for every run")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox snapshot `DIR`")
	fs.StringVar(&f.runs, "runs", "", "evaluate every run folder under `DIR` (each holds sandbox/ and, without --criteria, criteria.json) and print the benchmark")
	fs.StringVar(&f.shard, "shard", "", "with --runs, take only the runs whose position in name order modulo N is K (`K/N`)")
	fs.BoolVar(&f.merge, "merge", false, "merge the JSON lines that --format jsonl wrote (the files are the arguments) into one benchmark")
	fs.StringVar(&f.entity, "entity", "", "the input entity `ID` this rollout was run for: only its criteria (and unscoped ones) run; wins over sandbox/run.json")
	fs.StringVar(&f.format, "format", "text", "output `format`: text, json, junit, or jsonl (with --runs or --merge)")
	fs.BoolVar(&f.noColor, "no-color", false, "never colour the text output (NO_COLOR does the same)")
	fs.Int64Var(&f.maxFileSize, "max-file-size", check.DefaultMaxFileSize, "the most `BYTES` read from one evidence or input file")
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
	switch {
	case f.merge:
		if f.runs != "" || f.sandbox != "" || f.criteria != "" || f.shard != "" {
			return c.badInput("eval: --merge takes only JSON-lines files (and --format)")
		}
		return c.evalMerge(rest, format, f)
	case len(rest) > 0:
		return c.badInput("eval: unexpected arguments %s", quoteList(rest))
	case f.runs != "" && f.sandbox != "":
		return c.badInput("eval: --runs and --sandbox cannot be used together")
	case f.runs != "":
		return c.evalRuns(ctx, format, f)
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
		fmt.Fprintf(c.stderr, "assay: eval: warning: %s\n", w)
	}
	evalCtx, cancel := withEvalTimeout(ctx, f.timeout)
	defer cancel()
	result, err := plan.Evaluate(evalCtx, env, assert.WithEntity(entity))
	if err != nil && evalCtx.Err() == nil {
		return c.badInput("eval: %s: %v", f.criteria, err)
	}
	if result.Counts.Skipped > 0 {
		from := "--entity"
		if f.entity == "" {
			from = filepath.Join(f.sandbox, "run.json")
		}
		fmt.Fprintf(c.stderr, "assay: eval: %d of %d criteria skipped: scoped to another input entity than %q (from %s)\n",
			result.Counts.Skipped, len(criteria), result.Entity, from)
	}
	if err := report.WriteTask(c.stdout, format, result, c.textOptions(f.noColor)); err != nil {
		return c.badInput("eval: writing output: %v", err)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(c.stderr, "assay: eval: interrupted: %v\n", ctx.Err())
		return exitFail
	}
	if evalCtx.Err() != nil {
		fmt.Fprintf(c.stderr, "assay: eval: warning: %v; the checks unfinished then report an error\n", context.Cause(evalCtx))
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
	criteria, err := assert.ParseCriteria(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return criteria, nil
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
	opts := sandbox.Options{JudgeURL: f.judgeURL, JudgeModel: f.judgeModel, MaxFileSize: f.maxFileSize}
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
		fmt.Fprintf(c.stderr, "assay: eval: warning: %s holds none of the evidence folders %s; every check that needs evidence will report an error\n",
			dir, strings.Join(sandbox.Folders(), ", "))
	}
}

// evalRun is one selected run folder of --runs.
type evalRun struct {
	name     string
	dir      string
	plan     *assert.Plan
	criteria []assert.Criterion
	entity   string
}

// evalRuns evaluates every selected run folder and prints the benchmark.
// Every run is checked before anything is printed, so bad input exits 2
// with no partial output.
func (c *cli) evalRuns(ctx context.Context, format report.Format, f evalFlags) int {
	k, n, err := parseShard(f.shard)
	if err != nil {
		return c.badInput("eval: --shard: %v", err)
	}
	if fi, err := os.Stat(f.runs); err != nil || !fi.IsDir() {
		return c.badInput("eval: --runs %s: not a folder", f.runs)
	}
	entries, err := os.ReadDir(f.runs)
	if err != nil {
		return c.badInput("eval: --runs: %v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // byte order
	var shared *assert.Plan
	var sharedCriteria []assert.Criterion
	if f.criteria != "" {
		if sharedCriteria, err = c.readCriteria(f.criteria, f.maxFileSize); err != nil {
			return c.badInput("eval: %v", err)
		}
		if shared, err = c.registry.Compile(sharedCriteria); err != nil {
			return c.badInput("eval: %s: %v", f.criteria, err)
		}
	}
	var runs []evalRun
	for i, name := range names {
		if i%n != k {
			continue
		}
		r := evalRun{name: name, dir: filepath.Join(f.runs, name), plan: shared, criteria: sharedCriteria}
		sb := filepath.Join(r.dir, "sandbox")
		if fi, err := os.Stat(sb); err != nil || !fi.IsDir() {
			return c.badInput("eval: run %s: it has no sandbox/ folder", name)
		}
		if r.plan == nil {
			path := filepath.Join(r.dir, "criteria.json")
			if r.criteria, err = c.readCriteria(path, f.maxFileSize); err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
			if r.plan, err = c.registry.Compile(r.criteria); err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
		}
		r.entity = f.entity
		if r.entity == "" {
			if r.entity, err = readRunEntity(check.DirFS(sb), sb, f.maxFileSize); err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
		}
		runs = append(runs, r)
	}
	warned := false
	for _, r := range runs {
		if w := assert.ScopeWarning(r.criteria, r.entity); w != "" && !warned {
			fmt.Fprintf(c.stderr, "assay: eval: warning: run %s: %s\n", r.name, w)
			warned = true
		}
	}
	opts := c.textOptions(f.noColor)
	progress := report.IsTerminal(c.stderr)
	results := make([]report.Run, len(runs))
	var mu sync.Mutex
	done := make([]bool, len(runs))
	next, judged := 0, 0
	var writeErr error
	// Runs are judged concurrently; each is printed (streaming formats) as
	// soon as every run before it in name order is done.
	pool.Each(ctx, len(runs), runtime.GOMAXPROCS(0), func(i int) {
		r := runs[i]
		env, err := c.loadSandbox(filepath.Join(r.dir, "sandbox"), f)
		var res assert.TaskResult
		if err == nil {
			evalCtx, cancel := withEvalTimeout(ctx, f.timeout)
			res, _ = r.plan.Evaluate(evalCtx, env, assert.WithEntity(r.entity))
			cancel()
			env.Close()
		}
		mu.Lock()
		defer mu.Unlock()
		results[i] = report.Run{Name: r.name, Result: res}
		done[i] = true
		judged++
		for next < len(runs) && done[next] && writeErr == nil {
			switch format {
			case report.JSONL:
				writeErr = report.WriteRunLine(c.stdout, results[next])
			case report.Text:
				writeErr = report.WriteRunText(c.stdout, results[next], opts)
			}
			next++
		}
		if progress {
			fmt.Fprintf(c.stderr, "\r%d/%d runs judged", judged, len(runs))
		}
	})
	if progress && len(runs) > 0 {
		fmt.Fprintln(c.stderr)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(c.stderr, "assay: eval: interrupted: %v\n", ctx.Err())
		return exitFail
	}
	tasks := make([]assert.TaskResult, len(results))
	for i, r := range results {
		tasks[i] = r.Result
	}
	bm := assert.Benchmark(tasks)
	switch format {
	case report.JSONL:
		writeErr = errors.Join(writeErr, report.WriteBenchmarkLine(c.stdout, bm))
	case report.Text:
		writeErr = errors.Join(writeErr, report.WriteBenchmarkText(c.stdout, bm, len(results), opts))
	default:
		writeErr = report.WriteBenchmark(c.stdout, format, results, bm, opts)
	}
	if writeErr != nil {
		return c.badInput("eval: writing output: %v", writeErr)
	}
	return exitForVerdict(bm.Verdict)
}

// parseShard reads K/N; "" is 0/1 (every run).
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("%q must be K/N with 0 <= K < N", s)
	}
	return k, n, nil
}

// evalMerge merges the JSON lines of shards into one benchmark, runs in
// name order, as one unsplit --runs would print it.
func (c *cli) evalMerge(files []string, format report.Format, f evalFlags) int {
	if len(files) == 0 {
		return c.badInput("eval: --merge: name the JSON-lines files to merge")
	}
	var runs []report.Run
	for _, path := range files {
		data, err := readInputFile(path, 0)
		if err != nil {
			return c.badInput("eval: --merge: %v", err)
		}
		got, err := report.ReadJSONL(bytes.NewReader(data))
		if err != nil {
			return c.badInput("eval: --merge: %s: %v", path, err)
		}
		runs = append(runs, got...)
	}
	slices.SortStableFunc(runs, func(a, b report.Run) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(runs); i++ {
		if runs[i].Name == runs[i-1].Name {
			return c.badInput("eval: --merge: run %s appears twice", runs[i].Name)
		}
	}
	tasks := make([]assert.TaskResult, len(runs))
	for i, r := range runs {
		tasks[i] = r.Result
	}
	bm := assert.Benchmark(tasks)
	if err := report.WriteBenchmark(c.stdout, format, runs, bm, c.textOptions(f.noColor)); err != nil {
		return c.badInput("eval: writing output: %v", err)
	}
	return exitForVerdict(bm.Verdict)
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
		}
		return nil, err
	}
	return data, nil
}

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
