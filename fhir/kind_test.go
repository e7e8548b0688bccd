package fhir_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func peopleEnv(t testing.TB) *assert.Env {
	t.Helper()
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	fhir.Attach(env, fhir.MemorySource(data))
	return env
}

func run(t testing.TB, env *assert.Env, spec string) assert.Result {
	t.Helper()
	a, err := assert.Decode([]byte(spec))
	if err != nil {
		t.Fatalf("decode %s: %v", spec, err)
	}
	return assert.Run(context.Background(), a, env)
}

func TestCheck(t *testing.T) {
	env := peopleEnv(t)
	cases := []struct {
		name, spec string
		status     assert.Status
		score      float64
		details    string
	}{
		{"pass", `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"patient":"Patient/eve"},"fields":[{"path":"status","expected":"booked"},{"path":"participant.0.actor.display","expected":"Eve Adams"}]}`,
			assert.StatusPassed, 1, "Appointment/a-day matched; 2 of 2 fields passed."},
		{"no fields", `{"assert":"fhir-resource-state","resource_type":"Patient","search":{"name":"eve"}}`,
			assert.StatusPassed, 1, "Patient/eve matched; no fields to check."},
		{"and by list", `{"assert":"fhir-resource-state","resource_type":"Encounter","search":{"date":["ge2023-06-01","lt2023-07-01"],"status":"finished"},"fields":[{"path":"id","expected":"e-day"}]}`,
			assert.StatusPassed, 1, "Encounter/e-day matched; 1 of 1 fields passed."},
		{"hash path", `{"assert":"fhir-resource-state","resource_type":"Patient","search":{"_id":"eve"},"fields":[{"path":"identifier.#.value","expected":"MRN-1"},{"path":"name.0.given.0","expected":"Eve"}]}`,
			assert.StatusPassed, 1, "Patient/eve matched; 2 of 2 fields passed."},
		{"partial", `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"patient":"eve"},"fields":[{"path":"status","expected":"cancelled"},{"path":"participant.0.status","expected":"accepted"}]}`,
			assert.StatusFailed, 0.5, `Appointment/a-day matched but only 1 of 2 fields passed (status: expected "cancelled", got "booked").`},
		{"best of several", `{"assert":"fhir-resource-state","resource_type":"Patient","search":{"gender":"female"},"fields":[{"path":"birthDate","expected":"2000"},{"path":"active","expected":true}]}`,
			assert.StatusFailed, 0.5, `None of 3 resources satisfied every field; best was Patient/eve with 1 of 2 fields passed (birthDate: expected "2000", got "1980-05-01").`},
		{"type differs", `{"assert":"fhir-resource-state","resource_type":"Observation","search":{"_id":"glucose"},"fields":[{"path":"valueQuantity.value","expected":"6.3"}]}`,
			assert.StatusFailed, 0, `Observation/glucose matched but only 0 of 1 fields passed (valueQuantity.value: expected "6.3", got 6.3; type differs: expected string, got number).`},
		{"chain", `{"assert":"fhir-resource-state","resource_type":"Observation","search":{"subject:Patient.family":"baker"},"fields":[{"path":"id","expected":"lower"}]}`,
			assert.StatusPassed, 1, "Observation/lower matched; 1 of 1 fields passed."},
		{"included resources are not candidates", `{"assert":"fhir-resource-state","resource_type":"MedicationRequest","search":{"_id":"mr1","_include":"MedicationRequest:subject"},"fields":[{"path":"resourceType","expected":"Patient"}]}`,
			assert.StatusFailed, 0, `MedicationRequest/mr1 matched but only 0 of 1 fields passed (resourceType: expected "Patient", got "MedicationRequest").`},
		{"no candidate", `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"status":"noshow"}}`,
			assert.StatusFailed, 0, "No candidate: found no Appointment?status=noshow."},
		{"unknown parameter is error", `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"colour":"blue"}}`,
			assert.StatusError, 0, `FHIR search Appointment?colour=blue: search parameter colour: unknown or unsupported search parameter: R4 defines no "colour" for Appointment`},
		{"bad date is error", `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"date":"ge2024-13"}}`,
			assert.StatusError, 0, `FHIR search Appointment?date=ge2024-13: search parameter date=ge2024-13: bad search value: bad FHIR date "2024-13": bad month`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, env, c.spec)
			if res.Status != c.status || res.Score != c.score || res.Details != c.details {
				t.Errorf("got %s %v %q\nwant %s %v %q", res.Status, res.Score, res.Details, c.status, c.score, c.details)
			}
		})
	}
}

