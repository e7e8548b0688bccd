package x12

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/specjson"
)

// Kind is the discriminator of the X12 response assertion.
const Kind = "x12-response"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "x12-response",
  "type": "object",
  "required": ["assert"],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": "x12-response"},
    "transaction": {"enum": ["270", "271", "272", "273", "274", "275", "276", "277", "278", null]},
    "correlate_by": ` + check.CorrelateBySchema + `,
    "fields": ` + check.FieldsSchema + `
  }
}`

// Register adds x12-response to r, saying where it comes from and what it
// reads (the x12/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/x12"),
		assert.Reads[Source](assert.Evidence{Name: "x12", Folder: "x12", Attach: "x12.Attach"}),
		assert.Reports("matched", "field_results", "candidates"))
}

func init() { Register(assert.DefaultRegistry()) }

// response is the decoded x12-response assertion: some recorded exchange
// of the transaction set, correlated by paths on its response or by its
// metadata, has a response whose fields hold the expected values. It is
// immutable: decode compiles every path, and nothing can change after.
type response struct {
	// transaction is "270" to "278", or "" for any. "270" and "271" both
	// select eligibility exchanges, "276" and "277" claim status ones.
	transaction string
	// keys are the correlate_by entries in key order, each a record
	// metadata name or an X12 path evaluated on the response (a string,
	// json.Number, bool or nil), compared as text.
	keys []correlation
	// fields are checked against each candidate's response; paths are
	// their compiled paths.
	fields []check.Field
	paths  []Path
}

type correlation struct {
	key      string
	expected any
	path     Path
	isPath   bool
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
	r := &response{fields: fields, transaction: specjson.Member(obj, "transaction").String()}
	var viols []assert.Violation
	if r.paths, viols = check.ParsePaths(fields, "/fields", ParsePath); len(viols) > 0 {
		return nil, &assert.SpecError{Kind: Kind, Violations: viols}
	}
	for _, c := range correlations {
		k := correlation{key: c.Key, expected: c.Expected}
		if p, err := ParsePath(c.Key); err == nil {
			k.path, k.isPath = p, true
		}
		r.keys = append(r.keys, k)
	}
	return r, nil
}

// Kind returns "x12-response".
func (r *response) Kind() string { return Kind }

// family groups a transaction set with its counterpart: an eligibility
// inquiry with its response, a claim status request with its response.
func family(code string) string {
	switch code {
	case "271":
		return "270"
	case "277":
		return "276"
	}
	return code
}

// candidate is a record with its parsed interchanges.
type candidate struct {
	rec           Record
	x, request    *Interchange
	key, describe string
}

// Check finds the candidate records and judges their responses. Evidence:
// {"matched": the best response's ST02, "field_results": [...],
// "candidates": N}.
//
// A record whose response cannot be parsed as X12 makes the check an error:
// the recorded evidence is malformed. Envelope findings in a response do
// not: the response is read leniently.
func (r *response) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	recs, err := src.Records(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	items := make([]candidate, len(recs))
	for i, rec := range recs {
		if err := ctx.Err(); err != nil {
			return assert.Errored(err)
		}
		if items[i], err = load(i, rec); err != nil {
			return assert.Errored(err)
		}
	}
	best, bestPassed := -1, -1
	return check.Candidates[candidate]{
		Items:     items,
		Correlate: func(c candidate) bool { return r.selects(c) && correlates(r.keys, c.rec, c.x) },
		Fields:    len(r.fields),
		Judge: func(i int, c candidate) check.Candidate {
			results := make([]check.FieldResult, len(r.fields))
			var buf [8]string
			passed := 0
			for j, f := range r.fields {
				results[j] = check.TextField(f, r.paths[j].AppendValues(buf[:0], c.x))
				if results[j].Passed {
					passed++
				}
			}
			if passed > bestPassed { // the rule check.Candidates picks its best by
				best, bestPassed = i, passed
			}
			return check.Candidate{Key: c.key, Results: results}
		},
		Report: check.Report{
			Searched: searched(r.transaction, r.keys),
			Noun:     "record",
			// Responses may share an ST02: name the best record.
			Describe: func(key string) string {
				if best >= 0 && items[best].key == key {
					return items[best].describe
				}
				return key
			},
		},
	}.Result()
}

// load parses record i, naming it for evidence and details.
func load(i int, rec Record) (candidate, error) {
	name := rec.Name
	if name == "" {
		name = "#" + strconv.Itoa(i)
	}
	x, request, err := rec.interchanges()
	if err != nil {
		return candidate{}, fmt.Errorf("x12 record %s: the response cannot be read: %w", name, err)
	}
	c := candidate{rec: rec, x: x, request: request, key: "record " + name, describe: "record " + name}
	if txs := x.Transactions(); len(txs) > 0 {
		c.key = txs[0].Control
		c.describe = fmt.Sprintf("the %s response %s (record %s)", txs[0].Code, strconv.Quote(c.key), name)
	}
	return c, nil
}

// selects reports whether c is about r's transaction set (any, when r
// names none): the record's declared transaction, or a transaction set of
// its request or response, is in the same family.
func (r *response) selects(c candidate) bool {
	if r.transaction == "" {
		return true
	}
	want := family(r.transaction)
	if c.rec.Transaction != "" && family(c.rec.Transaction) == want {
		return true
	}
	for _, tx := range c.x.Transactions() {
		if family(tx.Code) == want {
			return true
		}
	}
	if c.request != nil {
		// The request is what the agent sent: one that cannot be parsed
		// (nil here) just says nothing about the transaction set.
		for _, tx := range c.request.Transactions() {
			if family(tx.Code) == want {
				return true
			}
		}
	}
	return false
}

// correlates reports whether every correlate_by entry holds for rec: a key
// the record's metadata has compares with that value, any other key is an
// X12 path on the response (a key that is neither selects nothing).
func correlates(keys []correlation, rec Record, resp *Interchange) bool {
	for _, c := range keys {
		var values []string
		if v, ok := rec.Metadata[c.key]; ok {
			if text, present := metadataText(v); present {
				values = []string{text}
			}
		} else if c.isPath {
			values = c.path.Values(resp)
		}
		if !check.TextField(check.Field{Path: c.key, Expected: c.expected}, values).Passed {
			return false
		}
	}
	return true
}

// metadataText renders a metadata value as text; false for null.
func metadataText(v any) (string, bool) {
	switch t := v.(type) {
	case nil:
		return "", false
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	}
	b, _ := json.Marshal(v)
	return string(b), true
}

// searched describes the candidates for details, e.g.
// `271 records with TRN02 = "93175-012547"`.
func searched(transaction string, keys []correlation) string {
	var b strings.Builder
	if transaction != "" {
		b.WriteString(transaction + " ")
	}
	b.WriteString("records")
	for i, c := range keys {
		if i == 0 {
			b.WriteString(" with ")
		} else {
			b.WriteString(" and ")
		}
		b.WriteString(c.key + " = " + expectedText(c.expected))
	}
	return b.String()
}

func expectedText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	}
	return fmt.Sprint(v)
}
