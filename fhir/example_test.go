package fhir_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
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