// TestCheckIncludesOverHTTP: through the client, a live server's
// included entries (search.mode include) are never candidates, even of
// the type searched.
func TestCheckIncludesOverHTTP(t *testing.T) {
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	s := fhir.NewStore()
	if _, err := s.LoadJSON(data); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(fhir.NewHandler(s))
	defer srv.Close()
	c, err := fhir.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	fhir.Attach(env, c)
	for _, spec := range []string{
		// org1 is included (partOf org2's match): never a candidate.
		`{"assert":"fhir-resource-state","resource_type":"Organization","search":{"_id":"org2","_revinclude":"Organization:partof"},"fields":[{"path":"id","expected":"org1"}]}`,
		`{"assert":"fhir-resource-state","resource_type":"MedicationRequest","search":{"_id":"mr1","_include":"MedicationRequest:subject"},"fields":[{"path":"resourceType","expected":"Patient"}]}`,
	} {
		res := run(t, env, spec)
		if res.Status != assert.StatusFailed || !strings.Contains(res.Details, "matched but only 0 of 1") {
			t.Errorf("%s: %s %q", spec, res.Status, res.Details)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	spec := `{"assert":"fhir-resource-state","resource_type":"Patient"}`
	if res := run(t, assert.NewEnv(), spec); res.Status != assert.StatusError || !strings.Contains(res.Details, "fhir") {
		t.Errorf("missing source: %s %q", res.Status, res.Details)
	}
	for name, doc := range map[string]string{
		"not JSON":        `{"resourceType": "Patient",`,
		"no resourceType": `{"id": "x"}`,
		"bad bundle":      `{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"id":"x"}}]}`,
	} {
		env := assert.NewEnv()
		fhir.Attach(env, fhir.MemorySource([]byte(doc)))
		res := run(t, env, spec)
		if res.Status != assert.StatusError || res.Score != 0 {
			t.Errorf("%s: %s %v %q", name, res.Status, res.Score, res.Details)
		}
		t.Logf("%s: %s", name, res.Details)
	}
}

func TestSpecValidation(t *testing.T) {
	for _, spec := range []string{
		`{"assert":"fhir-resource-state"}`,
		`{"assert":"fhir-resource-state","resource_type":"patient"}`,
		`{"assert":"fhir-resource-state","resource_type":"Patient","search":{"name":1}}`,
		`{"assert":"fhir-resource-state","resource_type":"Patient","search":{"name":[]}}`,
		`{"assert":"fhir-resource-state","resource_type":"Patient","fields":[{"path":"id","expect":"x"}]}`,
		`{"assert":"fhir-resource-state","resource_type":"Patient","resourceType":"Patient"}`,
		`{"assert":"fhir-resource-state","resource_type":"P` + strings.Repeat("a", 64) + `"}`,
		`{"assert":"fhir-resource-state","resource_type":"Pat-ient"}`,
	} {
		if _, err := assert.Decode([]byte(spec)); err == nil {
			t.Errorf("accepted %s", spec)
		}
	}
	// A type name is at most 64 characters.
	if _, err := assert.Decode([]byte(`{"assert":"fhir-resource-state","resource_type":"P` + strings.Repeat("a", 63) + `"}`)); err != nil {
		t.Errorf("a 64-character type: %v", err)
	}
	if _, ok := assert.Schema(fhir.Kind); !ok {
		t.Error("no schema")
	}
}

func TestGoldenEvidence(t *testing.T) {
	env := peopleEnv(t)
	for name, spec := range map[string]string{
		"pass":         `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"patient":"Patient/eve","date":"ge2024-03-01T00:00:00+01:00"},"fields":[{"path":"status","expected":"booked"},{"path":"participant.#.actor.reference","expected":"Practitioner/dr1"}]}`,
		"fail":         `{"assert":"fhir-resource-state","resource_type":"Patient","search":{"family":"muller"},"fields":[{"path":"name.0.family","expected":"Muller"},{"path":"deceasedBoolean","expected":null}]}`,
		"no_candidate": `{"assert":"fhir-resource-state","resource_type":"Observation","search":{"code":"http://loinc.org|0000-0"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, env, spec)
			got, err := json.MarshalIndent(map[string]any{"status": res.Status, "score": res.Score, "details": res.Details, "evidence": res.Evidence}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("evidence differs (-want +got):\n%s", d)
			}
		})
	}
}

func TestEvidenceNamesVersion(t *testing.T) {
	s := fhir.NewStore()
	if _, err := s.LoadJSON([]byte(`{"resourceType":"Patient","id":"p","active":true}`)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Update("Patient", "p", []byte(`{"resourceType":"Patient","id":"p","active":false}`)); err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	fhir.Attach(env, s)
	res := run(t, env, `{"assert":"fhir-resource-state","resource_type":"Patient","fields":[{"path":"active","expected":false}]}`)
	ev := res.Evidence.(check.Evidence)
	if res.Status != assert.StatusPassed || ev.Matched != "Patient/p" {
		t.Fatalf("%s %q", res.Status, res.Details)
	}
	var version any
	for _, m := range ev.Extra {
		if m.Key == "version" {
			version = m.Value
		}
	}
	if version != "2" {
		t.Errorf("version %v, want 2", version)
	}
}
