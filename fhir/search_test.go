package fhir

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// testNow is the clock of the search tables: ap and the filled
// meta.lastUpdated depend on it.
var testNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func peopleStore(t testing.TB) *Store {
	t.Helper()
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	s.cfg.now = func() time.Time { return testNow }
	if _, err := s.LoadJSON(data); err != nil {
		t.Fatal(err)
	}
	return s
}

// searchIDs runs typ?query and returns the ids found, comma-separated, in
// order.
func searchIDs(t testing.TB, s *Store, typ, query string) (string, error) {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	res, err := s.Search(context.Background(), typ, q)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.ID
	}
	return strings.Join(ids, ","), nil
}

// searchTable is the search table the store and the independent engine
// both answer (see medplum_test.go). want is the R4 answer: ids in load
// order (or _sort order).
var searchTable = []struct {
	name, typ, query, want string
}{
	// string: starts-with, case- and accent-insensitive; :exact; :contains
	{"string prefix", "Patient", "name=eve", "eve,evelyn"},
	{"string prefix upper", "Patient", "name=EVE", "eve,evelyn"},
	{"string contains", "Patient", "name:contains=eve", "eve,evelyn,severine"},
	{"string exact", "Patient", "name:exact=Eve", "eve"},
	{"string exact case", "Patient", "name:exact=eve", ""},
	{"string accent folded", "Patient", "family=muller", "mueller,muller"},
	{"string accent in value", "Patient", "family=MÜLLER", "mueller,muller"},
	{"string exact accent", "Patient", "family:exact=Müller", "mueller"},
	{"string or", "Patient", "given=jan,hans", "mueller,muller"},
	{"string on organization", "Organization", "name=acme", "org1"},
	{"string with a space", "Organization", "name=Parent Network", "org2"},
	// token
	{"token code any system", "Patient", "identifier=MRN-1", "eve,severine,mueller"},
	{"token system and code", "Patient", "identifier=urn:mrn|MRN-1", "eve"},
	{"token code case", "Patient", "identifier=urn:mrn|mrn-1", "evelyn"},
	{"token no system", "Patient", "identifier=|MRN-1", "severine"},
	{"token system only", "Patient", "identifier=urn:mrn|", "eve,evelyn"},
	{"token system case", "Patient", "identifier=URN:MRN|MRN-1", ""},
	{"token not", "Patient", "gender:not=male", "eve,evelyn,severine"},
	{"token or", "Patient", "gender=female,male", "eve,evelyn,severine,mueller,muller"},
	{"token boolean", "Patient", "active=true", "eve"},
	{"token contact point", "Patient", "email=eve@example.org", "eve"},
	{"token email ignores case", "Patient", "email=smyth2@example.org", "evelyn"},
	{"token telecom ignores case", "Patient", "telecom=SMYTH2@EXAMPLE.ORG", "evelyn"},
	{"token phone", "Patient", "phone=%2B1%20555%200100", "evelyn"},
	{"token email is not a phone", "Patient", "phone=smyth2@example.org", ""},
	{"token of-type", "Patient", "identifier:of-type=http://terminology.hl7.org/CodeSystem/v2-0203|MR|MRN-1", "eve"},
	{"token of-type no system on the identifier", "Patient", "identifier:of-type=http://terminology.hl7.org/CodeSystem/v2-0203|DL|D-77", "severine"},
	{"token of-type wrong value", "Patient", "identifier:of-type=http://terminology.hl7.org/CodeSystem/v2-0203|MR|MRN-2", ""},
	{"token type code is not a value", "Patient", "identifier=MR", ""},
	{"token boolean expression false", "Patient", "deceased=false", "eve,evelyn,severine,mueller"},
	{"token boolean expression true", "Patient", "deceased=true", "muller"},
	{"token coding", "Observation", "code=http://loinc.org|15074-8", "glucose,lower"},
	{"token coding code only", "Observation", "code=15074-8", "glucose,lower,upper"},
	{"token text", "Observation", "code:text=glucose", "glucose"},
	{"token text display", "Observation", "code:text=body", "weight"},
	{"token _id", "Patient", "_id=eve,muller", "eve,muller"},
	{"token _id case", "Patient", "_id=EVE", ""},
	{"token and", "Observation", "status=final&code=15074-8", "glucose,lower,upper"},
	// missing
	{"missing true", "Patient", "active:missing=true", "severine,mueller,muller"},
	{"missing false", "Patient", "birthdate:missing=false", "eve,evelyn,severine,mueller"},
	// reference
	{"reference type/id", "Appointment", "patient=Patient/eve", "a-day"},
	{"reference bare id", "Appointment", "actor=dr1", "a-day"},
	{"reference actor", "Appointment", "actor=Practitioner/dr1", "a-day"},
	{"reference absolute", "Encounter", "subject=http://example.org/fhir/Patient/eve", ""},
	{"reference absolute as written", "Condition", "subject=http://example.org/fhir/Patient/eve", "c-abs"},
	{"reference relative", "Condition", "subject=Patient/eve", "c-rel"},
	{"reference identifier", "Observation", "subject:identifier=urn:mrn|MRN-1", "logical"},
	{"reference identifier value only", "Observation", "subject:identifier=MRN-1", "logical"},
	{"reference identifier other system", "Observation", "subject:identifier=urn:other|MRN-1", ""},
	{"reference type modifier", "Encounter", "subject:Patient=mueller", "e-open,e-before"},
	{"reference or", "Observation", "subject=Patient/evelyn,Patient/severine", "lower,upper"},
	{"reference organization", "Patient", "organization=Organization/org1", "eve"},
	// dates with an offset: 10:00+01:00 is 09:00Z
	{"date offset eq day", "Appointment", "date=2024-03-01", "a-day"},
	{"date offset instant utc", "Appointment", "date=2024-03-01T09:00:00Z", "a-day"},
	{"date offset instant +01:00", "Appointment", "date=2024-03-01T10:00:00%2B01:00", "a-day"},
	{"date offset ge", "Appointment", "date=ge2024-03-01T09:30:00Z", "a-late"},
	{"date late utc day", "Appointment", "date=2024-03-02", "a-late"},
	{"date observation +01:00", "Observation", "date=2024-02-10", "glucose"},
	{"date lt", "Patient", "birthdate=lt1980", "mueller"},
	{"date ge month", "Patient", "birthdate=ge1990-07", "evelyn,severine"},
	{"date eq year contains month", "Patient", "birthdate=1990", "evelyn"},
	{"date eq day in year", "Patient", "birthdate=2000-06-01", ""},
	{"date and range", "Patient", "birthdate=ge1980&birthdate=lt1991", "eve,evelyn"},
	// quantity
	{"quantity eq precision", "Observation", "value-quantity=6", "glucose"},
	{"quantity eq narrow", "Observation", "value-quantity=6.0", ""},
	{"quantity gt", "Observation", "value-quantity=gt100", "weight"},
	{"quantity ge", "Observation", "value-quantity=ge100", "weight,lower"},
	{"quantity code", "Observation", "value-quantity=100||mg/dL", "lower"},
	{"quantity system code", "Observation", "value-quantity=185|http://unitsofmeasure.org|[lb_av]", "weight"},
	{"quantity ap", "Observation", "value-quantity=ap6", "glucose"},
	// chains
	{"chain typed", "Observation", "subject:Patient.family=baker", "lower"},
	{"chain untyped", "Observation", "subject.name=adams", "glucose"},
	{"chain identifier", "Observation", "patient.identifier=urn:other|MRN-1", "weight"},
	{"chain two levels", "Observation", "patient.organization.name=acme", "glucose"},
	{"chain three levels", "Observation", "patient.organization.partof.name=parent network", "glucose"},
	{"chain to a date", "Encounter", "subject:Patient.birthdate=lt1981", "e-year,e-day,e-instant,e-open,e-before"},
	{"chain on an appointment actor", "Appointment", "actor:Patient.birthdate=1990", "a-late"},
	{"chain to a medication", "MedicationRequest", "medication.code=1049221", "mr1"},
	{"chain or", "Observation", "subject:Patient.gender=male,other", "weight"},
	{"chain and", "Observation", "subject:Patient.gender=female&subject:Patient.birthdate=ge1990", "lower,upper"},
	{"chain no match", "Observation", "subject:Patient.name=nobody", ""},
	{"chain to _id", "Observation", "subject:Patient._id=mueller", "weight"},
	// reverse chains
	{"has", "Patient", "_has:Observation:patient:code=15074-8", "eve,evelyn,severine"},
	{"has status", "Patient", "_has:Observation:subject:status=preliminary", "mueller"},
	{"has nested", "Organization", "_has:Patient:organization:_has:Observation:patient:code=15074-8", "org1"},
	{"has with a chain", "Practitioner", "_has:MedicationRequest:requester:subject:Patient.name=evelyn", "doc"},
	{"has and", "Patient", "_has:Observation:patient:code=15074-8&_has:MedicationRequest:subject:status=active", "eve,evelyn"},
	{"has none", "Patient", "_has:Observation:patient:code=none", ""},
	// result parameters that do not change the matches
	{"include", "MedicationRequest", "_include=MedicationRequest:medication", "mr1,mr2"},
	{"revinclude", "Patient", "_id=eve&_revinclude=Observation:subject", "eve"},
	{"summary true", "Patient", "gender=male&_summary=true", "mueller,muller"},
	{"elements", "Patient", "gender=male&_elements=name", "mueller,muller"},
	{"_id several", "Patient", "_id=muller,eve,nobody", "eve,muller"},
	// sort and result parameters
	{"sort asc", "Patient", "_sort=birthdate", "mueller,eve,evelyn,severine,muller"},
	{"sort desc", "Patient", "_sort=-birthdate", "severine,evelyn,eve,mueller,muller"},
	{"sort two keys", "Patient", "_sort=gender,-birthdate", "severine,evelyn,eve,mueller,muller"},
	{"sort _id", "Patient", "_sort=-_id", "severine,muller,mueller,evelyn,eve"},
	{"count does not cut a Source search", "Patient", "_count=1&_total=accurate", "eve,evelyn,severine,mueller,muller"},
	{"lastUpdated kept", "Patient", "_lastUpdated=lt2025", "eve"},
	{"lastUpdated filled", "Patient", "_lastUpdated=2026-01-01", "evelyn,severine,mueller,muller"},
	{"any type by _id", "Practitioner", "_id=dr1", ""},
}

