package fhir

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// entryModes summarises a searchset page: each entry as mode:Type/id, in
// order (an entry without search.mode, as Medplum's in-memory router
// writes them, as a match).
func entryModes(b gjson.Result) string {
	var out []string
	b.Get("entry").ForEach(func(_, e gjson.Result) bool {
		mode := e.Get("search.mode").Str
		if mode == "" {
			mode = "match"
		}
		out = append(out, mode+":"+e.Get("resource.resourceType").Str+"/"+e.Get("resource.id").Str)
		return true
	})
	return strings.Join(out, " ")
}

func getBundle(t *testing.T, u string) (int, gjson.Result) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, gjson.ParseBytes(data)
}

// includeTable: searches whose pages include resources, answered by the
// Handler (the store's page, with search.mode match or include), and by
// the independent engine through R4's definition of the includes (see
// medplum_test.go). want lists the page's entries as mode:Type/id, the
// matches in order, then the included ones.
var includeTable = []struct {
	name, typ, query, want string
}{
	{"include", "MedicationRequest", "_include=MedicationRequest:medication",
		"match:MedicationRequest/mr1 match:MedicationRequest/mr2 include:Medication/med1"},
	{"include two", "MedicationRequest", "_id=mr1&_include=MedicationRequest:requester&_include=MedicationRequest:subject",
		"match:MedicationRequest/mr1 include:Practitioner/doc include:Patient/eve"},
	{"include shared target once", "MedicationRequest", "_include=MedicationRequest:requester",
		"match:MedicationRequest/mr1 match:MedicationRequest/mr2 include:Practitioner/doc"},
	{"include typed", "Observation", "code=15074-8&_include=Observation:subject:Patient",
		"match:Observation/glucose match:Observation/lower match:Observation/upper include:Patient/eve include:Patient/evelyn include:Patient/severine"},
	{"include typed other", "Observation", "code=15074-8&_include=Observation:subject:Group",
		"match:Observation/glucose match:Observation/lower match:Observation/upper"},
	{"include wildcard", "MedicationRequest", "_id=mr1&_include=MedicationRequest:*",
		"match:MedicationRequest/mr1 include:Medication/med1 include:Patient/eve include:Practitioner/doc"},
	{"include star", "MedicationRequest", "_id=mr1&_include=*",
		"match:MedicationRequest/mr1 include:Medication/med1 include:Patient/eve include:Practitioner/doc"},
	{"include not a match twice", "Patient", "_id=eve,evelyn&_include=Patient:link",
		"match:Patient/eve match:Patient/evelyn"},
	{"include a missing target", "Appointment", "_id=a-day&_include=Appointment:actor",
		"match:Appointment/a-day include:Patient/eve"},
	{"include iterate", "MedicationRequest", "_id=mr1&_include=MedicationRequest:subject&_include:iterate=Patient:organization&_include:iterate=Organization:partof",
		"match:MedicationRequest/mr1 include:Patient/eve include:Organization/org1 include:Organization/org2"},
	{"include without iterate stops", "MedicationRequest", "_id=mr1&_include=MedicationRequest:subject&_include=Patient:organization",
		"match:MedicationRequest/mr1 include:Patient/eve"},
	{"revinclude", "Patient", "_id=eve&_revinclude=Observation:subject",
		"match:Patient/eve include:Observation/glucose"},
	{"revinclude several", "Patient", "gender=female&_revinclude=MedicationRequest:subject",
		"match:Patient/eve match:Patient/evelyn match:Patient/severine include:MedicationRequest/mr1 include:MedicationRequest/mr2"},
	{"revinclude iterate", "Organization", "_id=org2&_revinclude=Organization:partof&_revinclude:iterate=Patient:organization",
		"match:Organization/org2 include:Organization/org1 include:Patient/eve"},
	{"revinclude wildcard", "Practitioner", "_id=doc&_revinclude=MedicationRequest:*",
		"match:Practitioner/doc include:MedicationRequest/mr1 include:MedicationRequest/mr2"},
	{"include and revinclude", "Patient", "_id=eve&_include=Patient:organization&_revinclude=Condition:subject",
		"match:Patient/eve include:Organization/org1 include:Condition/c-rel"},
}

