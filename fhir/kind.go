package fhir

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/specjson"
	"github.com/tidwall/gjson"
)

// Kind is the discriminator of the FHIR resource state assertion.
const Kind = "fhir-resource-state"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "fhir-resource-state",
  "type": "object",
  "required": ["assert", "resource_type"],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": "fhir-resource-state"},
    "resource_type": {"type": "string", "pattern": "^[A-Z][A-Za-z0-9]*$", "maxLength": 64, "description": "a FHIR resource type, such as Patient or Coverage"},
    "search": {
      "type": "object",
      "propertyNames": {"minLength": 1},
      "additionalProperties": {
        "oneOf": [
          {"type": "string"},
          {"type": "array", "items": {"type": "string"}, "minItems": 1}
        ]
      }
    },
    "fields": ` + check.FieldsSchema + `
  }
}`

// Register adds fhir-resource-state to r, saying where it comes from and what
// it reads (the fhir/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/fhir"),
		assert.Reads[Source](assert.Evidence{Name: "fhir", Folder: "fhir", Attach: "fhir.Attach"}),
		assert.Reports("matched", "field_results", "candidates", "search", "version"))
}

func init() { Register(assert.DefaultRegistry()) }

// resourceState is the compiled assertion: immutable once decoded.
type resourceState struct {
	resourceType string
	params       url.Values
	fields       []check.Field
	searched     string // Type?query, for details and evidence
}

func decode(spec assert.Spec) (assert.Assertion, error) {
	obj := gjson.ParseBytes(spec)
	fields, err := check.ParseFields([]byte(specjson.Member(obj, "fields").Raw))
	if err != nil {
		return nil, err
	}
	search := specjson.Object(specjson.Member(obj, "search"))
	a := &resourceState{resourceType: specjson.Member(obj, "resource_type").String(), params: url.Values{}, fields: fields}
	names := make([]string, 0, len(search))
	for k := range search {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := search[k]
		switch {
		case v.Type == gjson.String:
			a.params.Add(k, v.Str)
		case v.IsArray():
			for _, x := range v.Array() {
				if x.Type != gjson.String {
					return nil, fmt.Errorf("search %q: a list holds strings, not %s", k, x.Raw)
				}
				a.params.Add(k, x.Str)
			}
		default:
			return nil, fmt.Errorf("search %q: a string or a list of strings, not %s", k, v.Raw)
		}
	}
	a.searched = a.resourceType
	if len(a.params) > 0 {
		a.searched += "?" + encodeQuery(a.params)
	}
	return a, nil
}

// encodeQuery writes params in key order, escaping only what a query
// must (so "ge2024-01-01T00:00:00+01:00" keeps a readable, encoded +).
func encodeQuery(params url.Values) string {
	return readableQuery(params.Encode())
}

// readableQuery undoes the escapes a query value does not need (of ":",
// "/", "|", ",", "@" and "$"), so that details read
// "code=http://loinc.org|1234-5". (A loop, not a strings.Replacer: building
// a Replacer on first use cost more than a criterion's whole decoding.)
func readableQuery(q string) string {
	if !strings.Contains(q, "%") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q))
	for i := 0; i < len(q); i++ {
		if q[i] == '%' && i+2 < len(q) {
			if c, ok := needlessEscape(q[i+1], q[i+2]); ok {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// needlessEscape returns the character %hl escapes, when it is one a query
// value may hold as it is. url.Values.Encode writes hex digits upper case.
func needlessEscape(h, l byte) (byte, bool) {
	switch string([]byte{h, l}) {
	case "3A":
		return ':', true
	case "2F":
		return '/', true
	case "7C":
		return '|', true
	case "2C":
		return ',', true
	case "40":
		return '@', true
	case "24":
		return '$', true
	}
	return 0, false
}

// Kind returns "fhir-resource-state".
func (a *resourceState) Kind() string { return Kind }

// Check runs the search and judges its matches. Evidence:
//
//	{"matched": "Type/id"|null, "field_results": [...], "candidates": N,
//	 "search": "Type?query", "version": "versionId"|null}
func (a *resourceState) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	items, err := src.Search(ctx, a.resourceType, cloneValues(a.params))
	if err != nil {
		return assert.Errored(fmt.Errorf("FHIR search %s: %w", a.searched, err))
	}
	res := check.Candidates[Resource]{
		Items:     items,
		Correlate: func(r Resource) bool { return r.Type == a.resourceType },
		Fields:    len(a.fields),
		Judge: func(_ int, r Resource) check.Candidate {
			results := make([]check.FieldResult, len(a.fields))
			for i, f := range a.fields {
				results[i] = check.JSONFieldResult(f, gjson.GetBytes(r.JSON, f.Path))
			}
			return check.Candidate{Key: r.Key(), Results: results}
		},
		// A search returns only its matches: how many resources the server
		// holds is unknown, so the details do not guess.
		Report: check.Report{Searched: a.searched, Noun: "resource", Held: -1},
	}.Result()
	if ev, ok := res.Evidence.(check.Evidence); ok {
		var version any
		for _, r := range items {
			if r.Key() == ev.Matched && r.Type == a.resourceType {
				if r.Version != "" {
					version = r.Version
				}
				break
			}
		}
		ev.Extra = append(ev.Extra, check.Member{Key: "search", Value: a.searched}, check.Member{Key: "version", Value: version})
		res.Evidence = ev
	}
	return res
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