func TestSearchTable(t *testing.T) {
	s := peopleStore(t)
	for _, c := range searchTable {
		t.Run(c.name, func(t *testing.T) {
			got, err := searchIDs(t, s, c.typ, c.query)
			if err != nil {
				t.Fatalf("%s?%s: %v", c.typ, c.query, err)
			}
			if got != c.want {
				t.Errorf("%s?%s = [%s], want [%s]", c.typ, c.query, got, c.want)
			}
		})
	}
}

// TestDateTable: every prefix against a year, a month, a day, an instant,
// an open-ended Period and one open at the start, at every precision of
// the search value (R4 3.1.1.4.5: eq means the search range contains the
// value's range).
func TestDateTable(t *testing.T) {
	s := peopleStore(t)
	// Encounter.period: e-year [2023, 2024), e-month [2023-06, 2023-07),
	// e-day [2023-06-15, 06-16), e-instant [12:00:00Z, +1s),
	// e-open [12:00:00Z, inf), e-before (-inf, 2023-01-11).
	const all = "e-year,e-month,e-day,e-instant,e-open,e-before"
	table := map[string]map[string]string{
		"2023": {
			"eq": "e-year,e-month,e-day,e-instant", "ne": "e-open,e-before",
			"gt": "e-open", "lt": "e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "",
		},
		"2023-06": {
			"eq": "e-month,e-day,e-instant", "ne": "e-year,e-open,e-before",
			"gt": "e-year,e-open", "lt": "e-year,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "e-before",
		},
		"2023-06-15": {
			"eq": "e-day,e-instant", "ne": "e-year,e-month,e-open,e-before",
			"gt": "e-year,e-month,e-open", "lt": "e-year,e-month,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "e-before",
		},
		"2023-06-15T12:00:00Z": {
			"eq": "e-instant", "ne": "e-year,e-month,e-day,e-open,e-before",
			"gt": "e-year,e-month,e-day,e-open", "lt": "e-year,e-month,e-day,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "e-before",
		},
		"2023-06-15T13:00:00+01:00": { // the same instant
			"eq": "e-instant", "ne": "e-year,e-month,e-day,e-open,e-before",
			"gt": "e-year,e-month,e-day,e-open", "lt": "e-year,e-month,e-day,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "e-before",
		},
		"2023-06-15T12:00:00+01:00": { // 11:00Z
			"eq": "", "ne": all,
			"gt": "e-year,e-month,e-day,e-instant,e-open", "lt": "e-year,e-month,e-day,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-before",
			"sa": "e-instant,e-open", "eb": "e-before",
		},
		// A target that starts where the search range ends starts after it.
		"2023-06-14":           {"sa": "e-day,e-instant,e-open", "eb": "e-before"},
		"2023-06-15T11:59:59Z": {"sa": "e-instant,e-open", "eb": "e-before"},
		"2023-06-15T12:00": { // a minute, no zone: UTC
			"eq": "e-instant", "ne": "e-year,e-month,e-day,e-open,e-before",
			"gt": "e-year,e-month,e-day,e-open", "lt": "e-year,e-month,e-day,e-before",
			"ge": "e-year,e-month,e-day,e-instant,e-open", "le": "e-year,e-month,e-day,e-instant,e-before",
			"sa": "", "eb": "e-before",
		},
	}
	for value, prefixes := range table {
		for prefix, want := range prefixes {
			q := url.Values{"date": {prefix + value}}
			res, err := s.Search(context.Background(), "Encounter", q)
			if err != nil {
				t.Errorf("date=%s%s: %v", prefix, value, err)
				continue
			}
			var ids []string
			for _, r := range res {
				ids = append(ids, r.ID)
			}
			if got := strings.Join(ids, ","); got != want {
				t.Errorf("date=%s%s = [%s], want [%s]", prefix, value, got, want)
			}
		}
	}
	// ap: within 10% of the distance from now; with now at the value the
	// window is the value itself.
	s.cfg.now = func() time.Time { return time.Date(2023, 6, 15, 12, 0, 0, 0, time.UTC) }
	if got, _ := searchIDs(t, s, "Encounter", "date=ap2023-06-15T12:00:00Z"); got != "e-year,e-month,e-day,e-instant,e-open" {
		t.Errorf("ap at now = [%s]", got)
	}
	s.cfg.now = func() time.Time { return time.Date(2033, 6, 15, 0, 0, 0, 0, time.UTC) } // 10 years on: +-1 year
	if got, _ := searchIDs(t, s, "Encounter", "date=ap2022-06-15"); got != "e-year,e-month,e-day,e-instant,e-open,e-before" {
		t.Errorf("ap a year wide = [%s]", got)
	}
}

