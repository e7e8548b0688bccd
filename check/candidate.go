package check

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/jsonenc"
	"github.com/assaykit/assay/internal/words"
)

// Candidate is one item a check considered (a search result, a correlated
// message, a matching file, a row), with its field results.
type Candidate struct {
	// Key identifies the candidate in evidence: a FHIR Type/id, an HL7
	// control id, an X12 ST02, a file path, a row key.
	Key     string
	Results []FieldResult
}

// Match is the outcome of running field assertions over candidates.
type Match struct {
	// Best is the candidate with the most fields passed (ties: the first);
	// nil when there were no candidates.
	Best *Candidate
	// Index is Best's position among the candidates; -1 when there is none.
	Index int
	// Candidates is how many candidates there were.
	Candidates int
	// Fields is how many field assertions each candidate was checked against.
	Fields int
}

// Satisfied reports whether the best candidate passes every field (with no
// fields: whether there is a candidate).
func (m Match) Satisfied() bool {
	return m.Best != nil && Passed(m.Best.Results) == m.Fields
}

// Score is the fraction of fields the best candidate satisfies; with no
// fields, 1 when there is a candidate.
func (m Match) Score() float64 {
	switch {
	case m.Best == nil:
		return 0
	case m.Fields == 0:
		return 1
	}
	return float64(Passed(m.Best.Results)) / float64(m.Fields)
}

// BestOf evaluates n candidates in source order and keeps the best. eval
// returns candidate i's key and field results. It stops at the first
// candidate that satisfies every field: none after it can do better, and a
// tie goes to the first.
func BestOf(n, fields int, eval func(i int) Candidate) Match {
	m := Match{Candidates: n, Fields: fields, Index: -1}
	bestPassed := -1
	for i := range n {
		c := eval(i)
		if p := Passed(c.Results); p > bestPassed {
			bestPassed = p
			m.Best, m.Index = &c, i
			if p == fields {
				break
			}
		}
	}
	return m
}

// Evidence is the evidence of a candidate check: which candidate matched best,
// its field results, and how many candidates there were. Extra members follow
// in order. It marshals as
//
//	{"matched": KEY|null, "field_results": [...], "candidates": N, ...extra}
//
// with ResultsKey in place of "field_results" when set (portal-state-match
// says "assertion_results").
type Evidence struct {
	Matched      any
	FieldResults []FieldResult
	Candidates   int
	ResultsKey   string
	Extra        []Member
}

// Member is one extra evidence member.
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in their documented order.
func (e Evidence) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"matched":`)
	if err := writeJSON(&b, e.Matched); err != nil {
		return nil, err
	}
	key := e.ResultsKey
	if key == "" {
		key = "field_results"
	}
	b.WriteString(",")
	b.WriteString(strconv.Quote(key))
	b.WriteString(":")
	results := e.FieldResults
	if results == nil {
		results = []FieldResult{}
	}
	if err := writeJSON(&b, results); err != nil {
		return nil, err
	}
	b.WriteString(`,"candidates":`)
	b.WriteString(strconv.Itoa(e.Candidates))
	for _, m := range e.Extra {
		b.WriteString(",")
		if err := writeJSON(&b, m.Key); err != nil {
			return nil, err
		}
		b.WriteString(":")
		if err := writeJSON(&b, m.Value); err != nil {
			return nil, err
		}
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	data, err := jsonenc.Marshal(v)
	b.Write(data)
	return err
}

// Report describes a candidate check for its Result.
type Report struct {
	// Searched says what was looked for, e.g. `rows of "claims" with
	// claim_id = "C-1"` or `Appointment?patient=123`.
	Searched string
	// Held is how many items the source held, and Noun what one is called
	// ("row", "message", "resource", "file"). A negative Held means the
	// source cannot say (a server's search returns only its matches), and
	// the details leave the count out.
	Held int
	Noun string
	// ResultsKey and Extra are passed to Evidence.
	ResultsKey string
	Extra      []Member
	// Describe names a candidate in details, from its key; nil names it by
	// the key alone.
	Describe func(key string) string
}

