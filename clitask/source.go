package clitask

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source is the evidence the ten CLI kinds read: the trace of one task run,
// and a way to run verify commands in its working directory afterwards.
// Attach one to an assert.Env with Attach. MemorySource, FolderSource and
// Shell implement it; so can a harness's own type.
type Source interface {
	// Trace returns the run's trace. An error means the evidence cannot be
	// read (a trace file that is not JSON, say); every check then reports
	// status error.
	Trace(ctx context.Context) (*Trace, error)
	// Verify runs command with sh -c in the working directory, with the
	// task's environment and a timeout, without recording it, and ends
	// every process it left behind before returning. The record's stdout
	// and stderr hold what was captured, without a note about the cap
	// (Command.Capped says whether the cap cut them). The error is as
	// Executor.Run's.
	Verify(ctx context.Context, command string) (Command, error)
}

// Attach sets env's CLI source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// DefaultPatternBudget bounds the matching of one ran, not_ran or run_count
// check over all the commands of a trace, beside MatchTimeout per match.
const DefaultPatternBudget = 5 * time.Second

// ErrNoWorkdir is reported by checks that look at files when the trace does
// not say where the task ran.
var ErrNoWorkdir = errors.New("the trace has no workdir")

// Option tunes a Source: MemorySource, FolderSource or a Shell.
type Option func(*options)

type options struct {
	env           []string
	verifyTimeout time.Duration
	budget        time.Duration
	maxFileSize   int64
	maxTotalSize  int64
	total         *check.Budget // what the source's file_contains checks (and trace.json) read, summed
	maxOutput     int
	noFolder      bool // FolderSource of a snapshot not on disk
	skipVerify    bool
}

// ErrVerifySkipped is the error of a verify that was not run because the
// caller asked so (SkipVerify; assay check --no-verify).
var ErrVerifySkipped = errors.New("verify commands are skipped")

// SkipVerify makes verify run nothing, so that a suite from elsewhere can
// be checked without running its commands on this machine. A verify
// assertion then reports status error ("was not run"); Task.Check marks it
// skipped (AssertionResult.Skipped) and judges the task on its other
// assertions.
func SkipVerify() Option { return func(o *options) { o.skipVerify = true } }

// skipsVerify reports whether src runs no verify command (SkipVerify).
func skipsVerify(src Source) bool {
	ts, ok := src.(*traceSource)
	return ok && ts.opts.skipVerify
}

// VerifyEnv sets the complete environment of verify commands (nil, the
// default, means the process environment). A Shell runs verify with its
// executor's environment and ignores it.
func VerifyEnv(env []string) Option { return func(o *options) { o.env = env } }

// VerifyTimeout sets the timeout of verify commands; <= 0 means
// DefaultTimeout (a Shell: its executor's timeout).
func VerifyTimeout(d time.Duration) Option { return func(o *options) { o.verifyTimeout = d } }

// PatternBudget sets the total time one ran, not_ran or run_count check may
// spend matching; <= 0 means DefaultPatternBudget.
func PatternBudget(d time.Duration) Option { return func(o *options) { o.budget = d } }

// MaxFileSize caps the bytes file_contains reads of one file (and, for a
// FolderSource, of trace.json); <= 0 means check.DefaultMaxFileSize.
// LoadSuite and ParseSuite take it as the cap on one suite or task file.
func MaxFileSize(n int64) Option { return func(o *options) { o.maxFileSize = n } }

// MaxTotalSize caps the bytes a source reads in all (DESIGN.md section 12
// rule 17): the files its file_contains checks read, each name once
// however many checks read it, and a FolderSource's trace.json; a check
// whose file would go past it is status error naming the cap. LoadSuite
// and ParseSuite take it as the cap on a suite's task files in all. <= 0
// means check.DefaultMaxTotalSize.
func MaxTotalSize(n int64) Option { return func(o *options) { o.maxTotalSize = n } }

func newOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	o.total = check.NewBudget(o.maxTotalSize)
	return o
}

// limits are what the checks of a source may read and spend.
type limits struct {
	budget      time.Duration
	maxFileSize int64
	total       *check.Budget
	// noFolder says a relative workdir has no folder to resolve against.
	noFolder bool
}

func (o options) limits() limits {
	l := limits{budget: o.budget, maxFileSize: o.maxFileSize, total: o.total, noFolder: o.noFolder}
	if l.total == nil {
		l.total = check.NewBudget(o.maxTotalSize)
	}
	if l.budget <= 0 {
		l.budget = DefaultPatternBudget
	}
	if l.maxFileSize <= 0 {
		l.maxFileSize = check.DefaultMaxFileSize
	}
	return l
}

// limiter is implemented by the sources of this package; a Source of
// another package gets the defaults.
type limiter interface{ limits() limits }

func limitsOf(src Source) limits {
	if l, ok := src.(limiter); ok {
		return l.limits()
	}
	return options{}.limits()
}

