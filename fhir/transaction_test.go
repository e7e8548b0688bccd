package fhir_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/fhir"
	"github.com/tidwall/gjson"
)

var txNow = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// txSeed is the store the transaction tests start from: a practitioner
// with an NPI, a patient to delete, an organization, and two patients
// sharing an identifier (for the ambiguous cases).
const txSeed = `{"resourceType":"Bundle","type":"collection","entry":[
 {"resource":{"resourceType":"Practitioner","id":"pr1","identifier":[{"system":"http://hl7.org/fhir/sid/us-npi","value":"111"}]}},
 {"resource":{"resourceType":"Patient","id":"old","name":[{"family":"Old"}]}},
 {"resource":{"resourceType":"Organization","id":"org1","identifier":[{"system":"urn:org","value":"1"}]}},
 {"resource":{"resourceType":"Patient","id":"twin1","identifier":[{"system":"urn:mrn","value":"twin"}]}},
 {"resource":{"resourceType":"Patient","id":"twin2","identifier":[{"system":"urn:mrn","value":"twin"}]}}]}`

func txStore(t testing.TB, opts ...fhir.StoreOption) *fhir.Store {
	t.Helper()
	s := fhir.NewStore(append([]fhir.StoreOption{fhir.WithClock(func() time.Time { return txNow })}, opts...)...)
	if _, err := s.LoadJSON([]byte(txSeed)); err != nil {
		t.Fatal(err)
	}
	return s
}

// request sends method url with body and headers (name, value pairs).
func request(t *testing.T, method, u, body string, headers ...string) (int, http.Header, gjson.Result) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/fhir+json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, gjson.ParseBytes(data)
}

// snapshot is what a failed write must leave unchanged: every current
// resource and the bytes held, history included.
func snapshot(t *testing.T, s *fhir.Store) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteBundle(&b); err != nil {
		t.Fatal(err)
	}
	all, cur := s.Size()
	return fmt.Sprint(b.String(), "\n", all, " ", cur)
}

const (
	uuidA = "urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a"
	uuidB = "urn:uuid:88f151c0-a954-468a-88f8-0d6b4d61a74f"
)

