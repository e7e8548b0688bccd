package assert

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

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
	// Kind is the assertion's kind, when it has one.
	Kind string `json:"-"`
	// Axis is the criterion's axis (DefaultAxis when it names none) and
	// Weight its effective weight.
	Axis   string  `json:"-"`
	Weight float64 `json:"-"`
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
	// Criteria are in the order given.
	Criteria []CriterionResult `json:"criteria"`
}

// Option tunes evaluation.
type Option func(*options)

type options struct {
	concurrency int
	now         func() time.Time
}

// DefaultConcurrency is how many criteria Evaluate checks at once unless
// told otherwise. Checks mostly wait on I/O (a FHIR server, an SFTP
// endpoint), so it is not tied to the number of CPUs.
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

// Evaluate checks every criterion against env, concurrently (bounded by
// WithConcurrency), and rolls the results up into a TaskResult.
//
// A criterion whose spec has an unknown kind or breaks its schema gets status
// failed with details that say why; the others still run. A criterion whose
// weight is negative or not finite is a programmer error: Evaluate returns an
// error wrapping ErrInvalidWeight and checks nothing. When ctx ends first,
// the criteria not yet checked get status error and Evaluate returns the
// result along with ctx's error. A check that panics is reported as an error
// result, not propagated.
func (r *Registry) Evaluate(ctx context.Context, criteria []Criterion, env *Env, opts ...Option) (TaskResult, error) {
	o := options{concurrency: DefaultConcurrency, now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	for i, c := range criteria {
		if err := c.checkWeight(); err != nil {
			return TaskResult{}, fmt.Errorf("criterion %s: %w", criterionID(c, i), err)
		}
	}
	results := make([]CriterionResult, len(criteria))
	started := pool.Each(ctx, len(criteria), o.concurrency, func(i int) {
		results[i] = r.run(ctx, i, criteria[i], env, o.now)
	})
	for i := started; i < len(criteria); i++ {
		now := o.now()
		results[i] = newCriterionResult(i, criteria[i], Errored(fmt.Errorf("not checked: %w", ctx.Err())), now, now)
	}
	return Score(results), ctx.Err()
}

func (r *Registry) run(ctx context.Context, i int, c Criterion, env *Env, now func() time.Time) CriterionResult {
	start := now()
	var res Result
	if err := ctx.Err(); err != nil {
		res = Errored(fmt.Errorf("not checked: %w", err))
	} else if len(c.Assertion) == 0 {
		res = Fail(0, "invalid criterion: it has no assertion", nil)
	} else if a, err := r.Decode(c.Assertion); err != nil {
		res = Fail(0, err.Error(), nil)
	} else {
		res = Run(ctx, a, env)
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
	t.Verdict = VerdictFor(t.Score)
	return t
}

// BenchmarkResult is the result of several tasks: the plain mean of their
// scores, with the task verdict thresholds.
type BenchmarkResult struct {
	Score   float64 `json:"score"`
	Verdict Verdict `json:"verdict"`
	Tasks   int     `json:"tasks"`
}

// Benchmark scores several task results; no tasks score 0 (fail).
func Benchmark(tasks []TaskResult) BenchmarkResult {
	b := BenchmarkResult{Tasks: len(tasks)}
	for _, t := range tasks {
		b.Score += t.Score
	}
	if len(tasks) > 0 {
		b.Score /= float64(len(tasks))
	}
	b.Verdict = VerdictFor(b.Score)
	return b
}

// Evaluate evaluates criteria through DefaultRegistry.
func Evaluate(ctx context.Context, criteria []Criterion, env *Env, opts ...Option) (TaskResult, error) {
	return defaultRegistry.Evaluate(ctx, criteria, env, opts...)
}
