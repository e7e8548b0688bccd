package check_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/assaykit/assay/check"
)

// A candidate check in full: two appointments are candidates, the first
// fails a field and the second satisfies both, so the check passes on the
// second. The evidence names it and lists its field results.
func ExampleCandidates() {
	appointments := []string{
		`{"id": "a1", "status": "proposed", "serviceType": "MRI"}`,
		`{"id": "a2", "status": "booked", "serviceType": "MRI"}`,
		`{"id": "a3", "status": "booked", "serviceType": "X-ray"}`,
	}
	fields := []check.Field{{Path: "status", Expected: "booked"}, {Path: "serviceType", Expected: "MRI"}}
	res := check.Candidates[string]{
		Items:  appointments,
		Fields: len(fields),
		Judge: func(_ int, doc string) check.Candidate {
			var id struct{ ID string }
			_ = json.Unmarshal([]byte(doc), &id)
			return check.Candidate{Key: "Appointment/" + id.ID, Results: check.JSONFields([]byte(doc), fields)}
		},
		Report: check.Report{Searched: "Appointment?patient=p1", Noun: "appointment"},
	}.Result()
	evidence, _ := json.Marshal(res.Evidence)
	fmt.Println(res.Status, res.Score)
	fmt.Println(res.Details)
	fmt.Println(string(evidence))
	// Output:
	// passed 1
	// Appointment/a2 matched; 2 of 2 fields passed.
	// {"matched":"Appointment/a2","field_results":[{"path":"status","expected":"booked","actual":"booked","passed":true},{"path":"serviceType","expected":"MRI","actual":"MRI","passed":true}],"candidates":3}
}

// When no candidate satisfies every field, the best one (most fields
// passed, the first on ties) gives the score, and the details say which
// field failed and why.
func ExampleCandidates_failing() {
	rows := []string{
		`{"claim": "C-1", "amount": "120.50", "status": "paid"}`,
		`{"claim": "C-2", "amount": 99, "status": "denied"}`,
	}
	fields := []check.Field{{Path: "amount", Expected: json.Number("120.5")}, {Path: "status", Expected: "paid"}}
	res := check.Candidates[string]{
		Items:  rows,
		Fields: len(fields),
		Judge: func(i int, doc string) check.Candidate {
			return check.Candidate{Key: fmt.Sprintf("row %d", i), Results: check.JSONFields([]byte(doc), fields)}
		},
		Report: check.Report{Searched: "claims", Noun: "row"},
	}.Result()
	fmt.Println(res.Status, res.Score)
	fmt.Println(res.Details)
	// Output:
	// failed 0.5
	// None of 2 rows satisfied every field; best was row 0 with 1 of 2 fields passed (amount: expected 120.5, got "120.50"; type differs: expected number, got string).
}

// JSONField applies the JSON comparison rules: numbers numerically,
// strings and booleans exactly, and expected null passes when the path is
// missing.
func ExampleJSONField() {
	doc := []byte(`{"active": true, "weight": 70.0, "name": [{"given": ["Ann"]}]}`)
	for _, f := range []check.Field{
		{Path: "weight", Expected: json.Number("70")},
		{Path: "active", Expected: false},
		{Path: "name.0.given.0", Expected: "ann"},
		{Path: "deceased", Expected: nil},
	} {
		r := check.JSONField(doc, f)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s passed=%v %s", f.Path, r.Passed, r.Reason)))
	}
	// Output:
	// weight passed=true
	// active passed=false
	// name.0.given.0 passed=false differs in case
	// deceased passed=true
}

// A source's folder capped at 100 bytes in all: the first two files fit,
// reading the first again costs nothing more, and the third would take the
// source past the cap, an error that names it.
func ExampleCapTotal() {
	folder := check.CapTotal(fstest.MapFS{
		"a.hl7": {Data: []byte(strings.Repeat("a", 40))},
		"b.hl7": {Data: []byte(strings.Repeat("b", 40))},
		"c.hl7": {Data: []byte(strings.Repeat("c", 40))},
	}, 100)
	for _, name := range []string{"a.hl7", "b.hl7", "a.hl7", "c.hl7"} {
		data, err := check.ReadFile(folder, name, 0)
		fmt.Println(len(data), err)
	}
	// Output:
	// 40 <nil>
	// 40 <nil>
	// 40 <nil>
	// 0 c.hl7: with it its source would read 120 bytes, past the 100-byte cap on what one evidence source reads in all
}
