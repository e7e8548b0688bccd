package command

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/suggest"
	"github.com/assaykit/assay/report"
)

// selection is what --criterion and --kind keep; nil keeps everything.
type selection struct {
	pattern *regexp.Regexp
	kinds   map[string]bool
	desc    string
}

func newSelection(pattern string, kinds []string, reg *assert.Registry) (*selection, error) {
	if pattern == "" && len(kinds) == 0 {
		return nil, nil
	}
	s := &selection{}
	var desc []string
	if pattern != "" {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("--criterion %q is not a regular expression: %v", pattern, err)
		}
		s.pattern = re
		desc = append(desc, "--criterion "+strconv.Quote(pattern))
	}
	if len(kinds) > 0 {
		s.kinds = map[string]bool{}
		known := reg.Kinds()
		for _, k := range kinds {
			if !slices.Contains(known, k) {
				msg := fmt.Sprintf("--kind %q: no such kind", k)
				if near := suggest.Nearest(k, known); near != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", near)
				}
				return nil, fmt.Errorf("%s; the kinds: %s", msg, strings.Join(known, ", "))
			}
			s.kinds[k] = true
		}
		desc = append(desc, "--kind "+strings.Join(kinds, ","))
	}
	s.desc = strings.Join(desc, " ")
	return s, nil
}

// keep reports whether the criterion at position i is selected.
func (s *selection) keep(i int, c assert.Criterion) bool {
	if s == nil {
		return true
	}
	if s.kinds != nil && !s.kinds[c.Assertion.Kind()] {
		return false
	}
	if s.pattern != nil {
		id := c.ID
		if id == "" {
			id = "#" + strconv.Itoa(i)
		}
		return s.pattern.MatchString(id) || s.pattern.MatchString(c.Label)
	}
	return true
}

// check returns an error when the selection keeps none of criteria: a
// filter that matches nothing is a typo, not a benchmark of nothing.
func (s *selection) check(criteria ...[]assert.Criterion) error {
	if s == nil {
		return nil
	}
	for _, list := range criteria {
		for i, c := range list {
			if s.keep(i, c) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s selects none of the criteria", s.desc)
}

func (s *selection) option() assert.Option {
	if s == nil {
		return assert.WithFilter(nil)
	}
	return assert.WithFilter(s.keep)
}

// evalRun is one selected run folder of --runs, as checked before anything
// is judged. It holds no result: runs are judged, written and dropped one
// at a time.
type evalRun struct {
	name   string
	plan   int32 // index into the plans
	entity int32 // index into the entities
}

// evalPlans holds each distinct criteria file once: the runs of a
// benchmark written by assay serve --criteria all hold the same file.
type evalPlans struct {
	plans    []*assert.Plan
	criteria [][]assert.Criterion
	byHash   map[[32]byte]int
}

func (p *evalPlans) add(reg *assert.Registry, data []byte, criteria []assert.Criterion) (int, error) {
	h := sha256.Sum256(data)
	if i, ok := p.byHash[h]; ok {
		return i, nil
	}
	plan, err := reg.Compile(criteria)
	if err != nil {
		return 0, err
	}
	if p.byHash == nil {
		p.byHash = map[[32]byte]int{}
	}
	p.byHash[h] = len(p.plans)
	p.plans = append(p.plans, plan)
	p.criteria = append(p.criteria, criteria)
	return len(p.plans) - 1, nil
}

// listRuns returns the names of DIR's run folders in byte order (rule 22:
// a symbolic link to a folder is a run, named as the link) and the other
// entries that are not runs (dot-names aside).
func listRuns(dir string) (runs, others []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(dir, name))
			isDir = err == nil && fi.IsDir()
		}
		if isDir {
			runs = append(runs, name)
		} else {
			others = append(others, name)
		}
	}
	slices.Sort(runs) // byte order
	slices.Sort(others)
	return runs, others, nil
}

