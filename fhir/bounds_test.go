package fhir_test

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assaykit/assay/fhir"
)

// patient is a Patient with family name family and, unless id is "", that
// id.
func patient(id, family string) string {
	if id != "" {
		id = `"id":"` + id + `",`
	}
	return `{"resourceType":"Patient",` + id + `"name":[{"family":"` + family + `"}]}`
}

func TestMaxBytes(t *testing.T) {
	s := fhir.NewStore(fhir.WithMaxBytes(1000))
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	n := 0
	for ; n < 100; n++ {
		status, _, b := request(t, "PUT", srv.URL+fmt.Sprintf("/Patient/p%d", n), patient(fmt.Sprintf("p%d", n), strings.Repeat("x", 50)))
		if status == 507 {
			if b.Get("resourceType").Str != "OperationOutcome" || !strings.Contains(b.Get("issue.0.diagnostics").Str, "MaxBytes") {
				t.Errorf("the refusal: %s", b.Raw)
			}
			break
		}
		if status != 201 {
			t.Fatalf("write %d: %d %s", n, status, b.Raw)
		}
	}
	all, _ := s.Size()
	if n == 0 || n == 100 || all > 1000 {
		t.Fatalf("%d writes, %d bytes: the bound was not crossed or not kept", n, all)
	}
	// The refused write left nothing; a delete (which frees) still works,
	// and an update that grows the history is refused.
	if _, err := s.Read("Patient", fmt.Sprintf("p%d", n)); !errors.Is(err, fhir.ErrNotFound) {
		t.Errorf("the refused write was stored: %v", err)
	}
	if status, _, _ := request(t, "PUT", srv.URL+"/Patient/p0", patient("p0", "y")); status != 507 {
		t.Errorf("an update past the bound: %d", status)
	}
	if status, _, _ := request(t, "DELETE", srv.URL+"/Patient/p0", ""); status != 204 {
		t.Errorf("a delete past the bound: %d", status)
	}
	var be *fhir.BoundError
	if _, err := s.Create("Patient", []byte(patient("", strings.Repeat("z", 2000)))); !errors.As(err, &be) || be.Bound != "MaxBytes" || be.Limit != 1000 {
		t.Errorf("Create past the bound: %v", err)
	}
}

func TestMaxVersions(t *testing.T) {
	s := fhir.NewStore(fhir.WithMaxVersions(3))
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	for i := range 5 {
		if status, _, b := request(t, "PUT", srv.URL+"/Patient/v", patient("v", fmt.Sprint("v", i+1))); status/100 != 2 {
			t.Fatalf("%d %s", status, b.Raw)
		}
	}
	h, err := s.History("Patient", "v")
	if err != nil || len(h) != 3 || h[0].Version != "5" || h[2].Version != "3" {
		t.Fatalf("history: %v %v", h, err)
	}
	for vid, want := range map[string]int{"1": 410, "2": 410, "3": 200, "5": 200, "6": 404, "x": 404} {
		if status, _, _ := request(t, "GET", srv.URL+"/Patient/v/_history/"+vid, ""); status != want {
			t.Errorf("vread %s: %d, want %d", vid, status, want)
		}
	}
	// The history no longer starts with the create.
	_, _, b := request(t, "GET", srv.URL+"/Patient/v/_history", "")
	if b.Get("entry.2.request.method").Str != "PUT" || b.Get("total").Int() != 3 {
		t.Errorf("history after drops: %s", b.Raw)
	}
	// Only the kept versions count.
	all, cur := s.Size()
	r, _ := s.Read("Patient", "v")
	if cur != int64(len(r.JSON)) || all > 3*cur+10 || all < 3*cur-10 {
		t.Errorf("size %d, %d for a current version of %d bytes", all, cur, len(r.JSON))
	}
}

func TestMaxCurrentBytes(t *testing.T) {
	s := fhir.NewStore(fhir.WithMaxCurrentBytes(400))
	for i := range 20 { // history grows; the current version does not
		if _, _, err := s.Update("Patient", "a", []byte(patient("a", fmt.Sprint("same-size-", i%10)))); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	var be *fhir.BoundError
	var err error
	for i := 0; err == nil && i < 20; i++ {
		_, err = s.Create("Patient", []byte(patient("", "another-one")))
	}
	if !errors.As(err, &be) || be.Bound != "MaxCurrentBytes" || !strings.Contains(err.Error(), "current") {
		t.Fatalf("past the current bound: %v", err)
	}
	if _, cur := s.Size(); cur > 400 {
		t.Errorf("current bytes %d over the bound", cur)
	}
}

func TestReserve(t *testing.T) {
	var charged int64
	budget := int64(600)
	refusal := errors.New("the budget is spent")
	s := fhir.NewStore(fhir.WithReserve(func(delta int64) error {
		if delta > 0 && charged+delta > budget {
			return refusal
		}
		charged += delta
		return nil
	}))
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	var status int
	for i := 0; i < 50; i++ {
		if status, _, _ = request(t, "POST", srv.URL+"/Patient", patient("", "reserved")); status != 201 {
			break
		}
	}
	if status != 507 {
		t.Fatalf("past the budget: %d", status)
	}
	all, _ := s.Size()
	if charged != all {
		t.Errorf("charged %d for %d bytes held", charged, all)
	}
	var be *fhir.BoundError
	if _, err := s.Create("Patient", []byte(patient("", "x"))); !errors.As(err, &be) || !errors.Is(err, refusal) {
		t.Errorf("Create: %v", err)
	}
	// Writes that free bytes give them back; a refused transaction
	// charges nothing.
	if err := s.Delete("Patient", "assay-1"); err != nil {
		t.Fatal(err)
	}
	if all, _ := s.Size(); charged != all {
		t.Errorf("after a delete: charged %d for %d bytes held", charged, all)
	}
	before := charged
	_, err := s.Transact([]byte(`{"resourceType":"Bundle","type":"transaction","entry":[`+
		`{"resource":`+patient("", strings.Repeat("b", 500))+`,"request":{"method":"POST","url":"Patient"}}]}`), "")
	if !errors.As(err, &be) || charged != before {
		t.Errorf("a refused transaction: %v, charged %d then %d", err, before, charged)
	}
}

// A Clone's first write to a type copies that type's table and charges
// the copy.
func TestReserveClone(t *testing.T) {
	base := txStore(t)
	var charged int64
	c := base.Clone(fhir.WithReserve(func(d int64) error { charged += d; return nil }))
	r, err := c.Create("Patient", []byte(`{"resourceType":"Patient"}`))
	if err != nil {
		t.Fatal(err)
	}
	if charged <= int64(len(r.JSON)) {
		t.Errorf("the first write charged %d for %d bytes: the table copy is not charged", charged, len(r.JSON))
	}
}
