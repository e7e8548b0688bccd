package fhir_test

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/spec"
	"github.com/tidwall/gjson"
)

func Example() {
	a, err := assert.Decode([]byte(`{
	  "assert": "fhir-resource-state",
	  "resource_type": "Appointment",
	  "search": {"patient": "Patient/p1", "date": "ge2024-03-01"},
	  "fields": [{"path": "status", "expected": "booked"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	env := assert.NewEnv()
	fhir.Attach(env, fhir.MemorySource([]byte(`{"resourceType": "Bundle", "type": "collection", "entry": [
	  {"resource": {"resourceType": "Appointment", "id": "a1", "status": "proposed", "start": "2024-02-01T09:00:00Z",
	    "participant": [{"actor": {"reference": "Patient/p1"}, "status": "needs-action"}]}},
	  {"resource": {"resourceType": "Appointment", "id": "a2", "status": "booked", "start": "2024-03-05T09:00:00Z",
	    "participant": [{"actor": {"reference": "Patient/p1"}, "status": "accepted"}]}}]}`)))
	res := assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Details)
	// No appointment of the patient is cancelled.
	a, err = assert.Decode([]byte(`{"assert": "fhir-resource-state", "resource_type": "Appointment",
	  "search": {"patient": "Patient/p1"}, "fields": [{"path": "status", "expected": "cancelled"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res = assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Details)
	// Output:
	// passed Appointment/a2 matched; 1 of 1 fields passed.
	// failed None of 2 resources satisfied every field; best was Appointment/a1 with 0 of 1 fields passed (status: expected "cancelled", got "proposed").
}

// A Store served over HTTP is a FHIR server for tests and sandboxes; the
// Client searches it (or any FHIR R4 server).
func ExampleServer() {
	store := fhir.NewStore()
	store.LoadJSON([]byte(`{"resourceType": "Bundle", "type": "collection", "entry": [
	  {"resource": {"resourceType": "Patient", "id": "eve", "name": [{"family": "Adams", "given": ["Eve"]}]}},
	  {"resource": {"resourceType": "Patient", "id": "evelyn", "name": [{"family": "Baker", "given": ["Evelyn"]}]}},
	  {"resource": {"resourceType": "Patient", "id": "severine", "name": [{"family": "Müller", "given": ["Séverine"]}]}}]}`))
	srv := fhir.NewServer(store)
	base, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client, _ := fhir.NewClient(base)
	for _, q := range []string{"name=eve", "name:contains=eve", "family=muller", "given:exact=Eve", "colour=blue"} {
		params, _ := url.ParseQuery(q)
		res, err := client.Search(context.Background(), "Patient", params)
		if err != nil {
			fmt.Printf("%s: error %d\n", q, err.(*fhir.OperationOutcomeError).StatusCode)
			continue
		}
		var ids []string
		for _, r := range res {
			ids = append(ids, r.Key())
		}
		fmt.Printf("%s: %v\n", q, ids)
	}
	// Output:
	// name=eve: [Patient/eve Patient/evelyn]
	// name:contains=eve: [Patient/eve Patient/evelyn Patient/severine]
	// family=muller: [Patient/severine]
	// given:exact=Eve: [Patient/eve]
	// colour=blue: error 400
}

// A spec built in Go with package spec decodes through the same schema.
func Example_spec() {
	a, err := assert.Decode(spec.FHIRResourceState{
		ResourceType: "Patient",
		Search:       url.Values{"family": {"muller"}, "birthdate": {"ge1970", "lt1980"}},
		Fields:       []spec.Field{{Path: "gender", Expected: spec.String("male")}},
	}.Spec())
	if err != nil {
		fmt.Println(err)
		return
	}
	env := assert.NewEnv()
	fhir.Attach(env, fhir.MemorySource([]byte(`{"resourceType": "Patient", "id": "m1", "gender": "male", "birthDate": "1975-12-31",
	  "name": [{"family": "Müller"}]}`)))
	res := assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Details)
	// Output: passed Patient/m1 matched; 1 of 1 fields passed.
}

// A transaction Bundle: the Observation refers to the Patient created with
// it by its urn:uuid fullUrl, and to a practitioner by a conditional
// reference; the response lists each entry's status and location.
func ExampleStore_Transact() {
	store := fhir.NewStore()
	store.LoadJSON([]byte(`{"resourceType": "Practitioner", "id": "dr-who",
	  "identifier": [{"system": "http://hl7.org/fhir/sid/us-npi", "value": "9999977399"}]}`))
	resp, err := store.Transact([]byte(`{"resourceType": "Bundle", "type": "transaction", "entry": [
	  {"fullUrl": "urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a",
	   "resource": {"resourceType": "Patient", "name": [{"family": "Pond"}]},
	   "request": {"method": "POST", "url": "Patient"}},
	  {"resource": {"resourceType": "Observation", "status": "final", "code": {"text": "pulse"},
	     "subject": {"reference": "urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a"},
	     "performer": [{"reference": "Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|9999977399"}]},
	   "request": {"method": "POST", "url": "Observation"}}]}`), "http://fhir.example")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range gjson.GetBytes(resp, "entry").Array() {
		fmt.Println(e.Get("response.status"), e.Get("response.location"))
	}
	obs, _ := store.Search(context.Background(), "Observation", url.Values{"code:text": {"pulse"}})
	fmt.Println(gjson.GetBytes(obs[0].JSON, "subject.reference"), gjson.GetBytes(obs[0].JSON, "performer.0.reference"))
	// Output:
	// 201 Created Patient/61ebe359-bfdc-4613-8bf2-c5e300945f0a/_history/1
	// 201 Created Observation/assay-1/_history/1
	// Patient/61ebe359-bfdc-4613-8bf2-c5e300945f0a Practitioner/dr-who
}

// A clone starts as its origin and lives apart: the sandbox gives each
// run one, with the run's clock.
func ExampleStore_Clone() {
	seed := fhir.NewStore()
	seed.LoadJSON([]byte(`{"resourceType": "Patient", "id": "eve", "gender": "female"}`))
	run := seed.Clone(fhir.WithClock(func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) }))
	r, _, _ := run.Update("Patient", "eve", []byte(`{"resourceType": "Patient", "gender": "other"}`))
	fmt.Println(r.Version, gjson.GetBytes(r.JSON, "meta.lastUpdated"))
	old, _ := seed.Read("Patient", "eve")
	fmt.Println(old.Version, gjson.GetBytes(old.JSON, "gender"))
	// Output:
	// 2 2026-03-01T09:00:00.000Z
	// 1 female
}
