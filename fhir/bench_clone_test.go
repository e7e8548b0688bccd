package fhir

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"testing"
)

// BenchmarkClone copies a store of 10,000 resources (5,000 Patients and
// 5,000 Observations), as the sandbox does for every run.
func BenchmarkClone(b *testing.B) {
	base := cloneSeed(b, 5000)
	b.ReportAllocs()
	for b.Loop() {
		base.Clone()
	}
}

// BenchmarkCloneFirstWrite is a clone and its first write to a type: the
// write copies the type's table of 5,000 resources (with the columns of
// three search parameters built).
func BenchmarkCloneFirstWrite(b *testing.B) {
	base := cloneSeed(b, 5000)
	for _, q := range []url.Values{{"gender": {"male"}}, {"birthdate": {"ge1950"}}, {"identifier": {"urn:mrn|m1"}}} {
		base.Search(context.Background(), "Patient", q)
	}
	body := []byte(`{"resourceType":"Patient","gender":"female"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := base.Clone().Create("Patient", body); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheaBundle is a transaction of n entries in Synthea's shape: a
// Patient, then Encounters, Conditions and Observations referring to it
// and to each other by urn:uuid, and to a practitioner and an
// organization by conditional references.
func syntheaBundle(n int) []byte {
	var b bytes.Buffer
	pat := "urn:uuid:00000000-0000-4000-8000-000000000000"
	b.WriteString(`{"resourceType":"Bundle","type":"transaction","entry":[`)
	fmt.Fprintf(&b, `{"fullUrl":%q,"resource":{"resourceType":"Patient","identifier":[{"system":"https://github.com/synthetichealth/synthea","value":"p"}],"name":[{"family":"Bench","given":["Mark"]}],"gender":"female","birthDate":"1970-01-01"},"request":{"method":"POST","url":"Patient"}}`, pat)
	enc := ""
	for i := 1; i < n; i++ {
		id := fmt.Sprintf("urn:uuid:00000000-0000-4000-8000-%012d", i)
		switch i % 4 {
		case 1:
			enc = id
			fmt.Fprintf(&b, `,{"fullUrl":%q,"resource":{"resourceType":"Encounter","status":"finished","class":{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"AMB"},"subject":{"reference":%q},"participant":[{"individual":{"reference":"Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|9999977399"}}],"period":{"start":"2024-03-%02dT09:00:00-05:00","end":"2024-03-%02dT09:15:00-05:00"},"serviceProvider":{"reference":"Organization?identifier=https://github.com/synthetichealth/synthea|org"}},"request":{"method":"POST","url":"Encounter"}}`, id, pat, i%28+1, i%28+1)
		case 2:
			fmt.Fprintf(&b, `,{"fullUrl":%q,"resource":{"resourceType":"Condition","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006"}]},"subject":{"reference":%q},"encounter":{"reference":%q},"onsetDateTime":"2024-03-%02dT09:00:00-05:00"},"request":{"method":"POST","url":"Condition"}}`, id, pat, enc, i%28+1)
		default:
			fmt.Fprintf(&b, `,{"fullUrl":%q,"resource":{"resourceType":"Observation","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"4548-4"}]},"subject":{"reference":%q},"encounter":{"reference":%q},"effectiveDateTime":"2024-03-%02dT09:00:00-05:00","valueQuantity":{"value":%d.2,"unit":"%%","system":"http://unitsofmeasure.org","code":"%%"}},"request":{"method":"POST","url":"Observation"}}`, id, pat, enc, i%28+1, i%10)
		}
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkTransaction applies a Synthea-sized transaction (200 entries)
// to a clone of a store holding its practitioner and organization: alone
// ("small"), and beside 10,000 other resources ("10k"), where the clone's
// first writes copy the Patient and Observation tables.
func BenchmarkTransaction(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"small", 0}, {"10k", 5000}} {
		b.Run(c.name, func(b *testing.B) {
			base := cloneSeed(b, c.n)
			if _, err := base.LoadJSON([]byte(`{"resourceType":"Bundle","type":"collection","entry":[
			 {"resource":{"resourceType":"Practitioner","id":"pr","identifier":[{"system":"http://hl7.org/fhir/sid/us-npi","value":"9999977399"}]}},
			 {"resource":{"resourceType":"Organization","id":"org","identifier":[{"system":"https://github.com/synthetichealth/synthea","value":"org"}]}}]}`)); err != nil {
				b.Fatal(err)
			}
			bundle := syntheaBundle(200)
			if _, err := base.Clone().Transact(bundle, ""); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(bundle)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := base.Clone().Transact(bundle, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