func TestTransaction(t *testing.T) {
	s := txStore(t)
	srv := httptest.NewServer(&fhir.Handler{Store: s, BaseURL: "http://fhir.test/r4"})
	defer srv.Close()
	bundle := `{"resourceType":"Bundle","type":"transaction","entry":[
	 {"request":{"method":"GET","url":"Patient?family=Newman"}},
	 {"fullUrl":"` + uuidA + `","resource":{"resourceType":"Patient","name":[{"family":"Newman"}],
	   "generalPractitioner":[{"reference":"Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|111"}],
	   "managingOrganization":{"reference":"Organization?identifier=urn:org|1"}},
	  "request":{"method":"POST","url":"Patient"}},
	 {"fullUrl":"` + uuidB + `","resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"` + uuidA + `"}},
	  "request":{"method":"POST","url":"Observation"}},
	 {"request":{"method":"DELETE","url":"Patient/old"}},
	 {"resource":{"resourceType":"Patient","identifier":[{"system":"urn:mrn","value":"7"}]},"request":{"method":"PUT","url":"Patient?identifier=urn:mrn|7"}},
	 {"resource":{"resourceType":"Organization","name":"ignored"},"request":{"method":"POST","url":"Organization","ifNoneExist":"identifier=urn:org|1"}},
	 {"resource":{"resourceType":"Practitioner","id":"pr1","active":true,"identifier":[{"system":"http://hl7.org/fhir/sid/us-npi","value":"111"}]},"request":{"method":"PUT","url":"Practitioner/pr1","ifMatch":"W/\"1\""}},
	 {"resource":{"resourceType":"Patient","name":[{"family":"Digits"}]},"request":{"method":"PUT","url":"Patient/123"}}]}`
	status, _, b := request(t, "POST", srv.URL, bundle)
	if status != 200 || b.Get("type").Str != "transaction-response" || b.Get("entry.#").Int() != 8 {
		t.Fatalf("%d %s", status, b.Raw)
	}
	patientID := uuidA[len("urn:uuid:"):]
	stamp := "2026-03-01T09:30:00.000Z"
	for i, want := range []struct{ status, location, etag string }{
		{"200 OK", "", ""},
		{"201 Created", "Patient/" + patientID + "/_history/1", `W/"1"`},
		{"201 Created", "Observation/" + uuidB[len("urn:uuid:"):] + "/_history/1", `W/"1"`},
		{"204 No Content", "", ""},
		{"201 Created", "", `W/"1"`},
		{"200 OK", "Organization/org1/_history/1", `W/"1"`},
		{"200 OK", "Practitioner/pr1/_history/2", `W/"2"`},
		{"201 Created", "Patient/123/_history/1", `W/"1"`},
	} {
		r := b.Get("entry." + strconv.Itoa(i) + ".response")
		if r.Get("status").Str != want.status || (want.location != "" && r.Get("location").Str != want.location) || r.Get("etag").Str != want.etag {
			t.Errorf("entry %d: response %s, want %+v", i, r.Raw, want)
		}
		if want.etag != "" && r.Get("lastModified").Str == "" {
			t.Errorf("entry %d: no lastModified: %s", i, r.Raw)
		}
	}
	// The GET listed first ran last: it sees the patient created.
	if got := b.Get("entry.0.resource"); got.Get("type").Str != "searchset" || got.Get("total").Int() != 1 {
		t.Errorf("the search entry: %s", got.Raw)
	}
	p := b.Get("entry.1.resource")
	if p.Get("generalPractitioner.0.reference").Str != "Practitioner/pr1" || p.Get("managingOrganization.reference").Str != "Organization/org1" ||
		p.Get("meta.versionId").Str != "1" || p.Get("meta.lastUpdated").Str != stamp {
		t.Errorf("conditional references, meta: %s", p.Raw)
	}
	if b.Get("entry.1.fullUrl").Str != "http://fhir.test/r4/Patient/"+patientID {
		t.Errorf("fullUrl %s", b.Get("entry.1.fullUrl").Str)
	}
	if ref := b.Get("entry.2.resource.subject.reference").Str; ref != "Patient/"+patientID {
		t.Errorf("urn:uuid reference: %s", ref)
	}
	// The store holds what the response says.
	if r, err := s.Read("Patient", patientID); err != nil || gjson.GetBytes(r.JSON, "generalPractitioner.0.reference").Str != "Practitioner/pr1" {
		t.Errorf("stored patient: %s %v", r.JSON, err)
	}
	if _, err := s.Read("Patient", "old"); !errors.Is(err, fhir.ErrGone) {
		t.Errorf("deleted patient: %v", err)
	}
	if r, err := s.Read("Patient", "123"); err != nil || r.ID != "123" {
		t.Errorf("a digits-only id: %v %v", r, err)
	}
	if r, _ := s.Read("Organization", "org1"); gjson.GetBytes(r.JSON, "name").Exists() {
		t.Errorf("a conditional create that matched wrote: %s", r.JSON)
	}
	if r, _ := s.Read("Practitioner", "pr1"); r.Version != "2" || !gjson.GetBytes(r.JSON, "active").Bool() {
		t.Errorf("the update: %s", r.JSON)
	}
}