// evalRuns evaluates every selected run folder and prints the benchmark.
// Every run is checked before anything is printed, so bad input exits 2
// with no partial output. Runs are then judged concurrently and written in
// name order as they complete, each dropped once written: the benchmark
// keeps only its aggregates, so memory does not grow with the runs.
func (c *cli) evalRuns(ctx context.Context, format report.Format, f evalFlags, sel *selection) int {
	k, n, err := parseShard(f.shard)
	if err != nil {
		return c.badInput("eval: --shard: %v", err)
	}
	if fi, err := os.Stat(f.runs); err != nil || !fi.IsDir() {
		return c.badInput("eval: --runs %s: not a folder", f.runs)
	}
	names, others, err := listRuns(f.runs)
	if err != nil {
		return c.badInput("eval: --runs: %v", err)
	}
	if len(others) > 0 {
		c.eprintf("eval: warning: %s: %d %s not a run folder, left out: %s", f.runs, len(others),
			pluralWord(len(others), "entry is", "entries are"), quoteList(others))
	}
	var plans evalPlans
	shared := -1
	if f.criteria != "" {
		data, err := readInputFile(f.criteria, f.maxFileSize)
		if err != nil {
			return c.badInput("eval: %v", err)
		}
		criteria, err := parseCriteriaFile(f.criteria, data)
		if err != nil {
			return c.badInput("eval: %v", err)
		}
		if shared, err = plans.add(c.registry, data, criteria); err != nil {
			return c.badInput("eval: %s: %v", f.criteria, err)
		}
	}
	var runs []evalRun
	// Each distinct entity is held once: a benchmark of 100,000 runs of
	// one task names a handful.
	entities := []string{f.entity}
	entityIndex := map[string]int32{f.entity: 0}
	for i, name := range names {
		if i%n != k {
			continue
		}
		r := evalRun{name: name, plan: int32(shared)}
		dir := filepath.Join(f.runs, name)
		sb := filepath.Join(dir, "sandbox")
		if fi, err := os.Stat(sb); err != nil || !fi.IsDir() {
			return c.badInput("eval: run %s: it has no sandbox/ folder", name)
		}
		if r.plan < 0 {
			path := filepath.Join(dir, "criteria.json")
			data, err := readInputFile(path, f.maxFileSize)
			if err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
			criteria, err := parseCriteriaFile(path, data)
			if err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
			p, err := plans.add(c.registry, data, criteria)
			if err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
			r.plan = int32(p)
		}
		entity := f.entity
		if entity == "" {
			if entity, err = readRunEntity(check.DirFS(sb), sb, f.maxFileSize); err != nil {
				return c.badInput("eval: run %s: %v", name, err)
			}
		}
		ei, ok := entityIndex[entity]
		if !ok {
			ei = int32(len(entities))
			entities = append(entities, entity)
			entityIndex[entity] = ei
		}
		r.entity = ei
		runs = append(runs, r)
	}
	names = nil
	if err := sel.check(plans.criteria...); err != nil && len(runs) > 0 {
		return c.badInput("eval: %v", err)
	}
	for _, r := range runs {
		if w := assert.ScopeWarning(plans.criteria[r.plan], entities[r.entity]); w != "" {
			c.eprintf("eval: warning: run %s: %s", r.name, w)
			break
		}
	}
	opts := c.textOptions(f.noColor)
	opts.Summary = f.summary
	if n > 1 {
		opts.Shard = fmt.Sprintf("%d/%d", k, n)
	}
	bw, err := report.NewBenchmarkWriter(c.stdout, format, opts)
	if err != nil {
		return c.badInput("eval: %v", err)
	}
	prog := newProgress(c.stderr, len(runs), "runs judged")
	// The line is cleared only for runs written to stdout as they come
	// (JUnit and HTML spool them; --summary writes none).
	streams := !f.summary && (format == report.Text || format == report.JSON || format == report.JSONL)
	skippedRuns := 0
	judge := func(r evalRun) report.Run {
		plan := plans.plans[r.plan]
		env, err := c.loadSandbox(filepath.Join(f.runs, r.name, "sandbox"), f)
		if err != nil {
			// The folder was checked; it went away or changed since.
			c.eprintf("eval: run %s: %v", r.name, err)
			env = assert.NewEnv()
		}
		evalCtx, cancel := withEvalTimeout(ctx, f.timeout)
		res, _ := plan.Evaluate(evalCtx, env, assert.WithEntity(entities[r.entity]), sel.option())
		cancel()
		env.Close()
		return report.Run{Name: r.name, Shard: opts.Shard, Result: res}
	}
	writeErr := judgeInOrder(ctx, len(runs), runtime.GOMAXPROCS(0), func(i int) report.Run { return judge(runs[i]) },
		func(r report.Run) error {
			if r.Result.Counts.Skipped > 0 {
				skippedRuns++
			}
			if streams {
				prog.pause()
			}
			defer prog.step()
			return bw.Add(r)
		})
	prog.done()
	if ctx.Err() != nil {
		c.eprintf("eval: interrupted: %v", ctx.Err())
		return exitFail
	}
	bm, err := bw.Close()
	if err = errorsJoin(writeErr, err); err != nil {
		return c.badInput("eval: writing output: %v", err)
	}
	if skippedRuns > 0 {
		c.eprintf("eval: in %d of %d runs, criteria scoped to another input entity were skipped (counts.skipped of each run)",
			skippedRuns, len(runs))
	}
	return exitForVerdict(bm.Verdict)
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// judgeInOrder calls judge(i) for i in [0, n) on up to workers goroutines
// and write with each result in index order, as soon as every result
// before it has been written. At most a window of results waits to be
// written (a slow run holds the others back rather than letting finished
// results pile up), so memory stays bounded however many runs there are.
// It stops starting runs when ctx ends, and returns write's first error
// (after which nothing more is written).
func judgeInOrder(ctx context.Context, n, workers int, judge func(i int) report.Run, write func(report.Run) error) error {
	workers = max(1, min(workers, n))
	window := 4 * workers
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		pending = make([]*report.Run, window)
		next    int // the next index to claim
		written int // the next index to write
		err     error
	)
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer stop()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				for next < n && next >= written+window && ctx.Err() == nil && err == nil {
					cond.Wait()
				}
				if next >= n || ctx.Err() != nil || err != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()

				r := judge(i)

				mu.Lock()
				pending[i%window] = &r
				for written < n && pending[written%window] != nil {
					w := pending[written%window]
					pending[written%window] = nil
					if err == nil && ctx.Err() == nil {
						err = write(*w)
					}
					written++
				}
				cond.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return err
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

// mergeSource is one stream of runs in name order: the lines of one shard
// in one file.
type mergeSource struct {
	path  string
	shard string
	file  *os.File
	jr    *report.JSONLReader
	head  *report.Record
}

// advance reads the source's next run of its shard, or sets head to nil at
// the end.
func (s *mergeSource) advance() error {
	for {
		rec, err := s.jr.Next()
		if err == io.EOF {
			s.head = nil
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", s.path, err)
		}
		if rec.Run != nil && shardOf(rec) == s.shard {
			s.head = &rec
			return nil
		}
	}
}

func shardOf(rec report.Record) string {
	if rec.Shard == "" {
		return "0/1"
	}
	return rec.Shard
}

// evalMerge merges the JSON lines of shards into one benchmark, runs in
// name order, as one unsplit --runs would print it. It reads the files
// three times, holding one line of each at a time: to check every record
// (rule 22: a score that is not a finite number in [0, 1], a verdict that
// does not follow from its score, a shard without its benchmark line,
// shards that are not all N of one split exactly once), to check the runs'
// order and names, and to write. Nothing is printed unless all is well.
func (c *cli) evalMerge(files []string, format report.Format, f evalFlags) int {
	if len(files) == 0 {
		return c.badInput("eval: --merge: name the JSON-lines files to merge")
	}
	maxLine := int(min(f.maxFileSize, math.MaxInt32))
	// Pass 1: every record, and which shards each file holds.
	type shardInfo struct {
		benchmarks int
		file       string
		line       int
	}
	shards := map[string]*shardInfo{}
	var sources []*mergeSource
	for _, path := range files {
		// A JSON-lines file may be larger than the cap of other inputs
		// (it is read a line at a time), but it must be a regular file: a
		// FIFO would be read once and found empty on the next pass.
		if fi, err := os.Stat(path); err != nil {
			return c.badInput("eval: --merge: %v", err)
		} else if !fi.Mode().IsRegular() {
			return c.badInput("eval: --merge: %s: not a regular file", path)
		}
		file, err := os.Open(path)
		if err != nil {
			return c.badInput("eval: --merge: %v", err)
		}
		jr := report.NewJSONLReader(file, maxLine)
		var inFile []string
		for {
			rec, err := jr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				file.Close()
				return c.badInput("eval: --merge: %s: %v", path, err)
			}
			sh := shardOf(rec)
			if _, _, err := parseShard(sh); err != nil {
				file.Close()
				return c.badInput("eval: --merge: %s:%d: shard %v", path, rec.Line, err)
			}
			info := shards[sh]
			if info == nil {
				info = &shardInfo{file: path, line: rec.Line}
				shards[sh] = info
			}
			if !slices.Contains(inFile, sh) {
				inFile = append(inFile, sh)
			}
			if rec.Benchmark != nil {
				info.benchmarks++
				if info.benchmarks > 1 {
					file.Close()
					return c.badInput("eval: --merge: %s:%d: a second benchmark line of shard %s: the shard is given twice", path, rec.Line, sh)
				}
				continue
			}
			if msg := checkRecord(rec.Run.Result); msg != "" {
				file.Close()
				return c.badInput("eval: --merge: %s:%d: run %q: %s", path, rec.Line, rec.Run.Name, msg)
			}
		}
		file.Close()
		for _, sh := range inFile {
			sources = append(sources, &mergeSource{path: path, shard: sh})
		}
	}
	if msg := checkSplit(maps(shards, func(s *shardInfo) int { return s.benchmarks })); msg != "" {
		return c.badInput("eval: --merge: %s", msg)
	}
	// Pass 2 checks the order and the names; pass 3 writes.
	merge := func(emit func(report.Run) error) error {
		for _, s := range sources {
			file, err := os.Open(s.path)
			if err != nil {
				return err
			}
			s.file, s.jr = file, report.NewJSONLReader(file, maxLine)
			if err := s.advance(); err != nil {
				return err
			}
		}
		defer func() {
			for _, s := range sources {
				s.file.Close()
			}
		}()
		last := ""
		first := true
		for {
			var best *mergeSource
			for _, s := range sources {
				if s.head != nil && (best == nil || s.head.Run.Name < best.head.Run.Name) {
					best = s
				}
			}
			if best == nil {
				return nil
			}
			rec := best.head
			if !first && rec.Run.Name == last {
				return fmt.Errorf("%s:%d: run %q appears twice", best.path, rec.Line, last)
			}
			first, last = false, rec.Run.Name
			run := *rec.Run
			run.Shard = ""
			prevName, prevLine := rec.Run.Name, rec.Line
			if err := best.advance(); err != nil {
				return err
			}
			if best.head != nil && best.head.Run.Name <= prevName {
				return fmt.Errorf("%s:%d: run %q comes after %q (line %d): a shard's lines are in name order, as --format jsonl writes them",
					best.path, best.head.Line, best.head.Run.Name, prevName, prevLine)
			}
			if err := emit(run); err != nil {
				return err
			}
		}
	}
	if err := merge(func(report.Run) error { return nil }); err != nil {
		return c.badInput("eval: --merge: %v", err)
	}
	opts := c.textOptions(f.noColor)
	opts.Summary = f.summary
	bw, err := report.NewBenchmarkWriter(c.stdout, format, opts)
	if err != nil {
		return c.badInput("eval: %v", err)
	}
	writeErr := merge(bw.Add)
	bm, err := bw.Close()
	if err = errorsJoin(writeErr, err); err != nil {
		return c.badInput("eval: writing output: %v", err)
	}
	return exitForVerdict(bm.Verdict)
}

