package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/serve"
)

// benchSeed writes a seed of n Patients (and the files and HL7 folders of
// every simulator) and returns its folder.
func benchSeed(b testing.TB, n int) string {
	dir := b.TempDir()
	var buf strings.Builder
	buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"resource":{"resourceType":"Patient","id":"p%d","gender":"female","name":[{"family":"Fam%d","given":["Ann"]}],"identifier":[{"system":"urn:mrn","value":"m%d"}],"birthDate":"1980-01-%02d"}}`, i, i%500, i, i%28+1)
	}
	buf.WriteString(`]}`)
	for name, data := range map[string]string{
		"fhir/patients.json":   buf.String(),
		"hl7/inbox/0001.hl7":   "MSH|^~\\&|A|B|C|D|20260101000000||ADT^A04|1|P|2.5.1\rPID|1||m1||FAM1^ANN\r",
		"sftp/inbox/hello.txt": "hello",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

func startBench(b *testing.B, seed string) *serve.Server {
	srv, err := serve.New(os.DirFS(seed), serve.Options{Out: b.TempDir(), MaxRuns: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv
}

// BenchmarkNewRun creates a run on a seed of 10,000 FHIR resources (every
// simulator's part: a clone of the store, a tree over the seed's files, an
// MLLP port of its own) and deletes it. Creating a run must not copy the
// seed: the goal is under 1 ms and 64 KiB.
func BenchmarkNewRun(b *testing.B) {
	srv := startBench(b, benchSeed(b, 10000))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := srv.NewRun(ctx, serve.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := srv.DeleteRun(r.ID()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkCompleteSmallRun completes a run that made a few writes per
// simulator (a FHIR create, an HL7 message, a file), on the 10,000-resource
// seed: the snapshot written and renamed into place. Goal: under 50 ms.
func BenchmarkCompleteSmallRun(b *testing.B) {
	srv := startBench(b, benchSeed(b, 10000))
	ctx := context.Background()
	do := func(method, url, token, body string) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode/100 != 2 {
			b.Fatalf("%s %s: %v %v", method, url, resp, err)
		}
		resp.Body.Close()
	}
	for b.Loop() {
		b.StopTimer()
		r, err := srv.NewRun(ctx, serve.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ep := r.Endpoints()
		for i := range 3 {
			do("POST", ep["fhir"]+"/Patient", r.Token(), `{"resourceType":"Patient","name":[{"family":"New"}]}`)
			do("POST", ep["hl7_outbound"], r.Token(), fmt.Sprintf(`{"payload":"MSH|^~\\&|A|B|C|D|20260101000000||ORM^O01|%d|P|2.5.1\rPID|1||m1\r"}`, i))
			do("PUT", ep["files"]+fmt.Sprintf("/outbound/f%d.txt", i), r.Token(), "data")
		}
		b.StartTimer()
		if _, err := r.Complete(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