func TestSearchErrors(t *testing.T) {
	s := peopleStore(t)
	for _, c := range []struct {
		typ, query string
		target     error
	}{
		{"Patient", "colour=blue", ErrUnknownParameter},
		{"Patient", "name:below=x", ErrUnknownParameter},
		{"Patient", "identifier:in=http://vs", ErrUnknownParameter},
		{"Patient", "gender.name=acme", ErrUnknownParameter},
		{"Patient", "organization.colour=acme", ErrUnknownParameter},
		{"Patient", "organization:Patient.name=acme", ErrUnknownParameter},
		{"Patient", "_include=Patient:colour", ErrUnknownParameter},
		{"Patient", "_include=Patient:gender", ErrBadValue},
		{"Patient", "_include=Patient", ErrBadValue},
		{"Patient", "_include=Colour:organization", ErrBadValue},
		{"Patient", "_include:deep=Patient:organization", ErrUnknownParameter},
		{"Patient", "_has:Observation:patient", ErrUnknownParameter},
		{"Patient", "_has:Colour:patient:code=1", ErrUnknownParameter},
		{"Patient", "_has:Observation:code:code=1", ErrUnknownParameter},
		{"Patient", "_has:Observation:patient:colour=1", ErrUnknownParameter},
		{"Observation", "code-value-quantity=x$1", ErrUnknownParameter},
		{"Patient", "_sort=colour", ErrUnknownParameter},
		{"Patient", "_summary=some", ErrBadValue},
		{"Patient", "_summary=true&_elements=name", ErrBadValue},
		{"Patient", "_elements=name.given", ErrBadValue},
		{"Patient", "_type=Patient", ErrUnknownParameter},
		{"Patient", "_text=fever", ErrUnknownParameter},
		{"Patient", "_content=fever", ErrUnknownParameter},
		{"Observation", "code:in=http://example.org/vs", ErrUnknownParameter},
		{"Observation", "code:not-in=http://example.org/vs", ErrUnknownParameter},
		{"Observation", "code:below=http://loinc.org|15074-8", ErrUnknownParameter},
		{"Observation", "code:above=http://loinc.org|15074-8", ErrUnknownParameter},
		{"Patient", "identifier:of-type=urn:mrn|MRN-1", ErrBadValue},
		{"Patient", "name:of-type=a|b|c", ErrUnknownParameter},
		{"Patient", "gender:identifier=x", ErrUnknownParameter},
		{"Patient", "_has:Observation:patient:subject.subject.subject.subject.subject.subject.subject.subject.subject.name=x", ErrUnknownParameter},
		{"Patient", "birthdate=2020-13", ErrBadValue},
		{"Patient", "birthdate=xx2020", ErrBadValue},
		{"Patient", "birthdate=2020-02-30", ErrBadValue},
		{"Patient", "birthdate=2020-01-01T10:00+1:00", ErrBadValue},
		{"Observation", "value-quantity=gtabc", ErrBadValue},
		{"Observation", "value-quantity=5|x", ErrBadValue},
		{"Patient", "active:missing=maybe", ErrBadValue},
		{"Patient", "_count=-1", ErrBadValue},
		{"Patient", "_total=some", ErrBadValue},
		{"Patient", "_format=xml", ErrBadValue},
		{"Appointment", "patient=Patient/", ErrBadValue},
		{"Patient", "name=", ErrBadValue},
		{"Patient", "gender=male,", ErrBadValue},
	} {
		_, err := searchIDs(t, s, c.typ, c.query)
		var se *SearchError
		if !errors.As(err, &se) || !errors.Is(err, c.target) {
			t.Errorf("%s?%s: %v, want a SearchError wrapping %v", c.typ, c.query, err, c.target)
		}
	}
	if _, err := s.Search(context.Background(), "patient", nil); err == nil {
		t.Error("a lower-case resource type searched")
	}
}

