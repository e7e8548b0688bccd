package portal

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/specjson"
	"github.com/tidwall/gjson"
)

// Kind is the discriminator of the portal state assertion.
const Kind = "portal-state-match"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "portal-state-match",
  "type": "object",
  "required": ["assert", "correlate_by"],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": "portal-state-match"},
    "portal": {"type": "string", "minLength": 1},
    "correlate_by": {
      "type": "object",
      "required": ["resource", "key"],
      "additionalProperties": false,
      "properties": {
        "resource": {"type": "string", "minLength": 1},
        "key": {"type": "string", "minLength": 1},
        "value": {"type": ["string", "number", "boolean", "null"]}
      }
    },
    "assertions": ` + check.FieldsSchema + `
  }
}`

// Register adds portal-state-match to r, saying where it comes from and what
// it reads (the portal/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/portal"),
		assert.Reads[Source](assert.Evidence{Name: "portal", Folder: "portal", Attach: "portal.Attach"}),
		assert.Reports("matched", "assertion_results", "candidates"))
}

func init() { Register(assert.DefaultRegistry()) }

// stateMatch is a decoded portal-state-match assertion. It is immutable:
// the decoder builds it once from a validated spec.
type stateMatch struct {
	portal      string
	correlateBy correlation
	assertions  []check.Field
}

// correlation picks candidate rows: those of resource that have the column
// key, equal (as text) to value when hasValue.
type correlation struct {
	resource, key string
	value         string
	hasValue      bool
}

func decode(spec assert.Spec) (assert.Assertion, error) {
	obj := gjson.ParseBytes(spec)
	assertions, err := check.ParseFields([]byte(specjson.Member(obj, "assertions").Raw))
	if err != nil {
		return nil, err
	}
	by := specjson.Member(obj, "correlate_by")
	m := &stateMatch{portal: specjson.Member(obj, "portal").String(), assertions: assertions,
		correlateBy: correlation{resource: specjson.Member(by, "resource").String(), key: specjson.Member(by, "key").String()}}
	if v := specjson.Member(by, "value"); v.Exists() && v.Type != gjson.Null {
		// Rendered as row keys are, so that 5 matches "5".
		m.correlateBy.value, _ = columnText(v)
		m.correlateBy.hasValue = true
	}
	return m, nil
}

// Kind returns "portal-state-match".
func (m *stateMatch) Kind() string { return Kind }

// Check finds the candidate rows and judges them. Evidence: {"matched": the
// best row's key value, "assertion_results": [...], "candidates": N}.
func (m *stateMatch) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	state, err := src.State(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	c := m.correlateBy
	ix := state.index(m.portal, c.resource, c.key)
	rows := ix.rows
	searched := fmt.Sprintf("rows of %q with column %q", c.resource, c.key)
	if c.hasValue {
		rows = ix.byValue[c.value]
		searched = fmt.Sprintf("rows of %q with %s = %s", c.resource, c.key, strconv.Quote(c.value))
	}
	if m.portal != "" {
		searched += fmt.Sprintf(" in portal %q", m.portal)
	}
	if !ix.present {
		if portals := state.portalsHolding(c.resource); m.portal == "" && len(portals) > 0 {
			searched += fmt.Sprintf(" (the state is keyed by portal: name one of: %s)", strings.Join(portals, ", "))
		} else {
			searched += " (the state has no such resource)"
		}
	}
	return check.Candidates[row]{
		Items:  rows,
		Fields: len(m.assertions),
		Judge: func(_ int, r row) check.Candidate {
			results := make([]check.FieldResult, len(m.assertions))
			for j, f := range m.assertions {
				results[j] = check.JSONFieldResult(f, gjson.Get(r.raw, f.Path))
			}
			return check.Candidate{Key: r.key, Results: results}
		},
		Report: check.Report{
			Searched: searched, Held: ix.held, Noun: "row", ResultsKey: "assertion_results",
			Describe: func(key string) string { return fmt.Sprintf("%s row %s", c.resource, strconv.Quote(key)) },
		},
	}.Result()
}