// A urn:uuid cycle (two entries referring to each other) resolves: ids
// are given before any reference is rewritten.
func TestTransactionURNCycle(t *testing.T) {
	s := txStore(t)
	out, err := s.Transact([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[
	 {"fullUrl":"`+uuidA+`","resource":{"resourceType":"Patient","link":[{"type":"seealso","other":{"reference":"`+uuidB+`"}}]},"request":{"method":"POST","url":"Patient"}},
	 {"fullUrl":"`+uuidB+`","resource":{"resourceType":"Patient","link":[{"type":"seealso","other":{"reference":"`+uuidA+`"}}]},"request":{"method":"POST","url":"Patient"}}]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	a, b := gjson.GetBytes(out, "entry.0.resource"), gjson.GetBytes(out, "entry.1.resource")
	if a.Get("link.0.other.reference").Str != "Patient/"+b.Get("id").Str || b.Get("link.0.other.reference").Str != "Patient/"+a.Get("id").Str {
		t.Errorf("cycle: %s", out)
	}
}

func TestTransactionFailures(t *testing.T) {
	// Each bundle's first entry would succeed alone: a failure later must
	// leave no trace of it.
	const ok = `{"resource":{"resourceType":"Patient","name":[{"family":"Kept"}]},"request":{"method":"POST","url":"Patient"}},`
	tx := func(entries string) string {
		return `{"resourceType":"Bundle","type":"transaction","entry":[` + ok + entries + `]}`
	}
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"not JSON", `{"resourceType":"Bundle",`, 400, "invalid"},
		{"not a Bundle", `{"resourceType":"Patient"}`, 400, "invalid"},
		{"a collection", `{"resourceType":"Bundle","type":"collection","entry":[` + ok[:len(ok)-1] + `]}`, 400, "invalid"},
		{"entry not an array", `{"resourceType":"Bundle","type":"transaction","entry":{}}`, 400, "invalid"},
		{"entry without request", tx(`{"resource":{"resourceType":"Patient"}}`), 400, "invalid"},
		{"unknown method", tx(`{"request":{"method":"FETCH","url":"Patient/x"}}`), 400, "invalid"},
		{"method not a string", tx(`{"request":{"method":1,"url":"Patient/x"}}`), 400, "invalid"},
		{"PATCH", tx(`{"request":{"method":"PATCH","url":"Patient/old"}}`), 405, "not-supported"},
		{"absolute url", tx(`{"request":{"method":"GET","url":"http://x/Patient/old"}}`), 400, "invalid"},
		{"POST to an id", tx(`{"resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient/x"}}`), 400, "invalid"},
		{"POST without resource", tx(`{"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"resource of another type", tx(`{"resource":{"resourceType":"Group"},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"PUT with another id", tx(`{"resource":{"resourceType":"Patient","id":"y"},"request":{"method":"PUT","url":"Patient/x"}}`), 400, "invalid"},
		{"bad query", tx(`{"request":{"method":"GET","url":"Patient?colour=blue"}}`), 400, "not-supported"},
		{"dangling urn", tx(`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"` + uuidB + `"}},"request":{"method":"POST","url":"Observation"}}`), 400, "invalid"},
		{"duplicate fullUrl", tx(`{"fullUrl":"` + uuidA + `","resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient"}},{"fullUrl":"` + uuidA + `","resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"one resource twice", tx(`{"resource":{"resourceType":"Patient"},"request":{"method":"PUT","url":"Patient/x"}},{"resource":{"resourceType":"Patient"},"request":{"method":"PUT","url":"Patient/x"}}`), 400, "invalid"},
		{"conditional reference, no match", tx(`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"performer":[{"reference":"Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|999"}]},"request":{"method":"POST","url":"Observation"}}`), 404, "not-found"},
		{"conditional reference, two matches", tx(`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"Patient?identifier=urn:mrn|twin"}},"request":{"method":"POST","url":"Observation"}}`), 412, "multiple-matches"},
		{"conditional reference, bad query", tx(`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"Patient?colour=blue"}},"request":{"method":"POST","url":"Observation"}}`), 400, "not-supported"},
		{"conditional update, two matches", tx(`{"resource":{"resourceType":"Patient"},"request":{"method":"PUT","url":"Patient?identifier=urn:mrn|twin"}}`), 412, "multiple-matches"},
		{"conditional create, two matches", tx(`{"resource":{"resourceType":"Patient"},"request":{"method":"POST","url":"Patient","ifNoneExist":"identifier=urn:mrn|twin"}}`), 412, "multiple-matches"},
		{"conditional delete, two matches", tx(`{"request":{"method":"DELETE","url":"Patient?identifier=urn:mrn|twin"}}`), 412, "multiple-matches"},
		{"delete of nothing", tx(`{"request":{"method":"DELETE","url":"Patient/nobody"}}`), 404, "not-found"},
		{"If-Match of another version", tx(`{"resource":{"resourceType":"Practitioner","id":"pr1"},"request":{"method":"PUT","url":"Practitioner/pr1","ifMatch":"W/\"7\""}}`), 412, "conflict"},
		{"read of nothing", tx(`{"request":{"method":"GET","url":"Patient/nobody"}}`), 404, "not-found"},
		{"read of the deleted", tx(`{"request":{"method":"DELETE","url":"Patient/old"}},{"request":{"method":"GET","url":"Patient/old"}}`), 410, "deleted"},
		{"repeated key", tx(`{"resource":{"resourceType":"Patient","gender":"male","gender":"female"},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"repeated key, escaped", tx(`{"resource":{"resourceType":"Patient","name":[{"family":"a","fam\u0069ly":"b"}]},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"meta not an object", tx(`{"resource":{"resourceType":"Patient","meta":3},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
		{"too deep", tx(`{"resource":{"resourceType":"Patient","extension":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `},"request":{"method":"POST","url":"Patient"}}`), 400, "invalid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := txStore(t)
			before := snapshot(t, s)
			srv := httptest.NewServer(fhir.NewHandler(s))
			defer srv.Close()
			status, _, b := request(t, "POST", srv.URL, c.body)
			if status != c.status || b.Get("resourceType").Str != "OperationOutcome" || b.Get("issue.0.code").Str != c.code {
				t.Errorf("%d %s, want %d %s", status, b.Raw, c.status, c.code)
			}
			if after := snapshot(t, s); after != before {
				t.Errorf("a failed transaction changed the store:\n%s", after)
			}
			if _, err := s.Transact([]byte(c.body), ""); err == nil {
				t.Error("Transact: no error")
			}
		})
	}
	// Errors point at the reference at fault.
	for entry, want := range map[string]string{
		`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"` + uuidB + `"}},"request":{"method":"POST","url":"Observation"}}`:                                   "/entry/1/resource/subject/reference",
		`{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"performer":[{"display":"x"},{"reference":"Practitioner?identifier=x|y"}]},"request":{"method":"POST","url":"Observation"}}`: "/resource/performer/1/reference",
	} {
		if _, err := txStore(t).Transact([]byte(tx(entry)), ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want it to name %s", err, want)
		}
	}
	// A Bundle over the body cap is a 413, the store unchanged.
	capped := txStore(t)
	before := snapshot(t, capped)
	small := httptest.NewServer(&fhir.Handler{Store: capped, MaxBodySize: 1000})
	defer small.Close()
	huge := tx(`{"resource":{"resourceType":"Patient","name":[{"family":"` + strings.Repeat("h", 2000) + `"}]},"request":{"method":"POST","url":"Patient"}}`)
	if status, _, b := request(t, "POST", small.URL, huge); status != 413 || b.Get("issue.0.code").Str != "too-costly" || snapshot(t, capped) != before {
		t.Errorf("a Bundle over the cap: %d %s", status, b.Raw)
	}
	// The error names the failing entry.
	s := txStore(t)
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	_, _, b := request(t, "POST", srv.URL, tx(`{"request":{"method":"DELETE","url":"Patient/nobody"}}`))
	if b.Get("issue.0.expression.0").Str != "Bundle.entry[1]" || !strings.Contains(b.Get("issue.0.diagnostics").Str, "entry 1 (DELETE Patient/nobody)") {
		t.Errorf("outcome: %s", b.Raw)
	}
}

func TestBatch(t *testing.T) {
	s := txStore(t)
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	status, _, b := request(t, "POST", srv.URL, `{"resourceType":"Bundle","type":"batch","entry":[
	 {"resource":{"resourceType":"Patient","name":[{"family":"Batched"}]},"request":{"method":"POST","url":"Patient"}},
	 {"request":{"method":"GET","url":"Patient/nobody"}},
	 {"resource":{"resourceType":"Group"},"request":{"method":"POST","url":"Patient"}},
	 {"request":{"method":"DELETE","url":"Patient/old"}},
	 {"resource":{"resourceType":"Patient"}},
	 {"request":{"method":"PATCH","url":"Patient/old"}},
	 {"resource":{"resourceType":"Patient"},"request":{"method":"PUT","url":"Patient?identifier=urn:mrn|twin"}},
	 {"request":{"method":"GET","url":"Patient?family=batched"}}]}`)
	if status != 200 || b.Get("type").Str != "batch-response" {
		t.Fatalf("%d %s", status, b.Raw)
	}
	for i, want := range []string{"201 Created", "404 Not Found", "400 Bad Request", "204 No Content", "400 Bad Request", "405 Method Not Allowed", "412 Precondition Failed", "200 OK"} {
		r := b.Get("entry." + strconv.Itoa(i) + ".response")
		if r.Get("status").Str != want {
			t.Errorf("entry %d: %s, want %s", i, r.Raw, want)
		}
		if strings.HasPrefix(want, "4") && r.Get("outcome.resourceType").Str != "OperationOutcome" {
			t.Errorf("entry %d: no outcome: %s", i, r.Raw)
		}
	}
	if b.Get("entry.7.resource.total").Int() != 1 {
		t.Errorf("the batch's search: %s", b.Get("entry.7").Raw)
	}
	if _, err := s.Read("Patient", "old"); !errors.Is(err, fhir.ErrGone) {
		t.Errorf("the batch's delete: %v", err)
	}
}

// The interactions a lone request makes conditional: If-None-Exist,
// If-Match, PUT and DELETE of Type?query; and client ids of digits.
func TestConditionalRequests(t *testing.T) {
	s := txStore(t)
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	for _, c := range []struct {
		method, path, body string
		headers            []string
		status             int
		id, version        string
	}{
		{"POST", "/Patient", `{"resourceType":"Patient"}`, []string{"If-None-Exist", "identifier=urn:mrn|new"}, 201, "", "1"},
		{"POST", "/Organization", `{"resourceType":"Organization"}`, []string{"If-None-Exist", "identifier=urn:org|1"}, 200, "org1", "1"},
		{"POST", "/Patient", `{"resourceType":"Patient"}`, []string{"If-None-Exist", "identifier=urn:mrn|twin"}, 412, "", ""},
		{"POST", "/Patient", `{"resourceType":"Patient"}`, []string{"If-None-Exist", "colour=blue"}, 400, "", ""},
		{"PUT", "/Practitioner/pr1", `{"resourceType":"Practitioner","id":"pr1"}`, []string{"If-Match", `W/"1"`}, 200, "pr1", "2"},
		{"PUT", "/Practitioner/pr1", `{"resourceType":"Practitioner","id":"pr1"}`, []string{"If-Match", `W/"1"`}, 412, "", ""},
		{"PUT", "/Practitioner/pr1", `{"resourceType":"Practitioner","id":"pr1"}`, []string{"If-Match", `"2"`}, 200, "pr1", "3"},
		{"PUT", "/Practitioner/nobody", `{"resourceType":"Practitioner"}`, []string{"If-Match", `W/"1"`}, 412, "", ""},
		{"PUT", "/Patient/123", `{"resourceType":"Patient"}`, nil, 201, "123", "1"},
		{"PUT", "/Patient/0042", `{"resourceType":"Patient","id":"0042"}`, nil, 201, "0042", "1"},
		{"PUT", "/Patient?identifier=urn:mrn|9", `{"resourceType":"Patient","identifier":[{"system":"urn:mrn","value":"9"}]}`, nil, 201, "", "1"},
		{"PUT", "/Patient?identifier=urn:mrn|9", `{"resourceType":"Patient","identifier":[{"system":"urn:mrn","value":"9"}],"active":true}`, nil, 200, "", "2"},
		{"PUT", "/Patient?identifier=urn:mrn|9", `{"resourceType":"Patient","id":"other"}`, nil, 400, "", ""},
		{"PUT", "/Patient?identifier=urn:mrn|twin", `{"resourceType":"Patient"}`, nil, 412, "", ""},
		{"PUT", "/Patient?identifier=urn:mrn|x1", `{"resourceType":"Patient","id":"chosen"}`, nil, 201, "chosen", "1"},
		{"DELETE", "/Patient?identifier=urn:mrn|twin", "", nil, 412, "", ""},
		{"DELETE", "/Patient?identifier=urn:mrn|9", "", nil, 204, "", ""},
		{"DELETE", "/Patient?identifier=urn:mrn|9", "", nil, 204, "", ""},
		{"PUT", "/Patient", `{"resourceType":"Patient"}`, nil, 405, "", ""},
		{"POST", "/Patient", `{"resourceType":"Patient","meta":"x"}`, nil, 400, "", ""},
		{"POST", "/Patient", `{"resourceType":"Patient","name":[{"given":["a"],"given":["b"]}]}`, nil, 400, "", ""},
	} {
		status, hdr, b := request(t, c.method, srv.URL+c.path, c.body, c.headers...)
		if status != c.status {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.headers, status, b.Raw, c.status)
			continue
		}
		if status >= 400 && b.Get("resourceType").Str != "OperationOutcome" {
			t.Errorf("%s %s: not an OperationOutcome: %s", c.method, c.path, b.Raw)
		}
		if (c.id != "" && b.Get("id").Str != c.id) || (c.version != "" && hdr.Get("ETag") != `W/"`+c.version+`"`) {
			t.Errorf("%s %s %v: id %s ETag %s, want %s %s", c.method, c.path, c.headers, b.Get("id").Str, hdr.Get("ETag"), c.id, c.version)
		}
	}
	if res, _ := s.History("Patient", "0042"); len(res) != 1 {
		t.Errorf("history of 0042: %d", len(res))
	}
	// Prefer: return=minimal answers without the resource.
	status, hdr, b := request(t, "POST", srv.URL+"/Patient", `{"resourceType":"Patient"}`, "Prefer", "return=minimal")
	if status != 201 || b.Exists() || hdr.Get("Location") == "" {
		t.Errorf("return=minimal: %d %s %v", status, b.Raw, hdr)
	}
}

func TestHistory(t *testing.T) {
	s := txStore(t)
	srv := httptest.NewServer(&fhir.Handler{Store: s, BaseURL: "http://fhir.test"})
	defer srv.Close()
	request(t, "PUT", srv.URL+"/Patient/old", `{"resourceType":"Patient","active":true}`)
	request(t, "DELETE", srv.URL+"/Patient/old", "")
	status, _, b := request(t, "GET", srv.URL+"/Patient/old/_history", "")
	if status != 200 || b.Get("type").Str != "history" || b.Get("total").Int() != 3 {
		t.Fatalf("%d %s", status, b.Raw)
	}
	for i, want := range []struct{ method, status, etag string }{
		{"DELETE", "204 No Content", `W/"3"`}, {"PUT", "200 OK", `W/"2"`}, {"POST", "201 Created", `W/"1"`},
	} {
		e := b.Get("entry." + strconv.Itoa(i))
		if e.Get("request.method").Str != want.method || e.Get("response.status").Str != want.status || e.Get("response.etag").Str != want.etag ||
			e.Get("resource").Exists() == (want.method == "DELETE") || e.Get("fullUrl").Str != "http://fhir.test/Patient/old" {
			t.Errorf("entry %d: %s, want %+v", i, e.Raw, want)
		}
	}
	status, _, b = request(t, "GET", srv.URL+"/Patient/old/_history?_count=1&_offset=1", "")
	if status != 200 || b.Get("entry.#").Int() != 1 || b.Get("entry.0.response.etag").Str != `W/"2"` || !b.Get(`link.#(relation=="next")`).Exists() {
		t.Errorf("a page of history: %d %s", status, b.Raw)
	}
	for path, want := range map[string]int{"/Patient/nobody/_history": 404, "/Patient/old/_history?_since=2020": 400} {
		if status, _, b := request(t, "GET", srv.URL+path, ""); status != want || b.Get("resourceType").Str != "OperationOutcome" {
			t.Errorf("%s: %d %s", path, status, b.Raw)
		}
	}
	// History in a transaction's read.
	out, err := s.Transact([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[{"request":{"method":"GET","url":"Patient/old/_history"}}]}`), "")
	if err != nil || gjson.GetBytes(out, "entry.0.resource.total").Int() != 3 {
		t.Errorf("history entry: %s %v", out, err)
	}
}
