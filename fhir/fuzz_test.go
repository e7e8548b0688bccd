package fhir

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// FuzzParseDateRange: any text either parses to a non-empty range or is a
// DateError; never a panic.
func FuzzParseDateRange(f *testing.F) {
	for _, s := range []string{"2023", "2023-06", "2023-06-15", "2023-06-15T12:00", "2023-06-15T12:00:00Z",
		"2023-06-15T13:00:00+01:00", "2023-06-15T12:00:00.123456789-05:30", "2023-02-30", "0000", "9999-12-31T24:00:00Z", "2023-06-15T12:00:00.Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := parseDateRange(s)
		if err == nil && hi <= lo {
			t.Errorf("%q: empty range [%d, %d)", s, lo, hi)
		}
	})
}

// FuzzSearchValues: any parameter value, for every parameter type, either
// compiles and runs or is a SearchError.
func FuzzSearchValues(f *testing.F) {
	for _, s := range []string{"eve", "urn:mrn|MRN-1", "|x", "x|", "ge2023-01-01", "ap2020", "5.4|http://unitsofmeasure.org|mg",
		"100||mg", "gt1e3", "Patient/1", "http://x/Patient/1", "a\\,b,c", "true", "eb2023-06-15T12:00:00+01:00", "-5", "ne"} {
		f.Add("name", s)
		f.Add("identifier", s)
		f.Add("birthdate", s)
		f.Add("organization", s)
	}
	f.Add("value-quantity", "gt5")
	f.Add("name:exact", "Eve")
	f.Add("_sort", "-birthdate,name")
	// Chains, reverse chains, includes and the result parameters.
	f.Add("subject:Patient.name", "eve")
	f.Add("patient.organization.partof.name", "parent")
	f.Add("_has:Observation:patient:code", "15074-8")
	f.Add("_has:Patient:organization:_has:Observation:patient:code", "15074-8")
	f.Add("_include", "Observation:subject:Patient")
	f.Add("_revinclude:iterate", "Organization:partof")
	f.Add("_include", "*")
	f.Add("identifier:of-type", "http://terminology.hl7.org/CodeSystem/v2-0203|MR|MRN-1")
	f.Add("subject:identifier", "urn:mrn|MRN-1")
	f.Add("_summary", "count")
	f.Add("_elements", "name,Patient.gender")
	f.Add("email", "SMYTH2@example.org")
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		f.Fatal(err)
	}
	s := NewStore()
	if _, err := s.LoadJSON(data); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		for _, typ := range []string{"Patient", "Observation"} {
			s.Search(context.Background(), typ, url.Values{name: {value}})
		}
		splitOr(value)
		splitPrefix(value)
		parseNumber(value)
		parseReference(value)
		compileFHIRPath("Patient", value)
		_ = time.Now
	})
}

// FuzzLoad: any document either loads or is a LoadError, and a loaded
// store answers a search.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	more, _ := filepath.Glob("testdata/corpus/*.json")
	for _, name := range append(files, more...) {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"urn:uuid:1","resource":{"resourceType":"Patient"}}]}`))
	f.Add([]byte(`{"resourceType":"Patient","meta":[]}`))
	f.Add([]byte(`{"resourceType":"Patient","id":"x","meta":{"lastUpdated":"bad"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewStore()
		if _, err := s.LoadJSON(data); err != nil {
			if _, ok := err.(*LoadError); !ok {
				t.Errorf("error of type %T: %v", err, err)
			}
			return
		}
		for _, typ := range []string{"Patient", "Observation", "Bundle"} {
			if _, err := s.Search(context.Background(), typ, url.Values{"_id": {"x"}, "_sort": {"_lastUpdated"}}); err != nil {
				t.Errorf("search after load: %v", err)
			}
		}
	})
}

// FuzzHandler: any request gets a response whose body, if any, is JSON
// (a resource, a Bundle or an OperationOutcome); never a panic.
func FuzzHandler(f *testing.F) {
	f.Add("GET", "/Patient", "name=eve&_count=1", "")
	f.Add("GET", "/Patient/eve/_history/1", "", "")
	f.Add("POST", "/Patient/_search", "", "family=muller&_sort=-birthdate")
	f.Add("PUT", "/Patient/x", "", `{"resourceType":"Patient","id":"x"}`)
	f.Add("POST", "/Observation", "", `{"resourceType":"Observation","status":"final"}`)
	f.Add("DELETE", "/Patient/eve", "", "")
	f.Add("GET", "/Encounter", "date=ge2023&date=lt2024-01-01T00:00:00%2B01:00&_offset=1", "")
	f.Add("GET", "/metadata", "", "")
	f.Add("POST", "/", "", `{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"urn:uuid:1","resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient","ifNoneExist":"family=muller"}}]}`)
	f.Add("GET", "/Patient/eve/_history", "_count=1", "")
	f.Add("PUT", "/Patient", "family=muller", `{"resourceType":"Patient"}`)
	f.Add("DELETE", "/Patient", "family=eve", "")
	f.Add("GET", "/", "_type=Patient,Organization&_id=eve,org1&_sort=-_id", "")
	f.Add("POST", "/_search", "", "_type=Patient&_id=eve")
	f.Add("GET", "/MedicationRequest", "_include=MedicationRequest:*&_revinclude:iterate=Patient:link&_count=1", "")
	f.Add("GET", "/Patient", "_summary=true&_has:Observation:subject:code=15074-8", "")
	f.Add("GET", "/Observation", "_elements=status&subject:Patient.organization.name=acme", "")
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path+query, " \r\n\x00#") || method == "" || strings.ContainsAny(method, " \r\n\x00") {
			return
		}
		s := NewStore()
		s.LoadJSON(data)
		req, err := http.NewRequest(method, "http://fhir.test"+path+"?"+query, strings.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		NewHandler(s).ServeHTTP(rec, req)
		if b := rec.Body.Bytes(); len(b) > 0 && method != http.MethodHead && !json.Valid(b) {
			t.Errorf("%s %s?%s: not JSON: %.200s", method, path, query, b)
		}
	})
}