func maps[V any](m map[string]V, f func(V) int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

// checkRecord says what is wrong with a run's record read back from JSON
// lines, or "": its score must be a finite number in [0, 1] and its
// verdict the one its score gives (rule 6).
func checkRecord(r assert.TaskResult) string {
	if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) || r.Score < 0 || r.Score > 1 {
		return fmt.Sprintf("score %v is not a number in [0, 1]", r.Score)
	}
	if want := assert.VerdictFor(r.Score); r.Verdict != want {
		return fmt.Sprintf("verdict %q does not follow from score %v (which gives %q)", r.Verdict, r.Score, want)
	}
	for _, cr := range r.Criteria {
		if math.IsNaN(cr.Score) || cr.Score < 0 || cr.Score > 1 {
			return fmt.Sprintf("criterion %q: score %v is not a number in [0, 1]", cr.CriterionID, cr.Score)
		}
	}
	return ""
}

// checkSplit says what is wrong with the shards seen (each with its count
// of benchmark lines), or "": they must be all N shards of one split, each
// with its benchmark line.
func checkSplit(shards map[string]int) string {
	if len(shards) == 0 {
		return "the files hold no line of a benchmark"
	}
	total := -1
	have := map[int]bool{}
	for sh, benchmarks := range shards {
		k, n, _ := parseShard(sh)
		if total >= 0 && n != total {
			return fmt.Sprintf("the files mix splits: shard %s beside shards of %d", sh, total)
		}
		total = n
		have[k] = true
		if benchmarks == 0 {
			return fmt.Sprintf("shard %s has no benchmark line: its file was cut short, or is not --format jsonl output", sh)
		}
	}
	var missing []string
	for k := range total {
		if !have[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, total))
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("shards missing: %s (a split of %d needs every shard once)", strings.Join(missing, ", "), total)
	}
	return ""
}
