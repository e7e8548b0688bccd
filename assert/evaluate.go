package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/internal/jsonenc"
	"github.com/assaykit/assay/internal/pool"
)

// DefaultAxis is the axis of criteria that name none.
const DefaultAxis = "__default__"

// Verdict summarises a score.
type Verdict string

// The verdicts.
const (
	VerdictPass    Verdict = "pass"    // score >= 0.9
	VerdictPartial Verdict = "partial" // 0 < score < 0.9
	VerdictFail    Verdict = "fail"    // score 0, or nothing scored
)

// PassThreshold is the lowest score whose verdict is pass.
const PassThreshold = 0.9

// Epsilon is the slack verdict comparisons allow for floating-point sums,
// so that weights 0.1, 0.2 and 0.7 with scores 0, 1 and 1 pass.
const Epsilon = 1e-9

// VerdictFor returns the verdict of a score.
func VerdictFor(score float64) Verdict {
	switch {
	case score >= PassThreshold-Epsilon:
		return VerdictPass
	case score > Epsilon:
		return VerdictPartial
	default:
		return VerdictFail
	}
}

// CriterionResult is the result of one criterion, with the criterion-run
// fields of the criteria API. Its JSON keys and their order are part of the
// assay command's contract.
type CriterionResult struct {
	Label       string    `json:"label"`
	CriterionID string    `json:"criterion_id"`
	Status      Status    `json:"status"`
	Passed      bool      `json:"passed"`
	Score       float64   `json:"score"`
	Details     string    `json:"details"`
	Evidence    any       `json:"evidence"`
	StartedAt   time.Time `json:"started_at"`
	CompletedAt time.Time `json:"completed_at"`
	// Kind is the assertion's kind, when it has one ("" marshals as null).
	Kind string `json:"kind"`
	// Axis is the criterion's axis (DefaultAxis when it names none, which
	// marshals as null) and Weight its effective weight.
	Axis   string  `json:"axis"`
	Weight float64 `json:"weight"`
}

// MarshalJSON writes the criterion-run fields, then kind, axis (null when
// the criterion names none) and weight, in that order: the assay command's
// JSON contract.
func (cr CriterionResult) MarshalJSON() ([]byte, error) {
	type plain CriterionResult
	var axis, kind *string
	if cr.Axis != "" && cr.Axis != DefaultAxis {
		axis = &cr.Axis
	}
	if cr.Kind != "" {
		kind = &cr.Kind
	}
	return jsonenc.Marshal(struct {
		plain
		Kind   *string `json:"kind"`
		Axis   *string `json:"axis"`
		Weight float64 `json:"weight"`
	}{plain(cr), kind, axis, cr.Weight})
}

