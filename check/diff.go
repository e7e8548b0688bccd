package check

import (
	"encoding/json"
	"fmt"
)

// FieldDiff is one failing part of a check's evidence as a report shows
// it: a field that differs, a key, a phrase.
type FieldDiff struct {
	// Name is the field's path (or key, or phrase).
	Name string
	// Expected and Actual are the values as JSON text.
	Expected, Actual string
	// Reason explains the failure where the values alone would not.
	Reason string
}

// String renders the diff as "NAME: expected E, got A (reason)".
func (d FieldDiff) String() string {
	s := fmt.Sprintf("%s: expected %s, got %s", d.Name, d.Expected, d.Actual)
	if d.Reason != "" {
		s += " (" + d.Reason + ")"
	}
	return s
}

// Differ is evidence that lists its failing parts itself. Reports ask it
// instead of marshalling the evidence whole (a matched resource, a row) to
// read them from its JSON; what FieldDiffs returns must be what that JSON
// holds: the entries of field_results, assertion_results or phrase_results
// whose passed is false, in order, values written as encoding/json writes
// them.
type Differ interface {
	FieldDiffs() []FieldDiff
}

// FieldDiffs lists the failing field results, when the results are under
// one of the keys reports read (field_results, assertion_results,
// phrase_results).
func (e Evidence) FieldDiffs() []FieldDiff {
	switch e.ResultsKey {
	case "", "field_results", "assertion_results", "phrase_results":
	default:
		return nil
	}
	var out []FieldDiff
	for _, fr := range e.FieldResults {
		if fr.Passed {
			continue
		}
		out = append(out, FieldDiff{Name: fr.Path, Expected: marshalOrNull(fr.Expected), Actual: marshalOrNull(fr.Actual), Reason: fr.Reason})
	}
	return out
}

// marshalOrNull is v as json.Marshal writes it inside the whole evidence
// (HTML escaped, as a report reading the evidence's JSON sees it), or null.
func marshalOrNull(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(data)
}