func (r Report) describe(key string) string {
	if r.Describe == nil {
		return key
	}
	return r.Describe(key)
}

// Result turns a Match into the check's Result: passed when a candidate
// satisfies every field, the best candidate's fraction as the score, and a
// one-sentence detail such as "claims/C-1 matched; 2 of 2 fields passed.".
func (m Match) Result(r Report) assert.Result {
	ev := Evidence{Candidates: m.Candidates, ResultsKey: r.ResultsKey, Extra: r.Extra}
	if m.Best == nil {
		if r.Held < 0 {
			return assert.Fail(0, fmt.Sprintf("No candidate: found no %s.", r.Searched), ev)
		}
		return assert.Fail(0, fmt.Sprintf("No candidate: found no %s; the source held %s.", r.Searched, plural(r.Held, r.Noun)), ev)
	}
	ev.Matched, ev.FieldResults = m.Best.Key, m.Best.Results
	passed := Passed(m.Best.Results)
	if m.Satisfied() {
		if m.Fields == 0 {
			return assert.Pass(fmt.Sprintf("%s matched; no fields to check.", r.describe(m.Best.Key)), ev)
		}
		return assert.Pass(fmt.Sprintf("%s matched; %d of %d fields passed.", r.describe(m.Best.Key), passed, m.Fields), ev)
	}
	detail := fmt.Sprintf("%s matched but only %d of %d fields passed", r.describe(m.Best.Key), passed, m.Fields)
	if m.Candidates > 1 {
		detail = fmt.Sprintf("None of %s satisfied every field; best was %s with %d of %d fields passed", plural(m.Candidates, r.Noun), r.describe(m.Best.Key), passed, m.Fields)
	}
	for _, fr := range m.Best.Results {
		if !fr.Passed {
			detail += fmt.Sprintf(" (%s: expected %s, got %s", fr.Path, describe(fr.Expected), describe(fr.Actual))
			if fr.Reason != "" {
				detail += "; " + fr.Reason
			}
			detail += ")"
			break
		}
	}
	return assert.Fail(m.Score(), assert.Truncate(detail+"."), ev)
}

func nounOf(noun string) string {
	if noun == "" {
		return "candidate"
	}
	return noun
}

func plural(n int, noun string) string { return words.Count(n, nounOf(noun)) }

// Candidates is the skeleton every candidate check follows: the kind
// supplies the items its source holds, which of them are candidates, and
// how one is judged; Result does the rest (best candidate, score, details,
// evidence) by the rules in the package documentation. A kind's Check is
// then: look up the source, load the items (a load error is
// assert.Errored), fill in Candidates, return its Result.
type Candidates[T any] struct {
	// Items are what the source holds, in source order.
	Items []T
	// Correlate says whether an item is a candidate; nil makes every item
	// one.
	Correlate func(item T) bool
	// Fields is the number of field assertions each candidate is judged on.
	Fields int
	// Judge returns a candidate's key and field results; i is the item's
	// position in Items.
	Judge func(i int, item T) Candidate
	// Report says what was searched, for the details. Its Held defaults to
	// len(Items).
	Report Report
}

// Result judges the candidates in source order and returns the check's
// Result. Judge is called at most once per candidate and not at all after a
// candidate satisfies every field.
func (c Candidates[T]) Result() assert.Result {
	picks := make([]int, 0, len(c.Items))
	for i, item := range c.Items {
		if c.Correlate == nil || c.Correlate(item) {
			picks = append(picks, i)
		}
	}
	report := c.Report
	if report.Held == 0 {
		report.Held = len(c.Items)
	}
	m := BestOf(len(picks), c.Fields, func(j int) Candidate {
		i := picks[j]
		return c.Judge(i, c.Items[i])
	})
	return m.Result(report)
}