// UnmarshalJSON reads what MarshalJSON writes (a null axis is DefaultAxis),
// so that results written as JSON lines can be merged into a benchmark.
func (cr *CriterionResult) UnmarshalJSON(data []byte) error {
	type plain CriterionResult
	var v struct {
		plain
		// Evidence stays as written, its keys in their documented order.
		Evidence json.RawMessage `json:"evidence"`
		Kind     *string         `json:"kind"`
		Axis     *string         `json:"axis"`
		Weight   *float64        `json:"weight"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*cr = CriterionResult(v.plain)
	cr.Evidence = nil
	if len(v.Evidence) > 0 && string(v.Evidence) != "null" {
		cr.Evidence = v.Evidence
	}
	cr.Kind, cr.Axis, cr.Weight = "", DefaultAxis, 1
	if v.Kind != nil {
		cr.Kind = *v.Kind
	}
	if v.Axis != nil {
		cr.Axis = *v.Axis
	}
	if v.Weight != nil {
		cr.Weight = *v.Weight
	}
	return nil
}

// Counts tallies criterion results by status, and the criteria left out.
type Counts struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Error  int `json:"error"`
	// Skipped counts the criteria left out of the result because they are
	// scoped to another input entity than the one evaluated.
	Skipped int `json:"skipped"`
}

// AxisScore is the weighted mean score of the criteria of one axis.
type AxisScore struct {
	Score  float64 `json:"score"`
	Weight float64 `json:"weight"`
}

// TaskResult is the result of evaluating a task's criteria.
type TaskResult struct {
	// Score is sum(score_i*weight_i)/sum(weight_i); 0 when the weights sum
	// to 0 or there are no criteria.
	Score   float64              `json:"score"`
	Verdict Verdict              `json:"verdict"`
	Axes    map[string]AxisScore `json:"axes"`
	// Criteria are in the order given (criteria skipped for another input
	// entity are left out).
	Criteria []CriterionResult `json:"criteria"`
	// Counts tallies Criteria by status, and the criteria skipped.
	Counts Counts `json:"counts"`
	// Entity is the input entity the evaluation was scoped to ("" when
	// none): the reason for Counts.Skipped. It is not part of the JSON.
	Entity string `json:"-"`
}

// Option tunes evaluation.
type Option func(*options)

type options struct {
	concurrency int
	now         func() time.Time
	entity      string
	progress    func(done, total int)
	filter      func(i int, c Criterion) bool
}

// DefaultConcurrency is how many criteria Evaluate checks at once unless
// told otherwise. Checks mostly wait on I/O (a FHIR server, an SFTP
// endpoint), so it is not tied to the number of CPUs. The checks start on
// the calling goroutine, and others join only once the evaluation has run
// for a couple of milliseconds: checks of local evidence are over sooner
// than waking threads for them would take.
const DefaultConcurrency = 8

// WithConcurrency bounds how many criteria are checked at once (n < 1
// means 1).
func WithConcurrency(n int) Option {
	return func(o *options) {
		o.concurrency = max(n, 1)
	}
}

// WithClock sets the clock that stamps started_at and completed_at.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithEntity evaluates a rollout of input entity id: criteria whose
// InputEntityID is empty or id run, the others are skipped: left out of
// the result and counted in Counts.Skipped. It wins over the entity the Env
// names (Env.SetEntity, which sandbox.Load sets from run.json). Without
// either, every criterion runs (see ScopeWarning).
func WithEntity(id string) Option { return func(o *options) { o.entity = id } }

// WithFilter evaluates only the criteria for which keep returns true (i is
// the criterion's position in the list given); the others are left out of
// the result and not counted (they are not Counts.Skipped, which is about
// input entities). Ids that fall back to "#N" keep N.
func WithFilter(keep func(i int, c Criterion) bool) Option {
	return func(o *options) { o.filter = keep }
}

// WithProgress calls fn after each criterion is checked, with how many are
// done and how many will run. Calls may come from several goroutines but
// never at once.
func WithProgress(fn func(done, total int)) Option { return func(o *options) { o.progress = fn } }

// ScopeWarning returns the warning a caller shows when some criteria are
// scoped to an input entity but no entity was given (so all of them run),
// or "" when there is nothing to say. It is returned beside the task
// result, never inside it.
func ScopeWarning(criteria []Criterion, entity string) string {
	if entity != "" {
		return ""
	}
	scoped := map[string]bool{}
	n := 0
	for _, c := range criteria {
		if c.InputEntityID != "" {
			scoped[c.InputEntityID] = true
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d criteria are scoped to input entities (%d distinct) but no entity was given, so all of them run; name the rollout's entity to run only its criteria", n, len(criteria), len(scoped))
}

// Plan is a list of criteria decoded once, to be evaluated against many
// environments (the runs of a benchmark). It is immutable and safe for
// concurrent use.
type Plan struct {
	reg      *Registry
	criteria []Criterion
	decoded  []Assertion
	failures []Result // a criterion that cannot be checked: its result
}

// Compile decodes every criterion's assertion through r once. A criterion
// whose weight is negative or not finite is a programmer error: Compile
// returns an error wrapping ErrInvalidWeight. A missing, unknown or invalid
// assertion is not an error here: that criterion fails when evaluated, with
// details that say why.
func (r *Registry) Compile(criteria []Criterion) (*Plan, error) {
	p := &Plan{reg: r, criteria: slices.Clone(criteria), decoded: make([]Assertion, len(criteria)), failures: make([]Result, len(criteria))}
	for i, c := range criteria {
		if err := c.checkWeight(); err != nil {
			return nil, fmt.Errorf("criterion %s: %w", criterionID(c, i), err)
		}
		switch a, err := r.Decode(c.Assertion); {
		case len(c.Assertion) == 0:
			p.failures[i] = Fail(0, "invalid criterion: it has no assertion", nil)
		case err != nil:
			p.failures[i] = Fail(0, err.Error(), nil)
		default:
			p.decoded[i] = a
		}
	}
	return p, nil
}

// Compile decodes criteria through DefaultRegistry.
func Compile(criteria []Criterion) (*Plan, error) { return defaultRegistry.Compile(criteria) }

// Criteria returns the plan's criteria, in the order given.
func (p *Plan) Criteria() []Criterion { return slices.Clone(p.criteria) }

// Evaluate checks the plan's criteria against env, concurrently (bounded by
// WithConcurrency), and rolls the results up into a TaskResult.
//
// A criterion whose spec has an unknown kind or breaks its schema gets status
// failed with details that say why; the others still run. When ctx ends
// first, the criteria not yet checked, and those whose check ended in an
// error while ctx ended, get status error with details that give ctx's
// cause (context.WithTimeoutCause words a deadline: "evaluation timed out
// after 10m0s"), and Evaluate returns the result along with ctx's error. A check that panics is reported as an
// error result, not propagated. Criterion ids that fall back to "#N" keep N,
// the position in the list given, also when WithEntity leaves some out.
func (p *Plan) Evaluate(ctx context.Context, env *Env, opts ...Option) (TaskResult, error) {
	o := options{concurrency: DefaultConcurrency, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	if o.entity == "" {
		id, err := env.Entity()
		if err != nil {
			return TaskResult{}, fmt.Errorf("the rollout's input entity: %w", err)
		}
		o.entity = id
	}
	var run []int // positions of the criteria that run
	skipped := 0
	for i, c := range p.criteria {
		if o.filter != nil && !o.filter(i, c) {
			continue
		}
		if o.entity == "" || c.InputEntityID == "" || c.InputEntityID == o.entity {
			run = append(run, i)
		} else {
			skipped++
		}
	}
	results := make([]CriterionResult, len(run))
	var mu sync.Mutex
	done := 0
	started := pool.Each(ctx, len(run), o.concurrency, func(k int) {
		results[k] = p.run(ctx, run[k], env, o.now)
		if o.progress != nil {
			mu.Lock()
			done++
			o.progress(done, len(run))
			mu.Unlock()
		}
	})
	for k := started; k < len(run); k++ {
		now := o.now()
		results[k] = newCriterionResult(run[k], p.criteria[run[k]], Errored(fmt.Errorf("not checked: %w", context.Cause(ctx))), now, now)
	}
	t := Score(results)
	t.Counts.Skipped = skipped
	t.Entity = o.entity
	return t, ctx.Err()
}

// Evaluate checks every criterion against env and rolls the results up
// into a TaskResult: Compile, then Plan.Evaluate. A criterion whose weight
// is negative or not finite is a programmer error: Evaluate returns an error
// wrapping ErrInvalidWeight and checks nothing.
func (r *Registry) Evaluate(ctx context.Context, criteria []Criterion, env *Env, opts ...Option) (TaskResult, error) {
	p, err := r.Compile(criteria)
	if err != nil {
		return TaskResult{}, err
	}
	return p.Evaluate(ctx, env, opts...)
}

func (p *Plan) run(ctx context.Context, i int, env *Env, now func() time.Time) CriterionResult {
	start := now()
	c := p.criteria[i]
	var res Result
	switch {
	case ctx.Err() != nil:
		res = Errored(fmt.Errorf("not checked: %w", context.Cause(ctx)))
	case p.decoded[i] == nil:
		res = p.failures[i]
	default:
		res = Run(ctx, p.decoded[i], env)
		if res.Status == StatusError && ctx.Err() != nil {
			// The check was cut short: say why in the words of the
			// deadline's cause ("evaluation timed out after 10m0s"), not
			// only as the check saw it ("context deadline exceeded").
			if cause := context.Cause(ctx); cause != nil && !strings.Contains(res.Details, cause.Error()) {
				res.Details = Truncate(cause.Error() + ": " + res.Details)
			}
		}
	}
	return newCriterionResult(i, c, res, start, now())
}

func criterionID(c Criterion, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return "#" + strconv.Itoa(i)
}

func newCriterionResult(i int, c Criterion, res Result, start, end time.Time) CriterionResult {
	res = res.Normalize()
	axis := c.Axis
	if axis == "" {
		axis = DefaultAxis
	}
	return CriterionResult{
		Label:       c.Label,
		CriterionID: criterionID(c, i),
		Status:      res.Status,
		Passed:      res.Passed,
		Score:       res.Score,
		Details:     res.Details,
		Evidence:    res.Evidence,
		StartedAt:   start,
		CompletedAt: end,
		Kind:        c.Assertion.Kind(),
		Axis:        axis,
		Weight:      c.EffectiveWeight(),
	}
}

// Score rolls criterion results up into a TaskResult: the weighted mean score,
// the same mean per axis, and the verdict. Results are normalised first.
//
// Weights are summed without overflow: every weight is divided by the
// largest before summing, so two weights of 1e308 are two equal weights,
// not infinity over infinity. A reported weight sum that would overflow
// reads as the largest finite number.
func Score(results []CriterionResult) TaskResult {
	t := TaskResult{Axes: map[string]AxisScore{}, Criteria: results}
	scale := 0.0
	for i := range results {
		scale = max(scale, results[i].Weight)
	}
	type bucket struct{ sum, weight, raw float64 }
	axes := map[string]*bucket{}
	var total bucket
	for i := range results {
		res := Result{Status: results[i].Status, Score: results[i].Score}.Normalize()
		results[i].Passed, results[i].Score = res.Passed, res.Score
		axis := results[i].Axis
		if axis == "" {
			axis = DefaultAxis
		}
		b := axes[axis]
		if b == nil {
			b = &bucket{}
			axes[axis] = b
		}
		w := results[i].Weight
		if scale > 0 {
			w /= scale
		}
		for _, x := range []*bucket{b, &total} {
			x.sum += res.Score * w
			x.weight += w
			x.raw += results[i].Weight
		}
	}
	for axis, b := range axes {
		a := AxisScore{Weight: min(b.raw, math.MaxFloat64)}
		if b.weight > 0 {
			a.Score = min(b.sum/b.weight, 1)
		}
		t.Axes[axis] = a
	}
	if total.weight > 0 {
		t.Score = min(total.sum/total.weight, 1)
	}
	for _, cr := range results {
		switch cr.Status {
		case StatusPassed:
			t.Counts.Passed++
		case StatusError:
			t.Counts.Error++
		default:
			t.Counts.Failed++
		}
	}
	t.Verdict = VerdictFor(t.Score)
	return t
}

// BenchmarkResult is the result of several runs of a task (or of several
// tasks): the plain mean of their scores with the task verdict thresholds,
// the per-axis means over the runs whose results list the axis, how many
// runs got each verdict, and each criterion's record over the runs. Its
// JSON is the assay command's benchmark contract.
type BenchmarkResult struct {
	Score    float64                  `json:"score"`
	Verdict  Verdict                  `json:"verdict"`
	Axes     map[string]BenchmarkAxis `json:"axes"`
	Verdicts VerdictCounts            `json:"verdicts"`
	// Criteria are in the order first met (a shared criteria file's order),
	// each over the runs that evaluated it.
	Criteria []BenchmarkCriterion `json:"criteria"`
}

// BenchmarkAxis is one axis of a benchmark: the mean of its score over the
// runs that have it, and how many runs those are.
type BenchmarkAxis struct {
	Score float64 `json:"score"`
	Runs  int     `json:"runs"`
}

// BenchmarkCriterion is one criterion over the runs of a benchmark that
// evaluated it (criteria are told apart by CriterionID): how often it
// passed, its mean score, how many runs could not check it (status error),
// and the runs where it did not pass (failed or error), in the order added.
type BenchmarkCriterion struct {
	CriterionID string `json:"criterion_id"`
	Label       string `json:"label"`
	// Kind is the assertion's kind ("" marshals as null), Axis the
	// criterion's (DefaultAxis marshals as null).
	Kind       string   `json:"kind"`
	Axis       string   `json:"axis"`
	Runs       int      `json:"runs"`
	PassRate   float64  `json:"pass_rate"`
	MeanScore  float64  `json:"mean_score"`
	Errors     int      `json:"errors"`
	FailedRuns []string `json:"failed_runs"`
}

// MarshalJSON writes kind and axis as null when empty or DefaultAxis, as a
// criterion result does, and failed_runs as [] when none failed.
func (c BenchmarkCriterion) MarshalJSON() ([]byte, error) {
	var kind, axis *string
	if c.Kind != "" {
		kind = &c.Kind
	}
	if c.Axis != "" && c.Axis != DefaultAxis {
		axis = &c.Axis
	}
	if c.FailedRuns == nil {
		c.FailedRuns = []string{}
	}
	return jsonenc.Marshal(struct {
		CriterionID string   `json:"criterion_id"`
		Label       string   `json:"label"`
		Kind        *string  `json:"kind"`
		Axis        *string  `json:"axis"`
		Runs        int      `json:"runs"`
		PassRate    float64  `json:"pass_rate"`
		MeanScore   float64  `json:"mean_score"`
		Errors      int      `json:"errors"`
		FailedRuns  []string `json:"failed_runs"`
	}{c.CriterionID, c.Label, kind, axis, c.Runs, c.PassRate, c.MeanScore, c.Errors, c.FailedRuns})
}

// UnmarshalJSON reads what MarshalJSON writes (a null axis is DefaultAxis).
func (c *BenchmarkCriterion) UnmarshalJSON(data []byte) error {
	type plain BenchmarkCriterion
	var v struct {
		plain
		Kind *string `json:"kind"`
		Axis *string `json:"axis"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = BenchmarkCriterion(v.plain)
	c.Kind, c.Axis = "", DefaultAxis
	if v.Kind != nil {
		c.Kind = *v.Kind
	}
	if v.Axis != nil {
		c.Axis = *v.Axis
	}
	return nil
}

// VerdictCounts counts runs by verdict.
type VerdictCounts struct {
	Pass    int `json:"pass"`
	Partial int `json:"partial"`
	Fail    int `json:"fail"`
}

// Benchmark scores several task results; no tasks score 0 (fail). The runs
// are named "#0", "#1", ... in failed_runs; a BenchmarkBuilder names them.
func Benchmark(tasks []TaskResult) BenchmarkResult {
	var b BenchmarkBuilder
	for i, t := range tasks {
		b.Add("#"+strconv.Itoa(i), t)
	}
	return b.Result()
}

// BenchmarkBuilder accumulates a benchmark one run at a time, keeping only
// aggregates (sums per axis and per criterion, verdict counts, and the
// names of the runs that failed each criterion), so that a benchmark of any
// number of runs needs memory for its criteria, not its runs' results. Its
// zero value is ready to use; it is not safe for concurrent use.
//
// The sums are compensated (Neumaier), so the mean of a thousand runs that
// all scored 29/30 reads 0.9666666666666667, as one run does, and not a
// value that drifted in the last digits.
type BenchmarkBuilder struct {
	runs     int
	total    compensatedSum
	verdicts VerdictCounts
	axes     map[string]*axisSum
	criteria map[string]*criterionSum
	order    []*criterionSum
}

type axisSum struct {
	sum  compensatedSum
	runs int
}

type criterionSum struct {
	c      BenchmarkCriterion
	passed int
	sum    compensatedSum
}

// Add adds one run's task result under the run's name.
func (b *BenchmarkBuilder) Add(run string, t TaskResult) {
	if b.axes == nil {
		b.axes, b.criteria = map[string]*axisSum{}, map[string]*criterionSum{}
	}
	b.runs++
	b.total.add(t.Score)
	switch VerdictFor(t.Score) {
	case VerdictPass:
		b.verdicts.Pass++
	case VerdictPartial:
		b.verdicts.Partial++
	default:
		b.verdicts.Fail++
	}
	for name, a := range t.Axes {
		s := b.axes[name]
		if s == nil {
			s = &axisSum{}
			b.axes[name] = s
		}
		s.sum.add(a.Score)
		s.runs++
	}
	for _, cr := range t.Criteria {
		s := b.criteria[cr.CriterionID]
		if s == nil {
			axis := cr.Axis
			if axis == "" {
				axis = DefaultAxis
			}
			s = &criterionSum{c: BenchmarkCriterion{CriterionID: cr.CriterionID, Label: cr.Label, Kind: cr.Kind, Axis: axis}}
			b.criteria[cr.CriterionID] = s
			b.order = append(b.order, s)
		}
		s.c.Runs++
		s.sum.add(cr.Score)
		switch cr.Status {
		case StatusPassed:
			s.passed++
		case StatusError:
			s.c.Errors++
			s.c.FailedRuns = append(s.c.FailedRuns, run)
		default:
			s.c.FailedRuns = append(s.c.FailedRuns, run)
		}
	}
}

// Runs returns how many runs were added.
func (b *BenchmarkBuilder) Runs() int { return b.runs }

// Result returns the benchmark of the runs added so far.
func (b *BenchmarkBuilder) Result() BenchmarkResult {
	r := BenchmarkResult{Axes: map[string]BenchmarkAxis{}, Verdicts: b.verdicts, Criteria: make([]BenchmarkCriterion, 0, len(b.order))}
	for name, s := range b.axes {
		r.Axes[name] = BenchmarkAxis{Score: s.sum.value() / float64(s.runs), Runs: s.runs}
	}
	for _, s := range b.order {
		c := s.c
		c.FailedRuns = slices.Clone(c.FailedRuns)
		if c.Runs > 0 {
			c.PassRate = float64(s.passed) / float64(c.Runs)
			c.MeanScore = s.sum.value() / float64(c.Runs)
		}
		r.Criteria = append(r.Criteria, c)
	}
	if b.runs > 0 {
		r.Score = b.total.value() / float64(b.runs)
	}
	r.Verdict = VerdictFor(r.Score)
	return r
}

// compensatedSum is a running sum that carries the low-order bits each
// addition loses (Neumaier's variant of Kahan summation).
type compensatedSum struct{ sum, carry float64 }

func (s *compensatedSum) add(x float64) {
	t := s.sum + x
	if math.Abs(s.sum) >= math.Abs(x) {
		s.carry += (s.sum - t) + x
	} else {
		s.carry += (x - t) + s.sum
	}
	s.sum = t
}

func (s *compensatedSum) value() float64 { return s.sum + s.carry }

// Evaluate evaluates criteria through DefaultRegistry.
func Evaluate(ctx context.Context, criteria []Criterion, env *Env, opts ...Option) (TaskResult, error) {
	return defaultRegistry.Evaluate(ctx, criteria, env, opts...)
}
