package fhir_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/spec"
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
	// Output: passed Appointment/a2 matched; 1 of 1 fields passed.
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
