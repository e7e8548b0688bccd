package assert_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/google/go-cmp/cmp"
)

const (
	pass = `{"assert": "fixed", "status": "passed", "score": 1}`
	fail = `{"assert": "fixed", "status": "failed", "score": 0}`
)

func TestEvaluateScoring(t *testing.T) {
	tests := []struct {
		name     string
		criteria []assert.Criterion
		score    float64
		verdict  assert.Verdict
		axes     map[string]assert.AxisScore
	}{
		{
			name: "weights 2 and 1 with scores 1 and 0",
			criteria: []assert.Criterion{
				crit("a", pass, 2, "correctness"),
				crit("b", fail, 1, "safety"),
			},
			score: 2.0 / 3, verdict: assert.VerdictPartial,
			axes: map[string]assert.AxisScore{"correctness": {Score: 1, Weight: 2}, "safety": {Score: 0, Weight: 1}},
		},
		{
			name: "weights 0.1 0.2 0.7 with scores 0 1 1 pass despite floating-point sums",
			criteria: []assert.Criterion{
				crit("a", fail, 0.1, ""),
				crit("b", pass, 0.2, ""),
				crit("c", pass, 0.7, ""),
			},
			score: 0.9, verdict: assert.VerdictPass,
			axes: map[string]assert.AxisScore{assert.DefaultAxis: {Score: 0.9, Weight: 1}},
		},
		{
			name: "partial scores are weighted",
			criteria: []assert.Criterion{
				crit("a", `{"assert": "fixed", "status": "failed", "score": 0.5}`, 3, "x"),
				crit("b", pass, 1, ""),
			},
			score: 2.5 / 4, verdict: assert.VerdictPartial,
			axes: map[string]assert.AxisScore{"x": {Score: 0.5, Weight: 3}, assert.DefaultAxis: {Score: 1, Weight: 1}},
		},
		{
			name: "an error scores 0 whatever it claims",
			criteria: []assert.Criterion{
				crit("a", `{"assert": "fixed", "status": "error", "score": 1}`, 1, ""),
			},
			score: 0, verdict: assert.VerdictFail,
			axes: map[string]assert.AxisScore{assert.DefaultAxis: {Score: 0, Weight: 1}},
		},
		{
			name: "scores are clamped to [0,1]",
			criteria: []assert.Criterion{
				crit("a", `{"assert": "fixed", "status": "passed", "score": 7}`, 1, ""),
				crit("b", `{"assert": "fixed", "status": "failed", "score": -3}`, 1, ""),
			},
			score: 0.5, verdict: assert.VerdictPartial,
			axes: map[string]assert.AxisScore{assert.DefaultAxis: {Score: 0.5, Weight: 2}},
		},
		{
			name:     "no criteria fail",
			criteria: nil,
			score:    0, verdict: assert.VerdictFail,
			axes: map[string]assert.AxisScore{},
		},
		{
			name: "all weights zero fail with score 0, the axis scoring 0",
			criteria: []assert.Criterion{
				crit("a", pass, 0, "x"),
			},
			score: 0, verdict: assert.VerdictFail,
			axes: map[string]assert.AxisScore{"x": {Score: 0, Weight: 0}},
		},
		{
			name: "nil weight means 1",
			criteria: []assert.Criterion{
				{Label: "a", Assertion: assert.Spec(pass)},
				crit("b", fail, 1, ""),
			},
			score: 0.5, verdict: assert.VerdictPartial,
			axes: map[string]assert.AxisScore{assert.DefaultAxis: {Score: 0.5, Weight: 2}},
		},
		{
			name: "unknown kind fails its own criterion only",
			criteria: []assert.Criterion{
				crit("a", pass, 1, ""),
				crit("b", `{"assert": "no-such-kind"}`, 1, ""),
				crit("c", pass, 1, ""),
			},
			score: 2.0 / 3, verdict: assert.VerdictPartial,
			axes: map[string]assert.AxisScore{assert.DefaultAxis: {Score: 2.0 / 3, Weight: 3}},
		},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := newTestRegistry().Evaluate(context.Background(), tt.criteria, assert.NewEnv())
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Score-tt.score) > 1e-9 {
				t.Errorf("score = %v, want %v", res.Score, tt.score)
			}
			if res.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s", res.Verdict, tt.verdict)
			}
			if diff := cmp.Diff(tt.axes, res.Axes, approx); diff != "" {
				t.Errorf("axes (-want +got):\n%s", diff)
			}
			if len(res.Criteria) != len(tt.criteria) {
				t.Fatalf("%d results for %d criteria", len(res.Criteria), len(tt.criteria))
			}
			for i, cr := range res.Criteria {
				if cr.Label != tt.criteria[i].Label {
					t.Errorf("result %d is %q, want the criteria's order", i, cr.Label)
				}
				if cr.Passed != (cr.Status == assert.StatusPassed) {
					t.Errorf("result %d: passed %v with status %s", i, cr.Passed, cr.Status)
				}
			}
		})
	}
}

