package fhir_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/assaykit/assay/fhir"
	"github.com/tidwall/gjson"
)

func peopleServer(t testing.TB) (*fhir.Store, *httptest.Server) {
	t.Helper()
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	s := fhir.NewStore()
	if _, err := s.LoadJSON(data); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fhir.NewHandler(s))
	t.Cleanup(srv.Close)
	return s, srv
}

func do(t *testing.T, method, u, body string) (int, http.Header, gjson.Result) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost && strings.HasSuffix(u, "/_search") {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if body != "" {
		req.Header.Set("Content-Type", "application/fhir+json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, gjson.ParseBytes(data)
}

func TestHandlerSearchPaging(t *testing.T) {
	_, srv := peopleServer(t)
	status, hdr, b := do(t, "GET", srv.URL+"/Patient?gender=female&_count=2&_sort=_id", "")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/fhir+json") {
		t.Fatalf("status %d %s", status, hdr.Get("Content-Type"))
	}
	if b.Get("type").Str != "searchset" || b.Get("total").Int() != 3 || b.Get("entry.#").Int() != 2 {
		t.Fatalf("bundle %s", b.Raw)
	}
	self := b.Get(`link.#(relation=="self").url`).Str
	if !strings.Contains(self, "gender=female") || !strings.Contains(self, "_count=2") {
		t.Errorf("self link %s", self)
	}
	if got := b.Get("entry.0.fullUrl").Str; got != srv.URL+"/Patient/eve" {
		t.Errorf("fullUrl %s", got)
	}
	if b.Get("entry.0.search.mode").Str != "match" {
		t.Error("no search mode")
	}
	next := b.Get(`link.#(relation=="next").url`).Str
	status, _, b = do(t, "GET", next, "")
	if status != 200 || b.Get("entry.#").Int() != 1 || b.Get("entry.0.resource.id").Str != "severine" || b.Get(`link.#(relation=="next")`).Exists() {
		t.Errorf("page 2: %d %s", status, b.Raw)
	}
	// POST _search with a form body, and _total=none.
	status, _, b = do(t, "POST", srv.URL+"/Patient/_search", "family=muller&_total=none")
	if status != 200 || b.Get("entry.#").Int() != 2 || b.Get("total").Exists() {
		t.Errorf("_search: %d %s", status, b.Raw)
	}
}

func TestHandlerErrors(t *testing.T) {
	_, srv := peopleServer(t)
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/Patient?colour=blue", "", 400, "not-supported"},
		{"GET", "/Patient?birthdate=2020-13", "", 400, "invalid"},
		{"GET", "/Appointment?date=ge2024-03-01T10:00:00+01:00", "", 400, "invalid"},
		{"GET", "/Patient/nobody", "", 404, "not-found"},
		{"GET", "/patient", "", 404, "not-found"},
		{"PATCH", "/Patient/eve", "{}", 405, "not-supported"},
		{"POST", "/Patient", `{"resourceType":"Observation"}`, 400, "invalid"},
		{"POST", "/Patient", `not json`, 400, "invalid"},
		{"PUT", "/Patient/eve", `{"resourceType":"Patient","id":"other"}`, 400, "invalid"},
		{"DELETE", "/Patient/nobody", "", 404, "not-found"},
		{"POST", "/Patient", `{"resourceType":"Patient","x":"` + strings.Repeat("a", fhir.DefaultMaxBodySize) + `"}`, 413, "too-costly"},
	} {
		status, _, b := do(t, c.method, srv.URL+c.path, c.body)
		if status != c.status || b.Get("resourceType").Str != "OperationOutcome" || b.Get("issue.0.code").Str != c.code {
			t.Errorf("%s %s: %d %.200s, want %d %s", c.method, c.path, status, b.Raw, c.status, c.code)
		}
	}
	// An encoded + is a zone offset and searches.
	status, _, b := do(t, "GET", srv.URL+"/Appointment?date=ge2024-03-01T10:00:00%2B01:00", "")
	if status != 200 || b.Get("total").Int() != 2 {
		t.Errorf("encoded +: %d %s", status, b.Raw)
	}
}