// MemorySource is a Source over a trace held in memory (recorded earlier,
// or built by a harness). Verify runs in the trace's workdir with the
// process environment unless VerifyEnv says otherwise. The trace must not
// change while checks read it.
func MemorySource(t *Trace, opts ...Option) Source {
	if t == nil {
		t = &Trace{}
	}
	return &traceSource{trace: t, opts: newOptions(opts)}
}

// FolderSource is the Source of a snapshot's cli/ folder: it reads
// trace.json from fsys (through check.ReadFile: a regular file of at most
// maxFileSize bytes, <= 0 meaning check.DefaultMaxFileSize) once, on first
// use, and shares the parse. The file holds one run object, or {"runs":
// [...]} with exactly one run. dir is the folder on disk that fsys reads,
// which a relative workdir resolves against; "" when the snapshot is not on
// disk (a tarball, an embed.FS), where a relative workdir makes the checks
// that look at the working directory report status error saying why. A
// trace file that is missing, not a regular file, over the cap or not a
// trace makes every check report status error.
func FolderSource(fsys fs.FS, dir string, maxFileSize int64, opts ...Option) Source {
	o := newOptions(append([]Option{MaxFileSize(maxFileSize)}, opts...))
	o.noFolder = dir == ""
	s := &traceSource{opts: o}
	s.load = sync.OnceValues(func() (*Trace, error) {
		const name = "trace.json"
		data, err := check.ReadFile(check.CapTotal(fsys, 0), name, o.maxFileSize)
		if err == nil {
			err = o.total.Charge(name, int64(len(data)))
		}
		if err != nil {
			return nil, &TraceError{Location: assert.Location{File: name}, Message: errorText(err), Err: err}
		}
		runs, err := ParseRuns(data, "")
		if err != nil {
			var te *TraceError
			if errors.As(err, &te) {
				te.File = name
			}
			return nil, err
		}
		if len(runs) != 1 {
			return nil, &TraceError{Location: assert.Location{File: name, Pointer: "/runs"},
				Message: fmt.Sprintf("holds %d runs; the trace of one rollout holds exactly one", len(runs))}
		}
		t := &runs[0].Trace
		if t.Workdir != "" && !filepath.IsAbs(t.Workdir) && dir != "" {
			abs, err := filepath.Abs(filepath.Join(dir, t.Workdir))
			if err == nil {
				t.Workdir = abs
			}
		}
		return t, nil
	})
	return s
}

// errorText is err's message without the file name a *check.FileError
// starts with, which the TraceError names already.
func errorText(err error) string {
	var fe *check.FileError
	if errors.As(err, &fe) {
		msg := fe.Error()
		if len(msg) > len(fe.Path)+2 && msg[:len(fe.Path)+2] == fe.Path+": " {
			return msg[len(fe.Path)+2:]
		}
		return msg
	}
	return err.Error()
}

// traceSource is MemorySource and FolderSource.
type traceSource struct {
	trace *Trace
	load  func() (*Trace, error) // FolderSource: reads the file once
	opts  options
	runes runeCache
}

func (s *traceSource) Trace(ctx context.Context) (*Trace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.load != nil {
		return s.load()
	}
	return s.trace, nil
}

func (s *traceSource) limits() limits { return s.opts.limits() }

func (s *traceSource) commandRunes(t *Trace) [][]rune {
	if got, err := s.Trace(context.Background()); err != nil || got != t {
		return nil
	}
	return s.runes.get(t)
}

// Verify runs command in the trace's working directory.
func (s *traceSource) Verify(ctx context.Context, command string) (Command, error) {
	if s.opts.skipVerify {
		return Command{Command: command}, ErrVerifySkipped
	}
	t, err := s.Trace(ctx)
	if err != nil {
		return Command{Command: command}, err
	}
	dir, err := workdirOf(t, s.opts.limits())
	if err != nil {
		return Command{Command: command}, err
	}
	e := Executor{Dir: dir, Env: s.opts.env, Timeout: s.opts.verifyTimeout, MaxOutput: s.opts.maxOutput}
	return e.verify(ctx, command)
}

// runeCache holds a trace's command strings as runes, converted once and
// shared by every pattern check: the regular expression engine matches
// runes, and converting 10,000 commands once per pattern would cost more
// than the matching.
type runeCache struct {
	once  sync.Once
	runes [][]rune
}

func (c *runeCache) get(t *Trace) [][]rune {
	c.once.Do(func() {
		c.runes = make([][]rune, len(t.Commands))
		for i := range t.Commands {
			c.runes[i] = []rune(t.Commands[i].Command)
		}
	})
	return c.runes
}

// runeSource is a Source that caches its trace's commands as runes.
type runeSource interface {
	commandRunes(t *Trace) [][]rune
}

// snapshot is a Source whose trace was taken once, for evaluating all of a
// task's assertions against the same commands.
type snapshot struct {
	Source
	trace *Trace
	err   error
	runes runeCache
}

func (s *snapshot) Trace(ctx context.Context) (*Trace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.trace, s.err
}

func (s *snapshot) limits() limits { return limitsOf(s.Source) }

func (s *snapshot) commandRunes(t *Trace) [][]rune {
	if t != s.trace || t == nil {
		return nil
	}
	return s.runes.get(t)
}
