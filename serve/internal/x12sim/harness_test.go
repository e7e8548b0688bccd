package x12sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
	"github.com/assaykit/assay/x12"
)

// start is the run clock every test starts at; the sandbox's real-time
// clock stands still, so times in answers and events are exact.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// frame is a served sandbox seeded from testdata/seed unless another seed
// is given.
type frame struct {
	t   testing.TB
	srv *serve.Server
}

func newFrame(t testing.TB, seed fs.FS) *frame {
	t.Helper()
	if seed == nil {
		seed = check.DirFS("testdata/seed")
	}
	return &frame{t: t, srv: servetest.Start(t, seed, serve.Options{Clock: start, Now: func() time.Time { return start }})}
}

// testRun is one run, as an agent sees it.
type testRun struct {
	f         *frame
	run       *serve.Run
	id, token string
	endpoints map[string]string
}

func (f *frame) newRun(id string) *testRun {
	f.t.Helper()
	r, err := f.srv.NewRun(context.Background(), serve.RunOptions{ID: id})
	if err != nil {
		f.t.Fatal(err)
	}
	return &testRun{f: f, run: r, id: id, token: r.Token(), endpoints: r.Endpoints()}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func do(t testing.TB, method, url, token, contentType string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, data}
}

// post sends raw X12 to the run's x12 endpoint.
func (tr *testRun) post(x string) reply {
	tr.f.t.Helper()
	return do(tr.f.t, "POST", tr.endpoints["x12"], tr.token, "application/edi-x12", []byte(x))
}

// answer posts x and parses the 200 answer, which must have no findings.
func (tr *testRun) answer(x string) *x12.Interchange {
	tr.f.t.Helper()
	r := tr.post(x)
	if r.status != 200 || r.header.Get("Content-Type") != "application/edi-x12" {
		tr.f.t.Fatalf("POST x12: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	ic, err := x12.Parse(r.body, x12.Strict())
	if err != nil {
		tr.f.t.Fatalf("the answer has findings: %v\n%s", err, r.body)
	}
	return ic
}

// events returns the run's x12_exchange events.
func (tr *testRun) events() []map[string]any {
	tr.f.t.Helper()
	r := do(tr.f.t, "GET", tr.f.srv.URL()+"/runs/"+tr.id+"/events?limit=1000", tr.f.srv.Token(), "", nil)
	var page struct{ Data []map[string]any }
	if err := json.Unmarshal(r.body, &page); err != nil {
		tr.f.t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range page.Data {
		if e["type"] == "x12_exchange" {
			out = append(out, e)
		}
	}
	return out
}

// interchange writes a request with the standard delimiters: segs are
// written as X12 with * between elements, : between components and ^
// between repetitions; the envelope and counts are the Writer's.
func interchange(t testing.TB, gs01, code, version string, segs ...string) string {
	t.Helper()
	w := x12.NewWriter(x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}, x12.Header{
		Sender: "CLINIC01", Receiver: "ACME01", Time: start, Control: 101, Usage: "T",
	})
	w.Group(x12.Group{Code: gs01, Sender: "CLINIC01", Receiver: "ACME01", Time: start, Control: 101, Version: version})
	w.Set(code, "0001")
	for _, s := range segs {
		parts := strings.Split(s, "*")
		elems := make([]x12.Element, len(parts)-1)
		for i, p := range parts[1:] {
			for _, rep := range strings.Split(p, "^") {
				elems[i] = append(elems[i], strings.Split(rep, ":"))
			}
		}
		w.SegmentOf(parts[0], elems...)
	}
	data, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// get reads path in x: its values joined by "|", "<nil>" when none.
func get(t testing.TB, x *x12.Interchange, path string) string {
	t.Helper()
	v, err := x.Get(path)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return "<nil>"
	}
	return strings.Join(v, "|")
}

// checkPaths reads every path of want in x.
func checkPaths(t testing.TB, x *x12.Interchange, want map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if got := get(t, x, k); got != want[k] {
			t.Errorf("%s = %q, want %q", k, got, want[k])
		}
	}
}

// complete completes tr's run and returns its snapshot folder.
func (f *frame) complete(tr *testRun) string {
	f.t.Helper()
	snap, err := tr.run.Complete(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return snap
}
