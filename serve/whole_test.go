package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
)

// With --listen 0.0.0.0 and --public-url, the addresses of the run's own
// listeners (MLLP, SFTP) carry the public URL's host, as its HTTP
// endpoints do, with the port each is bound to: the bound address ([::])
// is no address to reach.
func TestPublicAddresses(t *testing.T) {
	srv, err := serve.New(fstest.MapFS{}, serve.Options{Out: t.TempDir(), Listen: "0.0.0.0", PublicURL: "http://example.test:1/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "pub"})
	if err != nil {
		t.Fatal(err)
	}
	eps := run.Endpoints()
	if eps["fhir"] != "http://example.test:1/runs/pub/fhir" {
		t.Errorf("fhir = %q", eps["fhir"])
	}
	// Each address names example.test and a port that is listening here.
	check := func(name, addr string) {
		t.Helper()
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host != "example.test" {
			t.Errorf("%s = %q, want example.test:PORT", name, addr)
			return
		}
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			t.Errorf("%s: port %s does not answer: %v", name, port, err)
			return
		}
		c.Close()
	}
	check("hl7_mllp", eps["hl7_mllp"])
	check("ready line's sftp", srv.SFTPAddr())
	if want := "sftp://pub@" + srv.SFTPAddr() + "/"; eps["sftp"] != want {
		t.Errorf("sftp = %q, want %q", eps["sftp"], want)
	}
}

// countingFS counts the files opened from its FS.
type countingFS struct {
	fs.FS
	opens atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.opens.Add(1)
	return c.FS.Open(name)
}

// A run starts from the seed New parsed: NewRun opens no file of the seed,
// and on a seed of 10,000 FHIR resources allocates less than 64 KiB (no
// deep copy), as issue 22 and DESIGN 13.3 require.
func TestNewRunSharesTheSeed(t *testing.T) {
	seed := &countingFS{FS: os.DirFS(benchSeed(t, 10000))}
	srv, err := serve.New(seed, serve.Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if seed.opens.Load() == 0 {
		t.Fatal("New opened no file of the seed")
	}
	opened := seed.opens.Load()
	ctx := context.Background()
	// Warm up (the first run may fill lazily built shared state), then
	// measure runs created one after another.
	if _, err := srv.NewRun(ctx, serve.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	const runs = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := srv.NewRun(ctx, serve.RunOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := seed.opens.Load() - opened; n != 0 {
		t.Errorf("NewRun opened %d files of the seed, want 0: a run must not re-read the seed", n)
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per >= 64<<10 {
		t.Errorf("NewRun allocated %d bytes a run on a 10,000-resource seed, want under 64 KiB: is the seed copied?", per)
	}
}

// With a clock (--clock), the seed's resources are stamped with it, not
// with the real time the server started: a search by _lastUpdated on the
// clock's timeline finds them, and a run's update is later than the seed's
// version. A lastUpdated the seed gives is kept.
func TestSeedLoadedAtTheClock(t *testing.T) {
	seed := fstest.MapFS{"fhir/p.json": {Data: []byte(`{"resourceType":"Bundle","type":"collection","entry":[
		{"resource":{"resourceType":"Patient","id":"p1","name":[{"family":"Doe"}]}},
		{"resource":{"resourceType":"Patient","id":"p2","meta":{"lastUpdated":"2019-05-05T00:00:00Z"}}}]}`)}}
	srv := servetest.Start(t, seed, serve.Options{Clock: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	fhirBase := run.Endpoints()["fhir"]
	get := func(method, url, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+run.Token())
		req.Header.Set("Content-Type", "application/fhir+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	lastUpdated := func(res map[string]any) string {
		meta, _ := res["meta"].(map[string]any)
		s, _ := meta["lastUpdated"].(string)
		return s
	}
	if code, b := get("GET", fhirBase+"/Patient?_lastUpdated=le2020-06-01", ""); code != 200 || b["total"] != 2.0 {
		t.Errorf("_lastUpdated=le2020-06-01: %d total %v, want both seed patients", code, b["total"])
	}
	_, v1 := get("GET", fhirBase+"/Patient/p1", "")
	if got := lastUpdated(v1); !strings.HasPrefix(got, "2020-01-01T00:00:00") {
		t.Errorf("p1 lastUpdated %q, want the clock's 2020-01-01T00:00:00", got)
	}
	if _, p2 := get("GET", fhirBase+"/Patient/p2", ""); lastUpdated(p2) != "2019-05-05T00:00:00Z" {
		t.Errorf("p2 lastUpdated %q, want the seed's own", lastUpdated(p2))
	}
	req, _ := http.NewRequest("POST", srv.URL()+"/runs/c/clock", strings.NewReader(`{"advance":"1h"}`))
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("clock: %v %v", resp, err)
	}
	code, v2 := get("PUT", fhirBase+"/Patient/p1", `{"resourceType":"Patient","id":"p1","name":[{"family":"Roe"}]}`)
	t1, _ := time.Parse(time.RFC3339Nano, lastUpdated(v1))
	t2, _ := time.Parse(time.RFC3339Nano, lastUpdated(v2))
	if code != 200 || !t2.After(t1) {
		t.Errorf("update: %d, lastUpdated %s after version 1's %s?", code, lastUpdated(v2), lastUpdated(v1))
	}
}

// The hosted platform's run-scoped paths answer as their BASE
// counterparts, X-Assay-Sandbox: 1 included; a message posted to the
// hl7/outbound alias is captured by the run.
func TestHostedAliases(t *testing.T) {
	srv := servetest.Start(t, fstest.MapFS{"sftp/inbox/a.txt": {Data: []byte("in the inbox")}}, serve.Options{})
	run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "al"})
	if err != nil {
		t.Fatal(err)
	}
	alias := srv.URL() + "/v1/benchmark-runs/al"
	for _, tc := range []struct {
		method, path, contentType, body string
		code                            int
		want                            string
	}{
		{"GET", "/fhir/Patient", "", "", 200, `"resourceType":"Bundle"`},
		{"GET", "/hl7/inbox", "", "", 200, `"data":[]`},
		{"POST", "/hl7/outbound", "application/json", `{"payload":"MSH|^~\\&|A|B|C|D|20260101000000||ORM^O01|AL-1|P|2.5.1\rPID|1||m1\r"}`, 200, `MSA|AA|AL-1`},
		{"PUT", "/files/out/b.txt", "", "dropped", 201, `"path":"out/b.txt"`},
		{"GET", "/files/inbox", "", "", 200, `"path":"inbox/a.txt"`},
		{"GET", "/files/out/b.txt", "", "", 200, "dropped"},
		// The seed has no payer policy: the portal says so, through the alias.
		{"GET", "/portal/", "", "", 503, "The portal is not available"},
		{"GET", "/notes", "", "", 404, "NOT_FOUND"},
	} {
		req, _ := http.NewRequest(tc.method, alias+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+run.Token())
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		io.Copy(&b, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s %s: %d %.300s, want %d %q", tc.method, tc.path, resp.StatusCode, b.String(), tc.code, tc.want)
		}
		if resp.Header.Get("X-Assay-Sandbox") != "1" {
			t.Errorf("%s %s: no X-Assay-Sandbox: 1", tc.method, tc.path)
		}
	}
	snap, err := run.Complete(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(snap, "hl7", "0001.hl7")); err != nil || !strings.Contains(string(data), "|AL-1|") {
		t.Errorf("the message posted to the alias was not captured: %q %v", data, err)
	}
}