// TestParamsCompile pins that every parameter of the generated table that
// is not composite compiles, and the table's size.
func TestParamsCompile(t *testing.T) {
	n := 0
	for i, d := range r4Params {
		if i > 0 && !(r4Params[i-1].Base < d.Base || r4Params[i-1].Base == d.Base && r4Params[i-1].Code < d.Code) {
			t.Errorf("r4Params[%d] (%s.%s) is out of (base, code) order: lookups search it by halves", i, d.Base, d.Code)
		}
		if d.Base != "Resource" {
			n++
		}
		p := lookupParam(d.Base, d.Code)
		if p == nil || p.paramDef.Expr != d.Expr {
			t.Errorf("lookupParam(%s, %s) = %+v", d.Base, d.Code, p)
			continue
		}
		if p.err != nil && p.Type != "composite" && p.Type != "special" && p.Expr != "" {
			t.Errorf("%s.%s (%s): %v", d.Base, d.Code, p.Expr, p.err)
		}
	}
	if n != r4ParamCount {
		t.Errorf("%d parameters indexed, the table says %d", n, r4ParamCount)
	}
	if p := lookupParam("Patient", "_id"); p == nil || p.Base != "Resource" {
		t.Errorf("Patient _id falls back to Resource's: %+v", p)
	}
	if p := lookupParam("Patient", "no-such-param"); p != nil {
		t.Errorf("an unknown parameter was found: %+v", p)
	}
}

