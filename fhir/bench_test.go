package fhir_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
)

const benchN = 100000

var (
	benchOnce   sync.Once
	benchBundle []byte
	benchStore  *fhir.Store
)

// benchData is a collection Bundle of 100,000 Observations: 1,000 codes,
// one effective time per 5 minutes from 2024-01-01.
func benchData(b *testing.B) ([]byte, *fhir.Store) {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
		start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range benchN {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"resource":{"resourceType":"Observation","id":"o%d","status":"final",`+
				`"code":{"coding":[{"system":"http://loinc.org","code":"C-%d","display":"Test %d"}]},`+
				`"subject":{"reference":"Patient/p%d"},"effectiveDateTime":%q,`+
				`"valueQuantity":{"value":%d.5,"unit":"mg","system":"http://unitsofmeasure.org","code":"mg"}}}`,
				i, i%1000, i%1000, i%5000, start.Add(time.Duration(i)*5*time.Minute).Format(time.RFC3339), i%300)
		}
		buf.WriteString(`]}`)
		benchBundle = buf.Bytes()
		benchStore = fhir.NewStore()
		if _, err := benchStore.LoadJSON(benchBundle); err != nil {
			panic(err)
		}
	})
	return benchBundle, benchStore
}

func benchSearch(b *testing.B, params url.Values, want int) {
	_, s := benchData(b)
	ctx := context.Background()
	if res, err := s.Search(ctx, "Observation", params); err != nil || len(res) != want { // builds the index
		b.Fatalf("%d %v", len(res), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, "Observation", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchToken: one token parameter over 100,000 Observations.
func BenchmarkSearchToken(b *testing.B) {
	benchSearch(b, url.Values{"code": {"http://loinc.org|C-42"}}, 100)
}

// BenchmarkSearchDate: one date parameter (a day) over 100,000
// Observations.
func BenchmarkSearchDate(b *testing.B) {
	benchSearch(b, url.Values{"date": {"2024-03-01"}}, 288)
}

// BenchmarkLoad: loading 100,000 resources from one Bundle.
func BenchmarkLoad(b *testing.B) {
	data, _ := benchData(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s := fhir.NewStore()
		if n, err := s.LoadJSON(data); err != nil || n != benchN {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkCheckHTTP: fhir-resource-state end to end through the HTTP
// client against the local Server (10,000 Observations); reports
// checks per second.
func BenchmarkCheckHTTP(b *testing.B) {
	s := fhir.NewStore()
	var buf bytes.Buffer
	buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range 10000 {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"resource":{"resourceType":"Observation","id":"o%d","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"C-%d"}]},"subject":{"reference":"Patient/p%d"}}}`, i, i%100, i%1000)
	}
	buf.WriteString(`]}`)
	if _, err := s.LoadJSON(buf.Bytes()); err != nil {
		b.Fatal(err)
	}
	srv := fhir.NewServer(s)
	base, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c, err := fhir.NewClient(base)
	if err != nil {
		b.Fatal(err)
	}
	env := assert.NewEnv()
	fhir.Attach(env, c)
	a, err := assert.Decode([]byte(`{"assert":"fhir-resource-state","resource_type":"Observation","search":{"subject":"Patient/p42","code":"http://loinc.org|C-42"},"fields":[{"path":"status","expected":"final"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if res := assert.Run(ctx, a, env); res.Status != assert.StatusPassed {
			b.Fatalf("%s %s", res.Status, res.Details)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "checks/s")
}

var (
	chainOnce  sync.Once
	chainStore *fhir.Store
)

// benchChain is benchData's store with the 5,000 Patients its
// Observations refer to, each with an identifier and a name.
func benchChain(b *testing.B) *fhir.Store {
	_, s := benchData(b)
	chainOnce.Do(func() {
		var buf bytes.Buffer
		buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
		for i := range 5000 {
			if i > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"resource":{"resourceType":"Patient","id":"p%d","identifier":[{"system":"urn:mrn","value":"m%d"}],"name":[{"family":"Fam%d"}],"gender":%q}}`,
				i, i, i, []string{"male", "female"}[i%2])
		}
		buf.WriteString(`]}`)
		if _, err := s.LoadJSON(buf.Bytes()); err != nil {
			panic(err)
		}
		chainStore = s
	})
	return chainStore
}

func benchSearchOn(b *testing.B, s *fhir.Store, typ string, params url.Values, want int) {
	ctx := context.Background()
	if res, err := s.Search(ctx, typ, params); err != nil || len(res) != want { // builds the indexes
		b.Fatalf("%d %v", len(res), err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, typ, params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchChain: a chained parameter over 100,000 Observations
// and 5,000 Patients (the Patient's identifier, then the Observations
// that refer to it).
func BenchmarkSearchChain(b *testing.B) {
	benchSearchOn(b, benchChain(b), "Observation", url.Values{"subject:Patient.identifier": {"urn:mrn|m42"}}, 20)
}

// BenchmarkSearchHas: a reverse chain over the same store (the Patients
// that 100 Observations of one code refer to).
func BenchmarkSearchHas(b *testing.B) {
	benchSearchOn(b, benchChain(b), "Patient", url.Values{"_has:Observation:subject:code": {"http://loinc.org|C-42"}}, 5)
}

// BenchmarkSearchRevinclude: one Patient and the 20 of 100,000
// Observations that refer to it, as a searchset page through the Handler.
func BenchmarkSearchRevinclude(b *testing.B) {
	h := fhir.NewHandler(benchChain(b))
	req := httptest.NewRequest("GET", "/Patient?_id=p42&_revinclude=Observation:subject", nil)
	run := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return strings.Count(w.Body.String(), `"mode":"include"`)
	}
	if n := run(); n != 20 {
		b.Fatalf("%d included", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
}

// BenchmarkCloneWriteSearch is a sandbox run's loop: on a clone of a
// store of 10,000 Patients (its identifier index built), create a Patient
// and search for it by identifier. Each op is one create and one search.
func BenchmarkCloneWriteSearch(b *testing.B) {
	base := fhir.NewStore()
	var buf bytes.Buffer
	buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range 10000 {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"resource":{"resourceType":"Patient","id":"p%d","identifier":[{"system":"urn:mrn","value":"m%d"}],"name":[{"family":"Fam%d"}]}}`, i, i, i)
	}
	buf.WriteString(`]}`)
	if _, err := base.LoadJSON(buf.Bytes()); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if res, err := base.Search(ctx, "Patient", url.Values{"identifier": {"urn:mrn|m1"}}); err != nil || len(res) != 1 {
		b.Fatal(len(res), err)
	}
	s := base.Clone()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		id := "w" + strconv.Itoa(i)
		if _, err := s.Create("Patient", []byte(`{"resourceType":"Patient","identifier":[{"system":"urn:mrn","value":"`+id+`"}]}`)); err != nil {
			b.Fatal(err)
		}
		if res, err := s.Search(ctx, "Patient", url.Values{"identifier": {"urn:mrn|" + id}}); err != nil || len(res) != 1 {
			b.Fatal(len(res), err)
		}
	}
}
