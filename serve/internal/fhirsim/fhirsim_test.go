package fhirsim_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/fhirsim"
	"github.com/tidwall/gjson"
)

var (
	clock    = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	realTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

// sandbox starts assay serve on 127.0.0.1 with the seed in testdata and a
// real time that stands still.
func startServe(t testing.TB, opts serve.Options) *serve.Server {
	t.Helper()
	if opts.Out == "" {
		opts.Out = t.TempDir()
	}
	opts.Clock = clock
	opts.Now = func() time.Time { return realTime }
	srv, err := serve.New(os.DirFS("testdata/seed"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// call sends a request with a bearer token and returns the status and body.
func call(t testing.TB, method, u, token, body string) (int, gjson.Result) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/fhir+json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, gjson.ParseBytes(data)
}

// newRun creates a run and returns its FHIR base and token.
func newRun(t testing.TB, srv *serve.Server, id string) (string, string) {
	t.Helper()
	status, run := call(t, "POST", srv.URL()+"/runs", srv.Token(), `{"id":"`+id+`"}`)
	if status != 201 {
		t.Fatalf("POST /runs: %d %s", status, run.Raw)
	}
	return run.Get("endpoints.fhir").Str, run.Get("token").Str
}

// The script both runs of TestServeFHIR follow.
func script(t *testing.T, base, token string) (patientID string) {
	t.Helper()
	// The seed: its transactions applied, conditional references resolved.
	status, b := call(t, "GET", base+"/Patient?identifier=urn:mrn|MRN-1", token, "")
	if status != 200 || b.Get("total").Int() != 1 {
		t.Fatalf("seed patient: %d %s", status, b.Raw)
	}
	if got := b.Get("entry.0.resource.generalPractitioner.0.reference").Str; got != "Practitioner/3b7f6a3e-1f0e-4c49-9a4e-2d3d6f0a0002" {
		t.Errorf("seed conditional reference: %s", got)
	}
	if !strings.HasPrefix(b.Get("entry.0.fullUrl").Str, base+"/Patient/") || !strings.HasPrefix(b.Get(`link.#(relation=="self").url`).Str, base+"/Patient?") {
		t.Errorf("links do not point at the run: %s", b.Raw)
	}
	patientID = b.Get("entry.0.resource.id").Str
	// A create, stamped with the run's clock.
	status, b = call(t, "POST", base+"/Appointment", token, `{"resourceType":"Appointment","status":"booked","start":"2026-03-12T10:00:00Z",
	  "participant":[{"actor":{"reference":"Patient/`+patientID+`"},"status":"accepted"}]}`)
	if status != 201 || b.Get("meta.lastUpdated").Str != "2026-03-01T09:00:00.000Z" || b.Get("id").Str != "assay-1" {
		t.Errorf("create: %d %s", status, b.Raw)
	}
	// A transaction: book the proposed slot, update the patient.
	status, b = call(t, "POST", base, token, `{"resourceType":"Bundle","type":"transaction","entry":[
	  {"resource":{"resourceType":"Appointment","id":"slot-1","status":"booked","start":"2026-03-10T09:00:00Z","end":"2026-03-10T09:30:00Z",
	    "participant":[{"actor":{"reference":"Patient?identifier=urn:mrn|MRN-1"},"status":"accepted"}]},
	   "request":{"method":"PUT","url":"Appointment/slot-1","ifMatch":"W/\"1\""}},
	  {"resource":{"resourceType":"Patient","identifier":[{"system":"urn:mrn","value":"MRN-1"}],"name":[{"family":"Hettinger","given":["Ashley"]}],"telecom":[{"system":"phone","value":"555-0100"}]},
	   "request":{"method":"PUT","url":"Patient?identifier=urn:mrn|MRN-1"}}]}`)
	if status != 200 || b.Get("entry.0.response.status").Str != "200 OK" || b.Get("entry.1.response.etag").Str != `W/"2"` {
		t.Errorf("transaction: %d %s", status, b.Raw)
	}
	// Bad input gets an OperationOutcome.
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "", `{"resourceType":"Bundle","type":"transaction","entry":[{"request":{"method":"GET","url":"Patient/nobody"}}]}`, 404},
		{"POST", "/Patient", `{"resourceType":"Patient","meta":3}`, 400},
		{"GET", "/Patient?colour=blue", "", 400},
	} {
		if status, b := call(t, c.method, base+c.path, token, c.body); status != c.status || b.Get("resourceType").Str != "OperationOutcome" {
			t.Errorf("%s %s: %d %s", c.method, c.path, status, b.Raw)
		}
	}
	return patientID
}

func TestServeFHIR(t *testing.T) {
	srv := startServe(t, serve.Options{})
	baseA, tokenA := newRun(t, srv, "a")
	baseB, tokenB := newRun(t, srv, "b")
	if baseA != srv.URL()+"/runs/a/fhir" {
		t.Errorf("endpoint %s", baseA)
	}
	patient := script(t, baseA, tokenA)
	// Run b does not see run a's writes.
	if status, b := call(t, "GET", baseB+"/Appointment/assay-1", tokenB, ""); status != 404 {
		t.Errorf("run b reads run a's appointment: %d %s", status, b.Raw)
	}
	if status, _ := call(t, "GET", baseA+"/Appointment", tokenB, ""); status != 401 {
		t.Errorf("run b's token on run a: %d", status)
	}
	script(t, baseB, tokenB)
	// The hosted platform's path serves the same store.
	if status, b := call(t, "GET", srv.URL()+"/v1/benchmark-runs/a/fhir/Appointment/assay-1", tokenA, ""); status != 200 || b.Get("status").Str != "booked" {
		t.Errorf("hosted path: %d %s", status, b.Raw)
	}
	// Events: one per request.
	status, ev := call(t, "GET", srv.URL()+"/runs/a/events?limit=1000", tokenA, "")
	var fhirEvents []gjson.Result
	for _, e := range ev.Get("data").Array() {
		if e.Get("type").Str == "fhir_request" {
			fhirEvents = append(fhirEvents, e)
		}
	}
	if status != 200 || len(fhirEvents) != 7 {
		t.Fatalf("%d fhir_request events: %s", len(fhirEvents), ev.Raw)
	}
	first := fhirEvents[0]
	if first.Get("sim").Str != "fhir" || first.Get("method").Str != "GET" || first.Get("path").Str != "/Patient" ||
		first.Get("query").Str != "identifier=urn:mrn|MRN-1" || first.Get("status").Int() != 200 {
		t.Errorf("first event: %s", first.Raw)
	}
	if tx := fhirEvents[2]; tx.Get("path").Str != "/" || tx.Get("method").Str != "POST" || tx.Get("status").Int() != 200 {
		t.Errorf("transaction event: %s", tx.Raw)
	}
	if e := fhirEvents[5]; e.Get("status").Int() != 400 || e.Get("query").Str != "colour=blue" {
		t.Errorf("the refused search's event: %s", e.Raw)
	}
	// The hosted path's request is recorded under the same path.
	if e := fhirEvents[6]; e.Get("path").Str != "/Appointment/assay-1" || e.Get("status").Int() != 200 {
		t.Errorf("the hosted path's event: %s", e.Raw)
	}
	// Complete both runs and judge run a's snapshot.
	var stores [2][]byte
	var snapshots [2]string
	for i, run := range []string{"a", "b"} {
		status, done := call(t, "POST", srv.URL()+"/runs/"+run+"/complete", srv.Token(), "")
		if status != 200 {
			t.Fatalf("complete %s: %d %s", run, status, done.Raw)
		}
		data, err := os.ReadFile(filepath.Join(done.Get("snapshot").Str, "fhir", "store.json"))
		if err != nil {
			t.Fatal(err)
		}
		stores[i], snapshots[i] = data, done.Get("snapshot").Str
	}
	if string(stores[0]) != string(stores[1]) {
		t.Errorf("two runs of the same requests wrote different stores:\n%s\n---\n%s", stores[0], stores[1])
	}
	criteria, err := assert.ParseCriteria([]byte(`[
	  {"label": "booked", "assertion": {"assert": "fhir-resource-state", "resource_type": "Appointment",
	    "search": {"patient": "Patient/` + patient + `", "date": "2026-03-10"}, "fields": [{"path": "status", "expected": "booked"}, {"path": "meta.versionId", "expected": "2"}]}},
	  {"label": "phone", "assertion": {"assert": "fhir-resource-state", "resource_type": "Patient",
	    "search": {"identifier": "urn:mrn|MRN-1"}, "fields": [{"path": "telecom.0.value", "expected": "555-0199"}]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load(snapshots[0], sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		t.Fatal(err)
	}
	if res.Criteria[0].Status != assert.StatusPassed || res.Criteria[1].Status != assert.StatusFailed {
		t.Errorf("criteria: %s %q; %s %q", res.Criteria[0].Status, res.Criteria[0].Details, res.Criteria[1].Status, res.Criteria[1].Details)
	}
}

// The run's live evidence: Run.Env reads the run's store as it is.
func TestRunEnv(t *testing.T) {
	srv := startServe(t, serve.Options{})
	base, token := newRun(t, srv, "live")
	call(t, "POST", base+"/Patient", token, `{"resourceType":"Patient","name":[{"family":"Live"}]}`)
	criteria, _ := assert.ParseCriteria([]byte(`[{"label": "live", "assertion": {"assert": "fhir-resource-state", "resource_type": "Patient", "search": {"family": "live"}}}]`))
	res, err := assert.Evaluate(context.Background(), criteria, srv.Run("live").Env())
	if err != nil || res.Criteria[0].Status != assert.StatusPassed {
		t.Errorf("%v %v", res, err)
	}
}

func TestBadSeed(t *testing.T) {
	for name, c := range map[string]struct {
		seed fstest.MapFS
		want string
	}{
		"not JSON":       {fstest.MapFS{"fhir/a.json": {Data: []byte(`{"resourceType":`)}}, "fhir/a.json"},
		"no type":        {fstest.MapFS{"fhir/ok.json": {Data: []byte(`{"resourceType":"Patient"}`)}, "fhir/z.json": {Data: []byte(`{"id":"x"}`)}}, "fhir/z.json"},
		"a dangling ref": {fstest.MapFS{"fhir/t.json": {Data: []byte(`{"resourceType":"Bundle","type":"transaction","entry":[{"resource":{"resourceType":"Observation","subject":{"reference":"Patient?identifier=x|y"}},"request":{"method":"POST","url":"Observation"}}]}`)}}, "fhir/t.json"},
		"a folder":       {fstest.MapFS{"fhir/d.json/x": {Data: []byte(`{}`)}}, "fhir/d.json"},
	} {
		_, err := fhirsim.New(c.seed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, c.want)
		}
		if _, err := serve.New(c.seed, serve.Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: serve.New: %v", name, err)
		}
	}
	var le *fhir.LoadError
	if _, err := fhirsim.New(fstest.MapFS{"fhir/a.json": {Data: []byte(`[`)}}); !errors.As(err, &le) {
		t.Errorf("a LoadError: %v", err)
	}
	var fe *check.FileError
	if _, err := fhirsim.New(fstest.MapFS{"fhir/d.json/x": {Data: []byte(`{}`)}}); !errors.As(err, &fe) {
		t.Errorf("a FileError: %v", err)
	}
	// No fhir/ folder: an empty store.
	if _, err := fhirsim.New(fstest.MapFS{"hl7/x.hl7": {Data: []byte("MSH")}}); err != nil {
		t.Errorf("no fhir/: %v", err)
	}
}

// The sandbox's bounds refuse writes with a 507 that names them: the
// memory budget of all runs, and the per-run cap; a body over 16 MiB is a
// 413.
func TestBounds(t *testing.T) {
	srv := startServe(t, serve.Options{MaxMemory: 4000})
	base, token := newRun(t, srv, "m")
	var status int
	var b gjson.Result
	for i := 0; i < 100; i++ {
		if status, b = call(t, "POST", base+"/Patient", token, `{"resourceType":"Patient","name":[{"family":"Budget"}]}`); status != 201 {
			break
		}
	}
	if status != 507 || !strings.Contains(b.Get("issue.0.diagnostics").Str, "--max-memory") {
		t.Errorf("past the memory budget: %d %s", status, b.Raw)
	}
	// A delete frees budget.
	if status, _ := call(t, "DELETE", base+"/Patient/assay-1", token, ""); status != 204 {
		t.Errorf("delete: %d", status)
	}

	srv = startServe(t, serve.Options{})
	base, token = newRun(t, srv, "big")
	big := `{"resourceType":"Basic","code":{"text":"` + strings.Repeat("x", 15<<20) + `"}}`
	for i := 0; i < 6; i++ {
		if status, b = call(t, "POST", base+"/Basic", token, big); status != 201 {
			break
		}
	}
	if status != 507 || !strings.Contains(b.Get("issue.0.diagnostics").Str, "MaxCurrentBytes") {
		t.Errorf("past the per-run cap: %d %.300s", status, b.Raw)
	}
	if status, b = call(t, "POST", base+"/Basic", token, big+strings.Repeat(" ", 2<<20)); status != 413 || b.Get("resourceType").Str != "OperationOutcome" {
		t.Errorf("a body over 16 MiB: %d %.300s", status, b.Raw)
	}
	if fhirsim.MaxRunBytes != 64<<20 {
		t.Errorf("MaxRunBytes %d", fhirsim.MaxRunBytes)
	}
}

// benchServe starts a sandbox whose seed holds n Patients beside the
// testdata seed, and a run on it.
func benchServe(b *testing.B, n int) (string, string) {
	dir := b.TempDir()
	os.CopyFS(dir, os.DirFS("testdata/seed"))
	var buf strings.Builder
	buf.WriteString(`{"resourceType":"Bundle","type":"collection","entry":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"resource":{"resourceType":"Patient","id":"p%d","gender":"female","name":[{"family":"Fam%d"}],"identifier":[{"system":"urn:mrn","value":"m%d"}]}}`, i, i%500, i)
	}
	buf.WriteString(`]}`)
	if err := os.WriteFile(filepath.Join(dir, "fhir", "4-patients.json"), []byte(buf.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	srv, err := serve.New(os.DirFS(dir), serve.Options{Out: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return newRun(b, srv, "bench")
}

// BenchmarkCreate: POST [base]/Patient through the sandbox over HTTP, on a
// seed of 10,000 Patients.
func BenchmarkCreate(b *testing.B) {
	base, token := benchServe(b, 10000)
	body := `{"resourceType":"Patient","gender":"male","name":[{"family":"Created","given":["Bench"]}],"identifier":[{"system":"urn:mrn","value":"new"}]}`
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if status, r := call(b, "POST", base+"/Patient", token, body); status != 201 {
			b.Fatalf("%d %s", status, r.Raw)
		}
	}
}

// BenchmarkSearch: GET [base]/Patient?identifier=... (a token search
// matching one of 10,000 Patients) through the sandbox over HTTP.
func BenchmarkSearch(b *testing.B) {
	base, token := benchServe(b, 10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if status, r := call(b, "GET", fmt.Sprintf("%s/Patient?identifier=urn:mrn|m%d", base, i%10000), token, ""); status != 200 || r.Get("total").Int() != 1 {
			b.Fatalf("%d %s", status, r.Raw)
		}
	}
}