func TestVerdictFor(t *testing.T) {
	for _, tt := range []struct {
		score float64
		want  assert.Verdict
	}{
		{1, assert.VerdictPass}, {0.9, assert.VerdictPass}, {0.9 - 1e-10, assert.VerdictPass},
		{0.8999, assert.VerdictPartial}, {0.001, assert.VerdictPartial},
		{0, assert.VerdictFail}, {1e-12, assert.VerdictFail},
	} {
		if got := assert.VerdictFor(tt.score); got != tt.want {
			t.Errorf("VerdictFor(%v) = %s, want %s", tt.score, got, tt.want)
		}
	}
}

func TestEvaluateUnknownKindDetails(t *testing.T) {
	res, _ := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{crit("b", `{"assert": "no-such-kind"}`, 1, "")}, assert.NewEnv())
	cr := res.Criteria[0]
	if cr.Status != assert.StatusFailed || !strings.Contains(cr.Details, `unknown kind "no-such-kind"`) || !strings.Contains(cr.Details, "fixed") {
		t.Fatalf("got %s %q", cr.Status, cr.Details)
	}
}

func TestEvaluateInvalidSpecFails(t *testing.T) {
	specs := map[string]string{
		"typo'd key":        `{"assert": "fixed", "status": "passed", "scroe": 1}`,
		"no assert":         `{"status": "passed", "score": 1}`,
		"not an object":     `[1, 2]`,
		"assert not string": `{"assert": 5}`,
		"not JSON":          `{"assert": "fixed"`,
		"wrong enum":        `{"assert": "fixed", "status": "maybe"}`,
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			res, err := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, assert.NewEnv())
			if err != nil {
				t.Fatal(err)
			}
			cr := res.Criteria[0]
			if cr.Status != assert.StatusFailed || cr.Score != 0 || !strings.HasPrefix(cr.Details, "invalid assertion") {
				t.Fatalf("got %s %v %q", cr.Status, cr.Score, cr.Details)
			}
		})
	}
}

func TestEvaluateMissingSourceIsError(t *testing.T) {
	r := newTestRegistry()
	res, _ := r.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(`{"assert": "needs-source"}`)}}, assert.NewEnv())
	cr := res.Criteria[0]
	if cr.Status != assert.StatusError || !strings.Contains(cr.Details, "assert_test.clockSource") {
		t.Fatalf("got %s %q", cr.Status, cr.Details)
	}
	env := assert.NewEnv()
	assert.Attach[clockSource](env, fakeClock(7))
	res, _ = r.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(`{"assert": "needs-source"}`)}}, env)
	if cr := res.Criteria[0]; cr.Status != assert.StatusPassed || cr.Details != "hour 7" {
		t.Fatalf("with the source attached: %s %q", cr.Status, cr.Details)
	}
}

type fakeClock int

func (c fakeClock) Hour() int { return int(c) }

func TestEnvKeysByStaticType(t *testing.T) {
	env := assert.NewEnv()
	assert.Attach(env, fakeClock(3)) // attached as fakeClock, not clockSource
	if _, err := assert.Lookup[clockSource](env); err == nil {
		t.Fatal("a source attached under its dynamic type was found under an interface type")
	}
	var mse *assert.MissingSourceError
	if _, err := assert.Lookup[clockSource](env); !errors.As(err, &mse) {
		t.Fatalf("error %T is not a *MissingSourceError", err)
	}
}

func TestEvaluateRejectsBadWeights(t *testing.T) {
	for _, w := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{crit("a", pass, w, "")}, assert.NewEnv())
		if !errors.Is(err, assert.ErrInvalidWeight) {
			t.Errorf("weight %v: err = %v, want ErrInvalidWeight", w, err)
		}
	}
}

func TestEvaluatePanickingCheckIsError(t *testing.T) {
	res, err := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{
		crit("boom", `{"assert": "fixed", "status": "passed", "panic": true}`, 1, ""),
		crit("ok", pass, 1, ""),
	}, assert.NewEnv())
	if err != nil {
		t.Fatal(err)
	}
	if cr := res.Criteria[0]; cr.Status != assert.StatusError || !strings.Contains(cr.Details, "panicked: boom") {
		t.Fatalf("got %s %q", cr.Status, cr.Details)
	}
	if res.Criteria[1].Status != assert.StatusPassed {
		t.Fatal("a panic in one check stopped another")
	}
}

func TestEvaluateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	criteria := make([]assert.Criterion, 50)
	for i := range criteria {
		criteria[i] = crit("x", pass, 1, "")
	}
	res, err := newTestRegistry().Evaluate(ctx, criteria, assert.NewEnv(), assert.WithConcurrency(2))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(res.Criteria) != 50 {
		t.Fatalf("%d results", len(res.Criteria))
	}
	for i, cr := range res.Criteria {
		if cr.Status != assert.StatusError || !strings.Contains(cr.Details, "context canceled") {
			t.Fatalf("result %d: %s %q", i, cr.Status, cr.Details)
		}
	}
	if res.Verdict != assert.VerdictFail {
		t.Fatalf("verdict %s", res.Verdict)
	}
}

func TestEvaluateCriterionIDsAndClock(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	c1 := crit("a", pass, 1, "")
	c1.ID = "crit_1"
	res, _ := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{c1, crit("b", pass, 1, "")}, assert.NewEnv(),
		assert.WithClock(func() time.Time { return at }))
	if res.Criteria[0].CriterionID != "crit_1" || res.Criteria[1].CriterionID != "#1" {
		t.Fatalf("ids %q %q", res.Criteria[0].CriterionID, res.Criteria[1].CriterionID)
	}
	if !res.Criteria[1].StartedAt.Equal(at) || !res.Criteria[1].CompletedAt.Equal(at) {
		t.Fatal("the clock option was not used")
	}
}

func TestBenchmarkMean(t *testing.T) {
	b := assert.Benchmark([]assert.TaskResult{
		{Score: 1, Axes: map[string]assert.AxisScore{"safety": {Score: 1}, "correctness": {Score: 1}}},
		{Score: 0.5, Axes: map[string]assert.AxisScore{"correctness": {Score: 0.5}}},
		{Score: 0.8},
	})
	if math.Abs(b.Score-2.3/3) > 1e-12 || b.Verdict != assert.VerdictPartial {
		t.Fatalf("got %+v", b)
	}
	if b.Verdicts != (assert.VerdictCounts{Pass: 1, Partial: 2}) {
		t.Errorf("verdicts %+v", b.Verdicts)
	}
	// Axis means are over the runs whose results list the axis.
	if b.Axes["correctness"] != (assert.BenchmarkAxis{Score: 0.75, Runs: 2}) || b.Axes["safety"] != (assert.BenchmarkAxis{Score: 1, Runs: 1}) {
		t.Errorf("axes %+v", b.Axes)
	}
	if b := assert.Benchmark([]assert.TaskResult{{Score: 1}, {Score: 0.8}}); b.Verdict != assert.VerdictPass {
		t.Fatalf("mean 0.9 gave %s", b.Verdict)
	}
	if b := assert.Benchmark(nil); b.Score != 0 || b.Verdict != assert.VerdictFail {
		t.Fatalf("no tasks gave %+v", b)
	}
}

// The mean of many equal runs is that run's score to the last digit: a
// plain running sum of 1,000 scores of 29/30 drifts to 0.9666666666666742.
func TestBenchmarkMeanDoesNotDrift(t *testing.T) {
	for _, n := range []int{3, 1000, 100000} {
		one := 29.0 / 30
		tasks := make([]assert.TaskResult, n)
		for i := range tasks {
			tasks[i] = assert.TaskResult{Score: one, Axes: map[string]assert.AxisScore{"correctness": {Score: one}}}
		}
		b := assert.Benchmark(tasks)
		if b.Score != one || b.Axes["correctness"].Score != one {
			t.Errorf("%d runs of %v: mean %v, axis %v", n, one, b.Score, b.Axes["correctness"].Score)
		}
	}
}

func TestTruncate(t *testing.T) {
	short := strings.Repeat("é", assert.MaxQuote)
	if assert.Truncate(short) != short {
		t.Fatal("a quote of exactly MaxQuote characters was cut")
	}
	long := strings.Repeat("é", assert.MaxQuote+10)
	got := assert.Truncate(long)
	if !strings.HasPrefix(got, short) || !strings.HasSuffix(got, "…[truncated 10 more characters]") {
		t.Fatalf("got …%q", got[len(got)-40:])
	}
}
