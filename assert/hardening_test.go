package assert_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"gopkg.in/yaml.v3"
)

// A 64 KB document whose aliases repeat one large scalar a million times
// stays under the node limit; the expansion bound stops it before it needs
// gigabytes.
func TestYAMLAliasExpansionBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a \"" + strings.Repeat("x", 60_000) + "\"\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g"} {
		b.WriteString(name + ": &" + name + " [")
		for i := range 10 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	if b.Len() > 64<<10 {
		t.Fatalf("document is %d bytes; the case is about small inputs", b.Len())
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &n); err != nil {
		t.Fatal(err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := assert.ConvertYAML(&n)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var ye *assert.YAMLError
	if !errors.As(err, &ye) || !strings.Contains(err.Error(), "aliases expand past") {
		t.Fatalf("err = %v, want the expansion bound", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<30 {
		t.Errorf("converting allocated %d bytes before giving up", grew)
	}
}

// Two weights of 1e308 are two equal weights: their sum does not overflow
// into NaN, and a criterion set that all passed still passes.
func TestHugeWeights(t *testing.T) {
	results := []assert.CriterionResult{
		{Status: assert.StatusPassed, Score: 1, Weight: 1e308, Axis: "a"},
		{Status: assert.StatusPassed, Score: 1, Weight: 1e308, Axis: "a"},
		{Status: assert.StatusFailed, Score: 0, Weight: 1, Axis: "b"},
	}
	task := assert.Score(results)
	if task.Verdict != assert.VerdictPass || math.IsNaN(task.Score) || task.Score < 0.999 {
		t.Fatalf("score %v verdict %s", task.Score, task.Verdict)
	}
	if w := task.Axes["a"].Weight; w != math.MaxFloat64 {
		t.Errorf("axis a weight %v, want the largest finite number", w)
	}
	if s := task.Axes["a"].Score; s != 1 {
		t.Errorf("axis a score %v", s)
	}
	half := assert.Score([]assert.CriterionResult{
		{Status: assert.StatusPassed, Score: 1, Weight: math.MaxFloat64},
		{Status: assert.StatusFailed, Score: 0, Weight: math.MaxFloat64},
	})
	if half.Score != 0.5 || half.Verdict != assert.VerdictPartial {
		t.Errorf("two maximal weights, one passed: %v %s", half.Score, half.Verdict)
	}
}

// A criteria file is strict: "wieght" is not silently ignored (it would
// weigh 1), and every problem is reported at once. The API's reading
// (UnmarshalJSON) stays lenient.
func TestCriteriaFileUnknownKeys(t *testing.T) {
	_, err := assert.ParseCriteria([]byte(`[
	  {"label": "a", "wieght": 5, "assertion": {"exit_code": 0}},
	  {"label": "b", "assertion": "exit_code"},
	  {"label": "c"}
	]`))
	var all assert.CriteriaErrors
	if !errors.As(err, &all) || len(all) != 3 {
		t.Fatalf("err = %v, want three problems", err)
	}
	for i, want := range []string{
		`/0/wieght: unknown criterion key "wieght"`,
		`/1/assertion: assertion must be an object, not a string`,
		`/2/assertion: missing: every criterion needs an assertion`,
	} {
		if !strings.HasPrefix(all[i].Error(), want) {
			t.Errorf("problem %d = %q, want prefix %q", i, all[i], want)
		}
	}
	var c assert.Criterion
	if err := c.UnmarshalJSON([]byte(`{"label": "x", "server_added": true, "assertion": {"exit_code": 0}}`)); err != nil {
		t.Errorf("lenient reading rejected an unknown key: %v", err)
	}
	if _, err := assert.ParseCriteria([]byte(`{"data": [{"label": "x", "assertion": {"exit_code": 0}}], "_meta": {"next": null}}`)); err != nil {
		t.Errorf("a list response's other keys must be ignored: %v", err)
	}
}

func TestCriteriaSyntaxErrorHasLineColumn(t *testing.T) {
	_, err := assert.ParseCriteria([]byte("[\n  {\"label\": \"a\",\n   \"assertion\": {]\n]"))
	if err == nil || !strings.Contains(err.Error(), "line 3, column") {
		t.Fatalf("err = %v, want a line and column", err)
	}
}

func TestLineColumn(t *testing.T) {
	for _, tc := range []struct {
		data         string
		offset       int
		line, column int
	}{
		{"abc", 0, 1, 1},
		{"abc", 2, 1, 3},
		{"a\nb", 2, 2, 1},
		{"a\rb\rc", 4, 3, 1},     // CR-only, as X12 files often are
		{"a\r\nb\r\nc", 6, 3, 1}, // CRLF is one break
		{"a\r\nb", 2, 1, 3},      // the LF of a CRLF ends line 1
		{"é\né", 4, 2, 2},        // columns count runes
		{"ab", 99, 1, 3},         // past the end: the end
	} {
		line, col := assert.LineColumn([]byte(tc.data), tc.offset)
		if line != tc.line || col != tc.column {
			t.Errorf("LineColumn(%q, %d) = %d:%d, want %d:%d", tc.data, tc.offset, line, col, tc.line, tc.column)
		}
	}
}

func TestLocationString(t *testing.T) {
	for _, tc := range []struct {
		loc  assert.Location
		want string
	}{
		{assert.Location{}, ""},
		{assert.Location{File: "a.yaml", Line: 3, Column: 5, Pointer: "/tasks/0"}, "a.yaml:3:5: /tasks/0"},
		{assert.Location{File: "b.x12", Line: 2, Column: 1, Segment: 7}, "b.x12:2:1: segment 7"},
		{assert.Location{Pointer: "/0/weight"}, "/0/weight"},
		{assert.Location{Line: 4}, "4"},
	} {
		if got := tc.loc.String(); got != tc.want {
			t.Errorf("%+v = %q, want %q", tc.loc, got, tc.want)
		}
	}
	if got := (assert.Location{File: "f"}).Prefix("bad"); got != "f: bad" {
		t.Errorf("Prefix = %q", got)
	}
}

type panicky struct{}

func (panicky) Kind() string { return "panicky" }
func (panicky) Check(context.Context, *assert.Env) assert.Result {
	panic("boom")
}

type overScored struct{}

func (overScored) Kind() string { return "over" }
func (overScored) Check(context.Context, *assert.Env) assert.Result {
	return assert.Result{Status: assert.StatusError, Score: 7}
}

func TestRun(t *testing.T) {
	res := assert.Run(context.Background(), panicky{}, assert.NewEnv())
	if res.Status != assert.StatusError || !strings.Contains(res.Details, `"panicky" check panicked: boom`) {
		t.Errorf("panic: %+v", res)
	}
	if res := assert.Run(context.Background(), overScored{}, nil); res.Score != 0 || res.Passed {
		t.Errorf("error result not normalised: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := assert.Run(ctx, panicky{}, nil); res.Status != assert.StatusError || !strings.Contains(res.Details, "not checked") {
		t.Errorf("ended ctx: %+v", res)
	}
	if res := assert.Run(context.Background(), nil, nil); res.Status != assert.StatusFailed {
		t.Errorf("nil assertion: %+v", res)
	}
}