func TestIncludes(t *testing.T) {
	s := peopleStore(t)
	srv := httptest.NewServer(&Handler{Store: s})
	defer srv.Close()
	for _, tc := range includeTable {
		t.Run(tc.name, func(t *testing.T) {
			status, b := getBundle(t, srv.URL+"/"+tc.typ+"?"+tc.query)
			if status != 200 {
				t.Fatalf("%s?%s: %d %s", tc.typ, tc.query, status, b.Raw)
			}
			if got := entryModes(b); got != tc.want {
				t.Errorf("%s?%s:\n got %s\nwant %s", tc.typ, tc.query, got, tc.want)
			}
			matches := b.Get(`entry.#(search.mode=="match")#`).Get("#").Int()
			if b.Get("total").Int() != matches {
				t.Errorf("total %d counts the includes (%d matches)", b.Get("total").Int(), matches)
			}
		})
	}
	// Includes follow the page, not the whole search.
	_, b := getBundle(t, srv.URL+"/MedicationRequest?_include=MedicationRequest:subject&_count=1&_sort=-_id")
	if got := entryModes(b); got != "match:MedicationRequest/mr2 include:Patient/evelyn" {
		t.Errorf("first page: %s", got)
	}
	next := b.Get(`link.#(relation=="next").url`).Str
	if !strings.Contains(next, "_include=MedicationRequest%3Asubject") {
		t.Errorf("the next link drops the include: %s", next)
	}
	_, b = getBundle(t, next)
	if got := entryModes(b); got != "match:MedicationRequest/mr1 include:Patient/eve" {
		t.Errorf("second page: %s", got)
	}
	// The Source's search returns the matches alone.
	res, err := s.Search(context.Background(), "Patient", url.Values{"_id": {"eve"}, "_revinclude": {"Observation:subject"}})
	if err != nil || len(res) != 1 || res[0].ID != "eve" {
		t.Errorf("Store.Search with _revinclude: %v %v", res, err)
	}
	// And so does the client, from a live server's bundle.
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.Search(context.Background(), "Patient", url.Values{"_id": {"eve"}, "_revinclude": {"Observation:subject"}, "_include": {"Patient:organization"}})
	if err != nil || len(res) != 1 || res[0].Key() != "Patient/eve" {
		t.Errorf("Client.Search with includes: %v %v", res, err)
	}
}

