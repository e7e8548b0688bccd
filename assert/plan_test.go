package assert_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/google/go-cmp/cmp"
)

const (
	passing = `{"assert": "fixed", "status": "passed", "score": 1}`
	failing = `{"assert": "fixed", "status": "failed", "score": 0}`
)

// A plan decodes once and evaluates against many environments; entity
// scoping leaves other entities' criteria out and keeps #N as the position
// in the list given.
func TestPlanEntityScoping(t *testing.T) {
	a := crit("for A", passing, 1, "")
	a.InputEntityID = "A"
	b := crit("for B", failing, 1, "")
	b.InputEntityID = "B"
	both := crit("for all", passing, 1, "")
	criteria := []assert.Criterion{a, b, both}
	plan, err := newTestRegistry().Compile(criteria)
	if err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int32
	res, err := plan.Evaluate(context.Background(), assert.NewEnv(), assert.WithEntity("A"),
		assert.WithProgress(func(done, total int) {
			progress.Add(1)
			if total != 2 || done < 1 || done > 2 {
				t.Errorf("progress %d/%d", done, total)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Criteria {
		ids = append(ids, c.CriterionID+" "+c.Label)
	}
	if diff := cmp.Diff([]string{"#0 for A", "#2 for all"}, ids); diff != "" {
		t.Errorf("criteria run for entity A (-want +got):\n%s", diff)
	}
	if res.Verdict != assert.VerdictPass || progress.Load() != 2 {
		t.Errorf("verdict %s, %d progress calls", res.Verdict, progress.Load())
	}
	if res.Counts.Skipped != 1 || res.Entity != "A" {
		t.Errorf("skipped %d for entity %q, want 1 for A", res.Counts.Skipped, res.Entity)
	}
	all, _ := plan.Evaluate(context.Background(), assert.NewEnv())
	if len(all.Criteria) != 3 || all.Verdict != assert.VerdictPartial || all.Counts.Skipped != 0 {
		t.Errorf("no entity: %d criteria, %s, %d skipped", len(all.Criteria), all.Verdict, all.Counts.Skipped)
	}
	// The entity an Env names (sandbox.Load sets it from run.json) scopes
	// as WithEntity does; WithEntity wins over it; an entity that could
	// not be read is an error, not a guess.
	env := assert.NewEnv()
	env.SetEntity("B", nil)
	byEnv, err := plan.Evaluate(context.Background(), env)
	if err != nil || len(byEnv.Criteria) != 2 || byEnv.Criteria[0].Label != "for B" || byEnv.Counts.Skipped != 1 {
		t.Errorf("entity from the env: %v, %+v", err, byEnv.Counts)
	}
	if won, _ := plan.Evaluate(context.Background(), env, assert.WithEntity("A")); won.Entity != "A" || won.Criteria[0].Label != "for A" {
		t.Errorf("WithEntity did not win over the env's entity: %q", won.Entity)
	}
	env.SetEntity("", errors.New("run.json: not JSON"))
	if _, err := plan.Evaluate(context.Background(), env); err == nil || !strings.Contains(err.Error(), "run.json: not JSON") {
		t.Errorf("an unreadable entity: %v", err)
	}
	if w := assert.ScopeWarning(criteria, ""); !strings.Contains(w, "2 of 3 criteria are scoped") {
		t.Errorf("warning %q", w)
	}
	if w := assert.ScopeWarning(criteria, "A"); w != "" {
		t.Errorf("warning with an entity: %q", w)
	}
	if w := assert.ScopeWarning([]assert.Criterion{both}, ""); w != "" {
		t.Errorf("warning with nothing scoped: %q", w)
	}
}

// A task result written as JSON reads back the same, so JSON lines from
// shards merge into the benchmark of one unsplit run.
func TestTaskResultJSONRoundTrip(t *testing.T) {
	res, err := newTestRegistry().Evaluate(context.Background(), []assert.Criterion{
		crit("a", passing, 2, "safety"), crit("b", failing, 1, ""),
	}, assert.NewEnv())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"fixed","axis":"safety","weight":2}`, `"kind":"fixed","axis":null,"weight":1}`, `"counts":{"passed":1,"failed":1,"error":0,"skipped":0}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	var back assert.TaskResult
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
