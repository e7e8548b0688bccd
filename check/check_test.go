package check_test

import (
	"encoding/json"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/google/go-cmp/cmp"
)

func field(t *testing.T, js string) check.Field {
	t.Helper()
	var f check.Field
	if err := json.Unmarshal([]byte(js), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const patient = `{
  "resourceType": "Patient", "id": "p1", "active": true, "deceasedBoolean": false, "multipleBirthInteger": 2,
  "weight": 70.0, "mrn": "00123", "deceased": null,
  "name": [{"family": "Doe", "given": ["Jane", "Q"]}, {"family": "Smith", "given": ["J"]}],
  "identifier": [{"system": "urn:mrn", "value": "00123"}, {"system": "urn:ssn", "value": "999"}],
  "big": 12345678901234567890
}`

func TestJSONField(t *testing.T) {
	tests := []struct {
		field  string
		passed bool
		actual string
		reason string
	}{
		{`{"path": "id", "expected": "p1"}`, true, `"p1"`, ""},
		{`{"path": "id", "expected": "P1"}`, false, `"p1"`, "differs in case"},
		{`{"path": "id", "expected": " p1"}`, false, `"p1"`, "differs in surrounding whitespace"},
		{`{"path": "multipleBirthInteger", "expected": 2.0}`, true, `2`, ""},
		{`{"path": "weight", "expected": 70}`, true, `70.0`, ""},
		{`{"path": "big", "expected": 12345678901234567890}`, true, `12345678901234567890`, ""},
		{`{"path": "big", "expected": 12345678901234567891}`, false, `12345678901234567890`, ""},
		{`{"path": "weight", "expected": 7e1}`, true, `70.0`, ""},
		{`{"path": "mrn", "expected": 123}`, false, `"00123"`, "type differs: expected number, got string"},
		{`{"path": "multipleBirthInteger", "expected": "2"}`, false, `2`, "type differs: expected string, got number"},
		{`{"path": "active", "expected": true}`, true, `true`, ""},
		{`{"path": "active", "expected": false}`, false, `true`, ""},
		{`{"path": "deceasedBoolean", "expected": true}`, false, `false`, ""},
		{`{"path": "deceasedBoolean", "expected": false}`, true, `false`, ""},
		{`{"path": "active", "expected": "true"}`, false, `true`, "type differs: expected string, got boolean"},
		{`{"path": "deceased", "expected": null}`, true, `null`, ""},
		{`{"path": "nothing.here", "expected": null}`, true, `null`, ""},
		{`{"path": "active", "expected": null}`, false, `true`, "expected null, got boolean"},
		{`{"path": "nothing", "expected": "x"}`, false, `null`, "no value at this path"},
		{`{"path": "name.0.given.1", "expected": "Q"}`, true, `"Q"`, ""},
		{`{"path": "name.1.family", "expected": "Smith"}`, true, `"Smith"`, ""},
		{`{"path": "name", "expected": "Doe"}`, false, `[{"family":"Doe","given":["Jane","Q"]},{"family":"Smith","given":["J"]}]`, "type differs: expected string, got array"},
		{`{"path": "name.#.family", "expected": "Smith"}`, true, `["Doe","Smith"]`, ""},
		{`{"path": "name.#.family", "expected": "Roe"}`, false, `["Doe","Smith"]`, "no selected value matches"},
		{`{"path": "name.#.given.#", "expected": 2}`, true, `[2,1]`, ""},
		{`{"path": "name.#.given", "expected": "J"}`, false, `[["Jane","Q"],["J"]]`, "no selected value matches"},
		{`{"path": "name.#", "expected": 2}`, true, `2`, ""},
		{`{"path": "identifier.#(system==\"urn:ssn\").value", "expected": "999"}`, true, `"999"`, ""},
		{`{"path": "identifier.#(system%\"urn:*\")#.value", "expected": "999"}`, true, `["00123","999"]`, ""},
		{`{"path": "identifier.#(system==\"urn:npi\").value", "expected": null}`, true, `null`, ""},
		{`{"path": "nam?.0.family", "expected": "Doe"}`, true, `"Doe"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			r := check.JSONField([]byte(patient), field(t, tt.field))
			if r.Passed != tt.passed || marshal(t, r.Actual) != tt.actual || r.Reason != tt.reason {
				t.Fatalf("got passed=%v actual=%s reason=%q, want %v %s %q", r.Passed, marshal(t, r.Actual), r.Reason, tt.passed, tt.actual, tt.reason)
			}
		})
	}
}

func TestFieldRejectsStructuredExpected(t *testing.T) {
	var f check.Field
	if err := json.Unmarshal([]byte(`{"path": "a", "expected": {"x": 1}}`), &f); err == nil {
		t.Fatal("an object expected value was accepted")
	}
}

func TestTextField(t *testing.T) {
	tests := []struct {
		field  string
		values []string
		passed bool
		actual string
		reason string
	}{
		{`{"path": "MSH.9.1", "expected": "ADT"}`, []string{"ADT"}, true, `"ADT"`, ""},
		{`{"path": "MSH.9.1", "expected": "adt"}`, []string{"ADT"}, false, `"ADT"`, "differs in case"},
		{`{"path": "EB03", "expected": 30}`, []string{"30"}, true, `"30"`, ""},
		{`{"path": "AMT02", "expected": 100}`, []string{"100.00"}, true, `"100.00"`, ""},
		{`{"path": "AMT02", "expected": 100}`, []string{"1OO"}, false, `"1OO"`, "not a number"},
		// An exponent needs digits: "1e" and "1e+" are text, not 1.
		{`{"path": "AMT02", "expected": 1}`, []string{"1e"}, false, `"1e"`, "not a number"},
		{`{"path": "AMT02", "expected": 1}`, []string{"1e+"}, false, `"1e+"`, "not a number"},
		{`{"path": "AMT02", "expected": 100}`, []string{"1e2"}, true, `"1e2"`, ""},
		{`{"path": "AMT02", "expected": 1}`, []string{"."}, false, `"."`, "not a number"},
		{`{"path": "AMT02", "expected": 1}`, []string{"1x"}, false, `"1x"`, "not a number"},
		{`{"path": "X", "expected": "100"}`, []string{"100.00"}, false, `"100.00"`, ""},
		{`{"path": "X", "expected": true}`, []string{"true"}, true, `"true"`, ""},
		{`{"path": "X", "expected": true}`, []string{"Y"}, false, `"Y"`, `a boolean compares with the text "true" or "false"`},
		{`{"path": "PID.8", "expected": null}`, nil, true, `null`, ""},
		{`{"path": "PID.8", "expected": null}`, []string{""}, true, `""`, ""},
		{`{"path": "PID.8", "expected": null}`, []string{`""`}, true, `"\"\""`, ""},
		{`{"path": "PID.8", "expected": "\"\""}`, []string{`""`}, true, `"\"\""`, ""},
		{`{"path": "PID.8", "expected": null}`, []string{"M"}, false, `"M"`, "expected no value"},
		{`{"path": "PID.8", "expected": "M"}`, nil, false, `null`, "no value at this path"},
		{`{"path": "OBX[*].5", "expected": "7.2"}`, []string{"5.1", "7.2"}, true, `["5.1","7.2"]`, ""},
		{`{"path": "OBX[*].5", "expected": "9"}`, []string{"5.1", "7.2"}, false, `["5.1","7.2"]`, "no selected value matches"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			r := check.TextField(field(t, tt.field), tt.values)
			if r.Passed != tt.passed || marshal(t, r.Actual) != tt.actual || r.Reason != tt.reason {
				t.Fatalf("got passed=%v actual=%s reason=%q, want %v %s %q", r.Passed, marshal(t, r.Actual), r.Reason, tt.passed, tt.actual, tt.reason)
			}
		})
	}
}

func TestBestOf(t *testing.T) {
	results := func(passed ...bool) []check.FieldResult {
		out := make([]check.FieldResult, len(passed))
		for i, p := range passed {
			out[i] = check.FieldResult{Path: "f", Passed: p}
		}
		return out
	}
	cands := []check.Candidate{
		{Key: "a", Results: results(true, false, false)},
		{Key: "b", Results: results(true, true, false)},
		{Key: "c", Results: results(false, true, true)}, // ties with b: b wins
		{Key: "d", Results: results(true, true, true)},
		{Key: "e", Results: results(true, true, true)}, // never evaluated
	}
	evaluated := 0
	m := check.BestOf(len(cands), 3, func(i int) check.Candidate { evaluated++; return cands[i] })
	if m.Best.Key != "d" || m.Index != 3 || !m.Satisfied() || m.Score() != 1 || evaluated != 4 || m.Candidates != 5 {
		t.Fatalf("best %s satisfied %v score %v evaluated %d", m.Best.Key, m.Satisfied(), m.Score(), evaluated)
	}
	m = check.BestOf(3, 3, func(i int) check.Candidate { return cands[i] })
	if m.Best.Key != "b" || m.Index != 1 || m.Satisfied() || m.Score() != 2.0/3 {
		t.Fatalf("best %s score %v", m.Best.Key, m.Score())
	}
	if m := check.BestOf(0, 2, nil); m.Best != nil || m.Index != -1 || m.Score() != 0 || m.Satisfied() {
		t.Fatal("no candidates matched")
	}
	if m := check.BestOf(2, 0, func(i int) check.Candidate { return check.Candidate{Key: "x"} }); !m.Satisfied() || m.Score() != 1 {
		t.Fatal("with no fields, a candidate should be enough")
	}
}

func TestMatchResult(t *testing.T) {
	cand := check.Candidate{Key: "Appointment/a1", Results: []check.FieldResult{
		{Path: "status", Expected: "booked", Actual: json.RawMessage(`"booked"`), Passed: true},
		{Path: "minutesDuration", Expected: json.Number("30"), Actual: json.RawMessage(`45`), Passed: false},
	}}
	m := check.BestOf(2, 2, func(int) check.Candidate { return cand })
	res := m.Result(check.Report{Searched: "Appointment?patient=p1", Held: 9, Noun: "resource"})
	want := assert.Result{Status: assert.StatusFailed, Score: 0.5,
		Details: "None of 2 resources satisfied every field; best was Appointment/a1 with 1 of 2 fields passed (minutesDuration: expected 30, got 45)."}
	if diff := cmp.Diff(want, res, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Evidence" }, cmp.Ignore())); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	wantEv := `{"matched":"Appointment/a1","field_results":[{"path":"status","expected":"booked","actual":"booked","passed":true},{"path":"minutesDuration","expected":30,"actual":45,"passed":false}],"candidates":2}`
	if got := marshal(t, res.Evidence); got != wantEv {
		t.Fatalf("evidence\n got %s\nwant %s", got, wantEv)
	}

	none := check.BestOf(0, 1, nil).Result(check.Report{Searched: "messages with MSH.9.1 = ORM", Held: 3, Noun: "message", ResultsKey: "assertion_results",
		Extra: []check.Member{{Key: "captured", Value: 3}}})
	if none.Status != assert.StatusFailed || none.Details != "No candidate: found no messages with MSH.9.1 = ORM; the source held 3 messages." {
		t.Fatalf("got %s %q", none.Status, none.Details)
	}
	if got := marshal(t, none.Evidence); got != `{"matched":null,"assertion_results":[],"candidates":0,"captured":3}` {
		t.Fatalf("evidence %s", got)
	}
}

func TestLiteralKey(t *testing.T) {
	doc := []byte(`{"a.b": 1, "x*": 2, "#": 3, "plain": 4, "we|rd@": 5}`)
	for key, want := range map[string]string{"a.b": "1", "x*": "2", "#": "3", "plain": "4", "we|rd@": "5"} {
		r := check.JSONField(doc, check.Field{Path: check.LiteralKey(key), Expected: json.Number(want)})
		if !r.Passed {
			t.Errorf("LiteralKey(%q) = %q did not select %s: %+v", key, check.LiteralKey(key), want, r)
		}
	}
}

func TestParseExpected(t *testing.T) {
	for in, want := range map[string]any{
		`"W1"`: "W1", `12345678901234567890`: json.Number("12345678901234567890"), `1.0`: json.Number("1.0"),
		`true`: true, `null`: nil, ``: nil,
	} {
		got, err := check.ParseExpected(json.RawMessage(in))
		if err != nil || got != want {
			t.Errorf("ParseExpected(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
	for _, in := range []string{`{"a": 1}`, `[1]`, `{`} {
		if _, err := check.ParseExpected(json.RawMessage(in)); err == nil {
			t.Errorf("ParseExpected(%q) accepted it", in)
		}
	}
}