// TestIncludeBound: a page includes at most MaxIncluded resources; past
// it the search is a 400 that says to page.
func TestIncludeBound(t *testing.T) {
	s := NewStore()
	var b strings.Builder
	b.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"p"}}`)
	for i := range MaxIncluded + 1 {
		b.WriteString(`,{"resource":{"resourceType":"Observation","status":"final","code":{"text":"x"},"subject":{"reference":"Patient/p"},"id":"o` + strconv.Itoa(i) + `"}}`)
	}
	b.WriteString(`]}`)
	if _, err := s.LoadJSON([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(&Handler{Store: s})
	defer srv.Close()
	status, res := getBundle(t, srv.URL+"/Patient?_revinclude=Observation:subject")
	if status != 400 || !strings.Contains(res.Get("issue.0.diagnostics").Str, "smaller pages") {
		t.Errorf("%d %s", status, res.Raw)
	}
	status, _ = getBundle(t, srv.URL+"/Observation?_include=Observation:subject&_count=1000")
	if status != 200 {
		t.Errorf("a page of 1000 including one Patient: %d", status)
	}
}

// TestSystemSearch: GET [base]?_type=... searches those types, GET
// [base]?... every type the store holds with the parameters every
// resource has.
func TestSystemSearch(t *testing.T) {
	s := peopleStore(t)
	srv := httptest.NewServer(&Handler{Store: s})
	defer srv.Close()
	for _, c := range []struct {
		query, want string
		status      int
	}{
		{"_type=Patient,Organization&_id=eve,org1,mr1", "match:Patient/eve match:Organization/org1", 200},
		{"_type=Organization,Patient&_id=eve,org1", "match:Organization/org1 match:Patient/eve", 200},
		{"_id=eve,org1,mr1", "match:MedicationRequest/mr1 match:Organization/org1 match:Patient/eve", 200},
		{"_type=Patient&gender=male", "match:Patient/mueller match:Patient/muller", 200},
		{"_type=Patient,Practitioner&name=who,eve", "match:Patient/eve match:Patient/evelyn match:Practitioner/doc", 200},
		{"_type=Patient,Organization&_id=eve,org1&_sort=-_id", "match:Organization/org1 match:Patient/eve", 200},
		{"_type=MedicationRequest&_id=mr1&_include=MedicationRequest:medication", "match:MedicationRequest/mr1 include:Medication/med1", 200},
		{"_type=Patient,Organization&gender=male", "", 400}, // Organization has no gender
		{"gender=male", "", 400},                                  // without _type: common parameters only
		{"_type=Colour&_id=x", "", 400},                           // not a type
		{"_type=Patient,Group&_id=eve", "match:Patient/eve", 200}, // a type the store does not hold
	} {
		status, b := getBundle(t, srv.URL+"/?"+c.query)
		if status != c.status {
			t.Errorf("?%s: status %d, want %d: %s", c.query, status, c.status, b.Raw)
			continue
		}
		if status != 200 {
			continue
		}
		if got := entryModes(b); got != c.want {
			t.Errorf("?%s = %s, want %s", c.query, got, c.want)
		}
		if self := b.Get(`link.#(relation=="self").url`).Str; !strings.HasPrefix(self, srv.URL+"/?") {
			t.Errorf("?%s: self link %s", c.query, self)
		}
	}
	// POST [base]/_search reads a form.
	resp, err := http.Post(srv.URL+"/_search", "application/x-www-form-urlencoded", strings.NewReader("_type=Patient&_id=eve"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := entryModes(gjson.ParseBytes(data)); got != "match:Patient/eve" {
		t.Errorf("POST _search: %s", got)
	}
}

// TestSummaryAndElements: _summary=count answers the total alone;
// _summary=true, text, data and _elements keep their elements (and id,
// meta, the mandatory ones), marked SUBSETTED; included resources are
// whole.
func TestSummaryAndElements(t *testing.T) {
	s := peopleStore(t)
	srv := httptest.NewServer(&Handler{Store: s})
	defer srv.Close()
	keys := func(r gjson.Result) string {
		var k []string
		r.ForEach(func(key, _ gjson.Result) bool {
			k = append(k, key.Str)
			return true
		})
		slices.Sort(k)
		return strings.Join(k, ",")
	}
	_, b := getBundle(t, srv.URL+"/Patient?gender=female&_summary=count")
	if b.Get("total").Int() != 3 || b.Get("entry.#").Int() != 0 || b.Get(`link.#(relation=="next")`).Exists() {
		t.Errorf("_summary=count: %s", b.Raw)
	}
	for _, c := range []struct{ query, keys string }{
		{"Patient?_id=eve&_elements=name,birthDate", "birthDate,id,meta,name,resourceType"},
		{"Patient?_id=eve&_elements=Patient.gender", "gender,id,meta,resourceType"},
		{"Patient?_id=eve&_summary=true", "active,birthDate,gender,id,identifier,managingOrganization,meta,name,resourceType,telecom"},
		{"Patient?_id=muller&_summary=true", "deceasedDateTime,gender,id,meta,name,resourceType"},
		{"Patient?_id=eve&_summary=text", "id,meta,resourceType"},
		{"Observation?_id=glucose&_summary=text", "code,id,meta,resourceType,status"},
		{"Observation?_id=glucose&_elements=subject", "code,id,meta,resourceType,status,subject"},
		{"Patient?_id=eve&_summary=false", "active,birthDate,gender,id,identifier,managingOrganization,meta,name,resourceType,telecom"},
	} {
		_, b := getBundle(t, srv.URL+"/"+c.query)
		r := b.Get("entry.0.resource")
		if got := keys(r); got != c.keys {
			t.Errorf("%s: keys %s, want %s", c.query, got, c.keys)
		}
		tagged := r.Get(`meta.tag.#(code=="SUBSETTED")`).Exists()
		if tagged != !strings.Contains(c.query, "=false") {
			t.Errorf("%s: SUBSETTED tag %v: %s", c.query, tagged, r.Get("meta").Raw)
		}
	}
	_, b = getBundle(t, srv.URL+"/MedicationRequest?_id=mr1&_elements=status&_include=MedicationRequest:requester")
	if !b.Get("entry.0.resource.subject").Exists() || b.Get("entry.0.resource.requester").Exists() || !b.Get("entry.1.resource.name").Exists() {
		t.Errorf("_elements shapes the matches only: %s", b.Raw)
	}
	// The Source's search shapes alike, and counts without resources.
	res, err := s.Search(context.Background(), "Patient", url.Values{"_id": {"eve"}, "_elements": {"gender"}})
	if err != nil || len(res) != 1 || gjson.GetBytes(res[0].JSON, "name").Exists() || !gjson.GetBytes(res[0].JSON, "gender").Exists() {
		t.Errorf("Store.Search _elements: %v %v", res, err)
	}
	if res, err := s.Search(context.Background(), "Patient", url.Values{"_summary": {"count"}}); err != nil || len(res) != 0 {
		t.Errorf("Store.Search _summary=count: %v %v", res, err)
	}
	// A meta with tags keeps them.
	m := gjson.Parse(tagSubsetted(gjson.Parse(`{"versionId":"1","tag":[{"code":"x"}]}`)))
	if m.Get("tag.#").Int() != 2 || m.Get("tag.0.code").Str != "x" || m.Get("versionId").Str != "1" {
		t.Errorf("tags: %s", m.Raw)
	}
}

// TestReferenceBase pins rule 25: an absolute reference URL matches a
// stored relative reference only when it is this server's base joined
// with it; another server's base does not; an absolute reference stored
// under this base matches Type/id.
func TestReferenceBase(t *testing.T) {
	s := peopleStore(t)
	srv := httptest.NewServer(&Handler{Store: s, BaseURL: "http://example.org/fhir"})
	defer srv.Close()
	for _, c := range []struct{ query, want string }{
		{"Condition?subject=http://example.org/fhir/Patient/eve", "match:Condition/c-rel match:Condition/c-abs"},
		{"Condition?subject=http://other.example/fhir/Patient/eve", "match:Condition/c-other"},
		{"Condition?subject=http://example.org/Patient/eve", ""},
		{"Condition?subject=http://example.org/fhir/Patient/eve/_history/1", "match:Condition/c-rel match:Condition/c-abs"},
		{"Condition?subject=Patient/eve", "match:Condition/c-rel match:Condition/c-abs"},
		{"Condition?subject=eve", "match:Condition/c-rel match:Condition/c-abs"},
		{"Condition?subject:Patient.name=eve", "match:Condition/c-rel match:Condition/c-abs"},
		{"Patient?_has:Condition:subject:_id=c-abs", "match:Patient/eve"},
		{"Condition?_id=c-abs,c-other&_include=Condition:subject", "match:Condition/c-abs match:Condition/c-other include:Patient/eve"},
	} {
		_, b := getBundle(t, srv.URL+"/"+c.query)
		if got := entryModes(b); got != c.want {
			t.Errorf("%s = %s, want %s", c.query, got, c.want)
		}
	}
	// The store on its own has no base: an absolute URL is compared as
	// written.
	for _, c := range []struct{ query, want string }{
		{"subject=http://example.org/fhir/Patient/eve", "c-abs"},
		{"subject=Patient/eve", "c-rel"},
	} {
		if got, _ := searchIDs(t, s, "Condition", c.query); got != c.want {
			t.Errorf("store Condition?%s = %s, want %s", c.query, got, c.want)
		}
	}
}

// TestQuerySpaces pins rule 25: a + in a query string is a space, %2B a
// plus; the client sends a space as %20 and a + as %2B.
func TestQuerySpaces(t *testing.T) {
	s := peopleStore(t)
	var raw []string
	h := &Handler{Store: s}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw = append(raw, r.URL.RawQuery)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, c := range []struct{ query, want string }{
		{"Organization?name=Parent+Network", "match:Organization/org2"},
		{"Organization?name=Parent%20Network", "match:Organization/org2"},
		{"Patient?phone=%2B1+555+0100", "match:Patient/evelyn"},
		{"Appointment?date=2024-03-01T10:00:00%2B01:00", "match:Appointment/a-day"},
	} {
		_, b := getBundle(t, srv.URL+"/"+c.query)
		if got := entryModes(b); got != c.want {
			t.Errorf("%s = %s, want %s", c.query, got, c.want)
		}
	}
	// A raw + in a date's offset is a space: a 400 that says so.
	status, b := getBundle(t, srv.URL+"/Appointment?date=2024-03-01T10:00:00+01:00")
	if status != 400 || !strings.Contains(b.Get("issue.0.diagnostics").Str, "%2B") {
		t.Errorf("a raw + in a date: %d %s", status, b.Raw)
	}
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	raw = nil
	res, err := c.Search(context.Background(), "Organization", url.Values{"name": {"Parent Network"}})
	if err != nil || len(res) != 1 || res[0].ID != "org2" {
		t.Fatalf("the client's Organization?name=Parent Network: %v %v", res, err)
	}
	if len(raw) != 1 || raw[0] != "name=Parent%20Network" {
		t.Errorf("the client sent %q", raw)
	}
	raw = nil
	if res, err := c.Search(context.Background(), "Patient", url.Values{"phone": {"+1 555 0100"}}); err != nil || len(res) != 1 {
		t.Errorf("phone with a +: %v %v", res, err)
	}
	if len(raw) != 1 || raw[0] != "phone=%2B1%20555%200100" {
		t.Errorf("the client sent %q", raw)
	}
	// Next links carry spaces as %20.
	_, b = getBundle(t, srv.URL+"/Organization?name=Parent+Network,Acme&_count=1")
	if next := b.Get(`link.#(relation=="next").url`).Str; !strings.Contains(next, "name=Parent%20Network") {
		t.Errorf("next link %s", next)
	}
}

// TestTransactionSearchIncludes: a GET in a batch answers a searchset
// with the matches and what they include.
func TestTransactionSearchIncludes(t *testing.T) {
	s := peopleStore(t)
	out, err := s.Transact([]byte(`{"resourceType":"Bundle","type":"batch","entry":[
	 {"request":{"method":"GET","url":"MedicationRequest?_id=mr1&_include=MedicationRequest:medication"}},
	 {"request":{"method":"GET","url":"Condition?subject=http://example.org/fhir/Patient/eve"}}]}`), "http://example.org/fhir")
	if err != nil {
		t.Fatal(err)
	}
	b := gjson.ParseBytes(out)
	if got := entryModes(b.Get("entry.0.resource")); got != "match:MedicationRequest/mr1 include:Medication/med1" {
		t.Errorf("batch GET with _include: %s", got)
	}
	if got := entryModes(b.Get("entry.1.resource")); got != "match:Condition/c-rel match:Condition/c-abs" {
		t.Errorf("batch GET under the base: %s", got)
	}
}

// TestChainedSearchSeesWrites: chains, _has and includes read the store
// as it is now, in a clone that wrote too.
func TestChainedSearchSeesWrites(t *testing.T) {
	base := peopleStore(t)
	s := base.Clone()
	if _, _, err := s.Update("Patient", "evelyn", []byte(`{"resourceType":"Patient","id":"evelyn","name":[{"family":"Zed"}],"managingOrganization":{"reference":"Organization/org2"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create("Observation", []byte(`{"resourceType":"Observation","status":"final","code":{"text":"new"},"subject":{"reference":"Patient/muller"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ typ, query, want, wantBase string }{
		{"Observation", "subject:Patient.name=eve", "glucose", "glucose,lower"},
		{"Observation", "subject:Patient.name=zed", "lower", ""},
		{"Observation", "patient.organization.name=parent", "lower", ""},
		{"Patient", "_has:Observation:patient:status=final", "eve,evelyn,severine,muller", "eve,evelyn,severine"},
		{"Organization", "_has:Patient:organization:name=zed", "org2", ""},
	} {
		if got, _ := searchIDs(t, s, c.typ, c.query); got != c.want {
			t.Errorf("clone %s?%s = [%s], want [%s]", c.typ, c.query, got, c.want)
		}
		if got, _ := searchIDs(t, base, c.typ, c.query); got != c.wantBase {
			t.Errorf("base %s?%s = [%s], want [%s]", c.typ, c.query, got, c.wantBase)
		}
	}
	if err := checkStore(s); err != nil {
		t.Error(err)
	}
}