// FuzzTransaction: any POST [base] body either is refused (an
// OperationOutcome's status, never a 500, and the store unchanged) or
// answers a response Bundle with an entry per entry; either way the store
// keeps its invariants, and the store it was cloned from is untouched.
func FuzzTransaction(f *testing.F) {
	names, _ := filepath.Glob("testdata/synthea/*.json")
	for _, name := range names {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, c := range medplumTxCases {
		f.Add([]byte(c.bundle))
	}
	f.Add([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[{"fullUrl":"urn:uuid:a","resource":{"resourceType":"Patient","link":[{"other":{"reference":"urn:uuid:b"}}]},"request":{"method":"POST","url":"Patient"}},{"fullUrl":"urn:uuid:b","resource":{"resourceType":"Patient","link":[{"other":{"reference":"urn:uuid:a"}}]},"request":{"method":"PUT","url":"Patient?identifier=x|y"}}]}`))
	f.Add([]byte(`{"resourceType":"Bundle","type":"batch","entry":[{"request":{"method":"DELETE","url":"Patient?identifier=urn:mrn|twin"}},{"request":{"method":"GET","url":"Patient/old/_history?_count=1"}},{"resource":{"resourceType":"Patient","meta":3},"request":{"method":"PUT","url":"Patient/old","ifMatch":"W/\"1\""}}]}`))
	base := NewStore()
	if _, err := base.LoadJSON([]byte(txSeedMedplum)); err != nil {
		f.Fatal(err)
	}
	seed := bundleOf(f, base)
	f.Fuzz(func(t *testing.T, data []byte) {
		s := base.Clone()
		before := bundleOf(t, s)
		all, cur := s.Size()
		out, err := s.Transact(data, "http://fhir.test")
		if err != nil {
			if status, _ := errorStatus(err); status >= 500 && status != 507 {
				t.Errorf("status %d for %v", status, err)
			}
			if a, c := s.Size(); bundleOf(t, s) != before || a != all || c != cur {
				t.Errorf("a refused Bundle changed the store: %v", err)
			}
		} else {
			resp := gjson.ParseBytes(out)
			if !json.Valid(out) || !strings.HasSuffix(resp.Get("type").Str, "-response") || resp.Get("entry.#").Int() != gjson.GetBytes(data, "entry.#").Int() {
				t.Errorf("response %.300s", out)
			}
		}
		if err := checkStore(s); err != nil {
			t.Error(err)
		}
		if bundleOf(t, base) != seed {
			t.Error("a clone's transaction changed its origin")
		}
	})
}

// repeatedKey is checkJSON's reference: encoding/json's tokens, each
// object's keys in a set. It reports a repeated key and the deepest
// nesting of valid JSON.
func repeatedKey(data []byte) (repeated bool, depth int) {
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	done := func() { // a value ended: its object wants a key again
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return repeated, depth
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				f := &frame{}
				if v == '{' {
					f.keys, f.wantKey = map[string]bool{}, true
				}
				stack = append(stack, f)
				depth = max(depth, len(stack))
			default:
				stack = stack[:len(stack)-1]
				done()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].wantKey {
				f := stack[n-1]
				if f.keys[v] {
					repeated = true
				}
				f.keys[v], f.wantKey = true, false
				continue
			}
			done()
		default:
			done()
		}
	}
}

// FuzzCheckJSON holds checkJSON to its reference on valid JSON: an error
// exactly when a key repeats or the nesting passes MaxDepth.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1},"b":{"a":1,"a":[{"x":1,"x":2}]}}`, `{"a\u0062":1,"ab":2}`, `[{"a":1},{"a":1}]`,
		`{"k":"a\"b","k\"":1}`, `{"a":[1,2,{"b":[]}],"c":{}}`, strings.Repeat("[", 129) + strings.Repeat("]", 129), `{"a":"{\"b\":1,\"b\":2}"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			checkJSON(data, true) // must not panic
			return
		}
		repeated, depth := repeatedKey(data)
		je := checkJSON(data, true)
		if (je != nil) != (repeated || depth > MaxDepth) {
			t.Errorf("%q: checkJSON %v, reference: repeated %v, depth %d", data, je, repeated, depth)
		}
		if je := checkJSON(data, false); (je != nil) != (depth > MaxDepth) {
			t.Errorf("%q: depth only: %v, depth %d", data, je, depth)
		}
	})
}
