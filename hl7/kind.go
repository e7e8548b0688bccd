package hl7

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/specjson"
)

// Kind is the discriminator of the HL7 structural assertion.
const Kind = "hl7-structural"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "hl7-structural",
  "description": "Some captured outbound HL7 v2 message, picked by correlate_by (keys are HL7 paths such as MSH.9.2, or message_type, trigger_event, message_structure, control_id, sending_application, receiving_application), satisfies every field assertion.",
  "type": "object",
  "required": ["assert"],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": "hl7-structural"},
    "correlate_by": ` + check.CorrelateBySchema + `,
    "fields": ` + check.FieldsSchema + `
  }
}`

// Register adds hl7-structural to r, saying where it comes from and what
// it reads (the hl7/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/hl7"),
		assert.Reads[Source](assert.Evidence{Name: "hl7", Folder: "hl7", Attach: "hl7.Attach"}),
		assert.Reports("matched", "field_results", "candidates", "message_index", "captured"))
}

func init() { Register(assert.DefaultRegistry()) }

// correlationNames maps the names correlate_by accepts besides paths to the
// paths they stand for.
var correlationNames = map[string]string{
	"message_type":          "MSH.9.1",
	"trigger_event":         "MSH.9.2",
	"message_structure":     "MSH.9.3",
	"control_id":            "MSH.10",
	"sending_application":   "MSH.3.1",
	"receiving_application": "MSH.5.1",
}

// structural is the compiled hl7-structural assertion: immutable once
// decoded, its paths parsed and its correlation entries in key order.
type structural struct {
	correlate []correlation
	fields    []check.Field
	paths     []Path
}

// correlation is one correlate_by entry: the value at path must compare
// equal to expected with the text rules of package check (a wildcard path
// matches when any selected value does).
type correlation struct {
	key      string // as written: a name such as "control_id", or a path
	path     Path
	expected any
}

func decode(spec assert.Spec) (assert.Assertion, error) {
	obj := gjson.ParseBytes(spec)
	fields, err := check.ParseFields([]byte(specjson.Member(obj, "fields").Raw))
	if err != nil {
		return nil, err
	}
	correlations, err := check.ParseCorrelations([]byte(specjson.Member(obj, "correlate_by").Raw))
	if err != nil {
		return nil, err
	}
	s := &structural{fields: fields}
	var viols []assert.Violation
	for _, c := range correlations {
		text := c.Key
		if named, ok := correlationNames[c.Key]; ok {
			text = named
		}
		p, err := ParsePath(text)
		if err != nil {
			viols = append(viols, assert.Violation{Pointer: c.Pointer, Message: fmt.Sprintf("%q is neither an HL7 path nor one of %s: %v", c.Key, nameList(), err)})
			continue
		}
		s.correlate = append(s.correlate, correlation{key: c.Key, path: p, expected: c.Expected})
	}
	var pathViols []assert.Violation
	s.paths, pathViols = check.ParsePaths(fields, "/fields", ParsePath)
	if viols = append(viols, pathViols...); len(viols) > 0 {
		return nil, &assert.SpecError{Kind: Kind, Violations: viols}
	}
	return s, nil
}

func nameList() string {
	names := make([]string, 0, len(correlationNames))
	for n := range correlationNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Kind returns "hl7-structural".
func (s *structural) Kind() string { return Kind }

// Check finds the captured messages every correlate_by entry matches and
// judges them. Evidence: {"matched": the best message's control id,
// "field_results": [...], "candidates": N, "message_index": its 0-based
// position among the captured messages (null when none), "captured": how
// many messages the source held}, plus "rejected" when the source refused
// inputs.
func (s *structural) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	msgs, err := src.Messages(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	rejects, err := src.Rejects(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	best, bestPassed := -1, -1
	res := check.Candidates[*Message]{
		Items:     msgs,
		Correlate: s.correlates,
		Fields:    len(s.fields),
		Judge: func(i int, m *Message) check.Candidate {
			c := s.judge(i, m)
			if p := check.Passed(c.Results); p > bestPassed { // the rule of check.BestOf
				best, bestPassed = i, p
			}
			return c
		},
		Report: check.Report{Searched: s.searched(), Noun: "message", Describe: func(key string) string { return "message " + key }},
	}.Result()
	return withExtra(res, best, len(msgs), src, rejects)
}

// judge reads every field path of one candidate.
func (s *structural) judge(i int, m *Message) check.Candidate {
	results := make([]check.FieldResult, len(s.fields))
	for j, f := range s.fields {
		results[j] = check.TextField(f, m.Texts(s.paths[j]))
	}
	return check.Candidate{Key: candidateKey(m, i), Results: results}
}

// withExtra adds the members hl7-structural reports after "candidates".
func withExtra(res assert.Result, best, captured int, src Source, rejects []Reject) assert.Result {
	ev, ok := res.Evidence.(check.Evidence)
	if !ok {
		return res
	}
	var index any
	if best >= 0 {
		index = best
	}
	ev.Extra = []check.Member{{Key: "message_index", Value: index}, {Key: "captured", Value: captured}}
	total := len(rejects)
	if rc, ok := src.(interface{ RejectCount() int }); ok {
		total = max(total, rc.RejectCount())
	}
	if len(rejects) > maxListedRejects {
		rejects = rejects[:maxListedRejects]
	}
	if len(rejects) > 0 {
		list := make([]rejectEvidence, len(rejects))
		for i, r := range rejects {
			list[i] = rejectEvidence{Index: r.Index, From: r.From, Code: r.Code, ControlID: r.ControlID, Reason: assert.Truncate(r.Err.Error())}
		}
		ev.Extra = append(ev.Extra, check.Member{Key: "rejected", Value: list})
	}
	if total > len(rejects) {
		ev.Extra = append(ev.Extra, check.Member{Key: "rejects_not_listed", Value: total - len(rejects)})
	}
	res.Evidence = ev
	return res
}

// maxListedRejects is how many rejects the evidence lists; the rest are
// counted under "rejects_not_listed".
const maxListedRejects = 100

// rejectEvidence is one "rejected" entry of the evidence.
type rejectEvidence struct {
	Index     int    `json:"index"`
	From      string `json:"from"`
	Code      string `json:"code,omitempty"`
	ControlID string `json:"control_id,omitempty"`
	Reason    string `json:"reason"`
}

// correlates reports whether every correlate_by entry matches m.
func (s *structural) correlates(m *Message) bool {
	for _, c := range s.correlate {
		if !check.TextField(check.Field{Path: c.key, Expected: c.expected}, m.Texts(c.path)).Passed {
			return false
		}
	}
	return true
}

// candidateKey names a message in evidence by its control id, or by its
// position when it has none.
func candidateKey(m *Message, i int) string {
	if id := m.ControlID(); id != "" {
		return id
	}
	return "#" + strconv.Itoa(i)
}

func (s *structural) searched() string {
	if len(s.correlate) == 0 {
		return "messages"
	}
	parts := make([]string, len(s.correlate))
	for i, c := range s.correlate {
		parts[i] = c.key + " = " + describeValue(c.expected)
	}
	return "messages with " + strings.Join(parts, " and ")
}

func describeValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	}
	return fmt.Sprint(v)
}
