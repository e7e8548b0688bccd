package fhir_test

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"testing"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/tidwall/gjson"
)

// testdata/synthea holds transaction Bundles in the shape Synthea writes:
// the hospital and practitioner bundles (POST with ifNoneExist), then a
// patient bundle whose references are urn:uuid fullUrls and conditional
// references to the practitioner, organization and location.
func TestLoadSynthea(t *testing.T) {
	s := fhir.NewStore()
	n, err := s.LoadFS(check.DirFS("testdata/synthea"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Errorf("stored %d resources, want 9", n)
	}
	const (
		pat = "8c95253e-8ee8-9ae8-6d40-021d702dc78e"
		org = "ef58ea08-d883-3957-8300-150554edc8fb"
		loc = "a8b4ea0c-4a47-3a1b-9f6e-0b8c2ab30b2a"
		pr  = "0000016f-57cb-cdaa-0000-00000000c2c0"
	)
	enc, err := s.Read("Encounter", "8c95253e-8ee8-9ae8-0a4d-5a0f32b9e0a1")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"subject.reference":                  "Patient/" + pat,
		"participant.0.individual.reference": "Practitioner/" + pr,
		"serviceProvider.reference":          "Organization/" + org,
		"location.0.location.reference":      "Location/" + loc,
		"serviceProvider.display":            "SHRINERS' HOSPITAL FOR CHILDREN",
	} {
		if got := gjson.GetBytes(enc.JSON, path).Str; got != want {
			t.Errorf("Encounter %s = %q, want %q", path, got, want)
		}
	}
	// A conditional reference to a resource of the same bundle resolves
	// (R4 resolves them after the writes).
	role, _ := s.Search(context.Background(), "PractitionerRole", nil)
	if len(role) != 1 || gjson.GetBytes(role[0].JSON, "organization.reference").Str != "Organization/"+org {
		t.Errorf("PractitionerRole: %v", role)
	}
	ctx := context.Background()
	if res, err := s.Search(ctx, "Observation", url.Values{"subject": {"Patient/" + pat}, "code": {"http://loinc.org|4548-4"}}); err != nil || len(res) != 1 {
		t.Errorf("search by the rewritten reference: %d %v", len(res), err)
	}
	// Loading the practitioner bundle again creates nothing (ifNoneExist).
	data, _ := os.ReadFile("testdata/synthea/2-practitionerInformation1712000000000.json")
	if n, err := s.LoadJSON(data); err != nil || n != 0 {
		t.Errorf("reloading the practitioners: %d %v", n, err)
	}
	if res, _ := s.Search(ctx, "Practitioner", nil); len(res) != 1 {
		t.Errorf("%d practitioners after a reload", len(res))
	}
	// The patient bundle alone: its conditional references match nothing.
	data, _ = os.ReadFile("testdata/synthea/3-Ashley34_Hettinger594_8c95253e-8ee8-9ae8-6d40-021d702dc78e.json")
	_, err = fhir.NewStore().LoadJSON(data)
	var le *fhir.LoadError
	if !errors.As(err, &le) || !errors.Is(err, fhir.ErrNotFound) || le.Pointer != "/entry/0" || le.Line == 0 {
		t.Errorf("a patient bundle without its practitioners: %v", err)
	}
}

// WriteBundle's collection reads back to the same store.
func TestWriteBundleRoundTrip(t *testing.T) {
	s := fhir.NewStore()
	if _, err := s.LoadFS(check.DirFS("testdata/synthea"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadJSON(must(os.ReadFile("testdata/people.json"))); err != nil {
		t.Fatal(err)
	}
	s.Update("Patient", "eve", []byte(`{"resourceType":"Patient","id":"eve","gender":"female"}`))
	s.Delete("Patient", "evelyn")
	var first bytes.Buffer
	if err := s.WriteBundle(&first); err != nil {
		t.Fatal(err)
	}
	doc := gjson.ParseBytes(first.Bytes())
	if doc.Get("type").Str != "collection" || int(doc.Get("entry.#").Int()) != s.Len() {
		t.Fatalf("%d entries for %d resources", doc.Get("entry.#").Int(), s.Len())
	}
	// By type, then id, in byte order.
	prev := ""
	doc.Get("entry").ForEach(func(_, e gjson.Result) bool {
		key := e.Get("resource.resourceType").Str + "\x00" + e.Get("resource.id").Str
		if key <= prev {
			t.Errorf("%q after %q", key, prev)
		}
		prev = key
		return true
	})
	back := fhir.NewStore()
	if _, err := back.LoadJSON(first.Bytes()); err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	back.WriteBundle(&second)
	if first.String() != second.String() {
		t.Errorf("the round trip changed the bundle:\n%s\n---\n%s", first.String(), second.String())
	}
	if r, _ := back.Read("Patient", "eve"); r.Version != "2" {
		t.Errorf("eve's version after the round trip: %s", r.Version)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
