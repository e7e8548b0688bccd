package assert_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

// Evaluate checks weighted criteria against the evidence of one rollout and
// rolls them up into a score, per-axis scores and a verdict.
func ExampleEvaluate() {
	state, err := portal.ParseState([]byte(`{
	  "prior_auths": [{"member_id": "W123456789", "cpt": "72148", "status": "approved"}]
	}`))
	if err != nil {
		panic(err)
	}
	env := assert.NewEnv()
	portal.Attach(env, portal.MemorySource(state))

	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "auth approved", "weight": 2, "axis": "correctness",
	   "assertion": {"assert": "portal-state-match",
	                 "correlate_by": {"resource": "prior_auths", "key": "member_id", "value": "W123456789"},
	                 "assertions": [{"path": "status", "expected": "approved"}]}},
	  {"label": "peer-to-peer scheduled", "weight": 1, "axis": "safety",
	   "assertion": {"assert": "portal-state-match",
	                 "correlate_by": {"resource": "peer_to_peer", "key": "member_id"}}}
	]`))
	if err != nil {
		panic(err)
	}
	result, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		panic(err)
	}
	for _, c := range result.Criteria {
		fmt.Printf("%-22s %-6s %s\n", c.Label, c.Status, c.Details)
	}
	fmt.Printf("score %.3f, verdict %s\n", result.Score, result.Verdict)
	fmt.Printf("correctness %.1f (weight %v), safety %.1f (weight %v)\n",
		result.Axes["correctness"].Score, result.Axes["correctness"].Weight,
		result.Axes["safety"].Score, result.Axes["safety"].Weight)
	// Output:
	// auth approved          passed prior_auths row "W123456789" matched; 1 of 1 fields passed.
	// peer-to-peer scheduled failed No candidate: found no rows of "peer_to_peer" with column "member_id" (the state has no such resource); the source held 0 rows.
	// score 0.667, verdict partial
	// correctness 1.0 (weight 2), safety 0.0 (weight 1)
}

// wordCount is a kind defined outside assay: the agent's summary must have
// at most a number of words.
type wordCount struct {
	Max int `json:"max_words"`
}

// summarySource is the evidence wordCount reads. A kind defines the source
// interface it needs; harnesses attach an implementation to the Env.
type summarySource interface{ Summary() string }

type staticSummary string

func (s staticSummary) Summary() string { return string(s) }

func (w *wordCount) Kind() string { return "summary-length" }

func (w *wordCount) Check(_ context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[summarySource](env)
	if err != nil {
		return assert.Errored(err) // no evidence: status error, not a failure
	}
	n := len(strings.Fields(src.Summary()))
	details := fmt.Sprintf("the summary has %d words; at most %d allowed.", n, w.Max)
	if n > w.Max {
		return assert.Fail(0, details, map[string]int{"words": n})
	}
	return assert.Pass(details, map[string]int{"words": n})
}

// A kind from outside the module registers a JSON Schema and a decoder, in
// its own registry or in the default one, and is then decoded and evaluated
// like the built-in kinds.
func ExampleRegistry_Register() {
	reg := assert.NewRegistry()
	reg.Register("summary-length", []byte(`{
	  "$schema": "https://json-schema.org/draft/2020-12/schema",
	  "type": "object",
	  "required": ["assert", "max_words"],
	  "additionalProperties": false,
	  "properties": {
	    "assert": {"const": "summary-length"},
	    "max_words": {"type": "integer", "minimum": 1}
	  }
	}`), func(spec assert.Spec) (assert.Assertion, error) {
		var w wordCount
		err := json.Unmarshal(spec, &w)
		return &w, err
	})

	env := assert.NewEnv()
	assert.Attach[summarySource](env, staticSummary("MRI lumbar spine approved, auth AUTH88231."))
	result, _ := reg.Evaluate(context.Background(), []assert.Criterion{
		{Label: "short summary", Assertion: assert.Spec(`{"assert": "summary-length", "max_words": 10}`)},
		{Label: "typo", Assertion: assert.Spec(`{"assert": "summary-length", "max_word": 10}`)},
	}, env)
	for _, c := range result.Criteria {
		fmt.Printf("%s: %s: %s\n", c.Label, c.Status, c.Details)
	}
	_ = json.NewEncoder(os.Stdout).Encode(result.Criteria[0].Evidence)
	// Output:
	// short summary: passed: the summary has 6 words; at most 10 allowed.
	// typo: failed: invalid assertion "summary-length": /: missing required key "max_words"; /max_word: unknown key "max_word" (did you mean "max_words"?)
	// {"words":6}
}