func TestHandlerCRUD(t *testing.T) {
	_, srv := peopleServer(t)
	status, hdr, b := do(t, "POST", srv.URL+"/Patient", `{"resourceType":"Patient","name":[{"family":"Newman"}]}`)
	if status != 201 || b.Get("meta.versionId").Str != "1" || b.Get("meta.lastUpdated").Str == "" {
		t.Fatalf("create: %d %s", status, b.Raw)
	}
	id := b.Get("id").Str
	if loc := hdr.Get("Location"); loc != srv.URL+"/Patient/"+id+"/_history/1" {
		t.Errorf("Location %s", loc)
	}
	status, _, b = do(t, "PUT", srv.URL+"/Patient/"+id, `{"resourceType":"Patient","id":"`+id+`","name":[{"family":"Oldman"}]}`)
	if status != 200 || b.Get("meta.versionId").Str != "2" {
		t.Fatalf("update: %d %s", status, b.Raw)
	}
	if status, _, b = do(t, "GET", srv.URL+"/Patient?family=oldman", ""); b.Get("total").Int() != 1 {
		t.Errorf("search after update: %d %s", status, b.Raw)
	}
	if status, _, b = do(t, "GET", srv.URL+"/Patient?family=newman", ""); status != 200 || b.Get("total").Int() != 0 {
		t.Errorf("old version still found: %d %s", status, b.Raw)
	}
	if status, _, b = do(t, "GET", srv.URL+"/Patient/"+id+"/_history/1", ""); status != 200 || b.Get("name.0.family").Str != "Newman" {
		t.Errorf("vread: %d %s", status, b.Raw)
	}
	if status, _, _ = do(t, "DELETE", srv.URL+"/Patient/"+id, ""); status != 204 {
		t.Errorf("delete: %d", status)
	}
	if status, _, _ = do(t, "GET", srv.URL+"/Patient/"+id, ""); status != 410 {
		t.Errorf("read after delete: %d", status)
	}
	if status, _, b = do(t, "GET", srv.URL+"/Patient?family=oldman", ""); status != 200 || b.Get("total").Int() != 0 {
		t.Errorf("deleted still found: %d %s", status, b.Raw)
	}
	// Update creates with the client's id; any type is stored.
	if status, _, b = do(t, "PUT", srv.URL+"/Basic/b1", `{"resourceType":"Basic","code":{"text":"x"}}`); status != 201 || b.Get("id").Str != "b1" {
		t.Errorf("upsert: %d %s", status, b.Raw)
	}
	if status, _, b = do(t, "GET", srv.URL+"/Basic?_id=b1", ""); b.Get("total").Int() != 1 {
		t.Errorf("search of any type by _id: %d %s", status, b.Raw)
	}
	status, _, b = do(t, "GET", srv.URL+"/metadata", "")
	if status != 200 || b.Get("resourceType").Str != "CapabilityStatement" {
		t.Errorf("metadata: %d", status)
	}
	// Every R4 type, its own parameters and those of every resource.
	res := b.Get("rest.0.resource")
	if n := res.Get("#").Int(); n != 146 {
		t.Errorf("metadata lists %d types", n)
	}
	patient := res.Get(`#(type=="Patient")`)
	for _, name := range []string{"_id", "_lastUpdated", "email", "organization", "name"} {
		if !patient.Get(`searchParam.#(name=="` + name + `")`).Exists() {
			t.Errorf("metadata: Patient lacks %s", name)
		}
	}
	if patient.Get(`searchParam.#(name=="_content")`).Exists() || !res.Get(`#(type=="Parameters").searchParam.#(name=="_id")`).Exists() {
		t.Errorf("metadata: %s", patient.Raw[:min(300, len(patient.Raw))])
	}
}

func TestHandlerPageCap(t *testing.T) {
	s := fhir.NewStore()
	for i := 0; i < 30; i++ {
		if _, err := s.Create("Patient", []byte(`{"resourceType":"Patient"}`)); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(&fhir.Handler{Store: s, MaxPageSize: 7, BaseURL: "http://fhir.example/r4"})
	defer srv.Close()
	_, _, b := do(t, "GET", srv.URL+"/Patient?_count=100", "")
	if b.Get("entry.#").Int() != 7 || b.Get("total").Int() != 30 {
		t.Errorf("page of %d of %d", b.Get("entry.#").Int(), b.Get("total").Int())
	}
	next, _ := url.Parse(b.Get(`link.#(relation=="next").url`).Str)
	if next.Host != "fhir.example" || next.Query().Get("_offset") != "7" {
		t.Errorf("next %s", next)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(b.Raw), &v); err != nil {
		t.Errorf("bundle is not JSON: %v", err)
	}
}

// A Bundle with no entries leaves "entry" out, as FHIR's JSON has no empty
// arrays; one with entries has them.
func TestHandlerNoEmptyEntry(t *testing.T) {
	_, srv := peopleServer(t)
	for _, tc := range []struct {
		method, path, body string
		entries            int64
	}{
		{"GET", "/Patient?name=nobody-at-all", "", 0},
		{"GET", "/Patient?_summary=count", "", 0},
		{"GET", "/Patient?_count=0", "", 0},
		{"POST", "/", `{"resourceType":"Bundle","type":"batch"}`, 0},
		{"POST", "/", `{"resourceType":"Bundle","type":"transaction"}`, 0},
		{"GET", "/Patient?_count=1", "", 1},
	} {
		status, _, doc := do(t, tc.method, srv.URL+tc.path, tc.body)
		if status != http.StatusOK {
			t.Errorf("%s %s: status %d: %s", tc.method, tc.path, status, doc.Raw)
			continue
		}
		entry := doc.Get("entry")
		if tc.entries == 0 && entry.Exists() {
			t.Errorf(`%s %s: "entry" is present with no entries: %s`, tc.method, tc.path, doc.Raw)
		}
		if got := int64(len(entry.Array())); got != tc.entries {
			t.Errorf("%s %s: %d entries, want %d", tc.method, tc.path, got, tc.entries)
		}
	}
	var b bytes.Buffer
	if err := fhir.NewStore().WriteBundle(&b); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `{"resourceType":"Bundle","type":"collection"}`+"\n"; got != want {
		t.Errorf("the empty store's bundle is %q, want %q", got, want)
	}
}