func TestFHIRPathShapes(t *testing.T) {
	for _, c := range []struct{ base, expr, doc, want string }{
		{"Observation", "Observation.effective", `{"effectiveDateTime":"2020"}`, `"2020"`},
		{"Observation", "(Observation.value as Quantity)", `{"valueQuantity":{"value":1}}`, `{"value":1}`},
		{"Observation", "(Observation.value as CodeableConcept).text", `{"valueCodeableConcept":{"text":"x"}}`, `"x"`},
		{"Condition", "Condition.onset.as(dateTime)", `{"onsetDateTime":"2020","onsetString":"y"}`, `"2020"`},
		{"Patient", "Patient.telecom.where(system='email')", `{"telecom":[{"system":"phone","value":"1"},{"system":"email","value":"a@b"}]}`, `{"system":"email","value":"a@b"}`},
		{"Encounter", "Encounter.subject.where(resolve() is Patient)", `{"subject":{"reference":"Group/1"}}`, ``},
		{"Patient", "Patient.deceased.exists() and Patient.deceased != false", `{"deceasedBoolean":false}`, `false`},
		{"Patient", "Patient.deceased.exists() and Patient.deceased != false", `{}`, `false`},
		{"Patient", "Patient.deceased.exists() and Patient.deceased != false", `{"deceasedDateTime":"2020"}`, `true`},
		{"Patient", "Patient.name.given | Patient.name.family", `{"name":[{"given":["a","b"],"family":"c"}]}`, `"a" "b" "c"`},
		{"Bundle", "Bundle.entry[0].resource", `{"entry":[{"resource":{"id":"a"}},{"resource":{"id":"b"}}]}`, `{"id":"a"}`},
		{"Bundle", "Bundle.entry[1].resource", `{"entry":[{"resource":{"id":"a"}},{"resource":{"id":"b"}}]}`, `{"id":"b"}`},
		{"Bundle", "Bundle.entry[2].resource", `{"entry":[{"resource":{"id":"a"}}]}`, ``},
	} {
		e, err := compileFHIRPath(c.base, c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		var got []string
		for _, v := range e.eval(parseJSON(c.doc)) {
			got = append(got, v.Raw)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s on %s = %s, want %s", c.expr, c.doc, g, c.want)
		}
	}
	for _, bad := range []string{"Patient.name.first()", "Patient.extension('x')", "Other.name", "(Patient.name", "Patient.where(x)"} {
		if _, err := compileFHIRPath("Patient", bad); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

func TestNumberCompare(t *testing.T) {
	for _, c := range []struct {
		prefix, value string
		f             float64
		want          bool
	}{
		{"eq", "100", 99.5, true}, {"eq", "100", 100.5, false}, {"eq", "100.0", 100.04, true}, {"eq", "100.0", 100.05, false},
		{"eq", "1e2", 140, true}, {"ne", "100", 101, true}, {"gt", "100", 100, false}, {"ge", "100", 100, true},
		{"lt", "100", 99.99, true}, {"le", "100", 100, true}, {"sa", "5", 5.1, true}, {"eb", "5", 4.9, true},
		{"ap", "100", 109, true}, {"ap", "100", 111, false}, {"eq", "-5", -5.2, true},
		// ne is outside eq's range [99.5, 100.5), its ends included as eq's are.
		{"ne", "100", 100, false}, {"ne", "100", 99.5, false}, {"ne", "100", 99.49, true}, {"ne", "100", 100.5, true},
	} {
		cmp, err := numberCompare(c.prefix, c.value)
		if err != nil {
			t.Fatal(err)
		}
		if got := cmp(c.f); got != c.want {
			t.Errorf("%s%s against %v: %v", c.prefix, c.value, c.f, got)
		}
	}
	for _, bad := range []string{"", "abc", "1,5", "NaN", "Inf", "1e999"} {
		if _, err := numberCompare("eq", bad); !errors.Is(err, ErrBadValue) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestConcurrentSearchAndWrite(t *testing.T) {
	s := peopleStore(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			if _, err := s.Create("Patient", []byte(`{"resourceType":"Patient","gender":"female","name":[{"given":["Eve"]}]}`)); err != nil {
				t.Error(err)
			}
			if i%10 == 0 {
				s.Delete("Patient", "evelyn")
			}
		}
	}()
	for range 200 {
		if _, err := searchIDs(t, s, "Patient", "gender=female&name=eve&birthdate:missing=true"); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	got, _ := searchIDs(t, s, "Patient", "gender=female&_id=eve,evelyn")
	if got != "eve" {
		t.Errorf("after the writes: [%s]", got)
	}
}

// TestSearchTableOverHTTP runs the search table through the Client against
// the Handler, two resources a page: the same answers as the store's.
func TestSearchTableOverHTTP(t *testing.T) {
	s := peopleStore(t)
	srv := httptest.NewServer(&Handler{Store: s, DefaultPageSize: 2})
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range searchTable {
		q, _ := url.ParseQuery(tc.query)
		if q.Has("_count") {
			continue // _count pages over HTTP; the Source search ignores it
		}
		res, err := c.Search(context.Background(), tc.typ, q)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ids := make([]string, len(res))
		for i, r := range res {
			ids[i] = r.ID
		}
		if got := strings.Join(ids, ","); got != tc.want {
			t.Errorf("%s: %s?%s over HTTP = [%s], want [%s]", tc.name, tc.typ, tc.query, got, tc.want)
		}
	}
}

func TestIndexAhead(t *testing.T) {
	s := peopleStore(t)
	if err := s.Index("Patient", "identifier", "birthdate", "name"); err != nil {
		t.Fatal(err)
	}
	if got, _ := searchIDs(t, s, "Patient", "identifier=MRN-1&birthdate=lt1990"); got != "eve,mueller" {
		t.Errorf("[%s]", got)
	}
	if err := s.Index("Patient", "colour"); !errors.Is(err, ErrUnknownParameter) {
		t.Errorf("unknown: %v", err)
	}
	// A type created while searches run.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 50 {
			s.Create("Basic", []byte(`{"resourceType":"Basic","code":{"text":"x"}}`))
		}
	}()
	for range 50 {
		if _, err := searchIDs(t, s, "Basic", "_id=assay-1"); err != nil {
			t.Fatal(err)
		}
	}
	<-done
}
