package portalsim_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
	"github.com/tidwall/gjson"
)

// start is the run clock every test starts at; the sandbox's real-time
// clock stands still, so times in rows and events are exact.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// frame is a served sandbox with the portal, seeded from testdata/seed
// unless another seed is given.
type frame struct {
	t   testing.TB
	srv *serve.Server
}

func newSandbox(t testing.TB, seed fs.FS) *frame {
	t.Helper()
	if seed == nil {
		seed = check.DirFS("testdata/seed")
	}
	srv := servetest.Start(t, seed, serve.Options{Clock: start, Now: func() time.Time { return start }})
	return &frame{t: t, srv: srv}
}

// testRun is one run of the sandbox, as an agent sees it.
type testRun struct {
	sb                 *frame
	run                *serve.Run
	id, token          string
	portal, apiBase    string // endpoints
	username, password string
}

func (sb *frame) newRun(id string) *testRun {
	sb.t.Helper()
	r, err := sb.srv.NewRun(context.Background(), serve.RunOptions{ID: id})
	if err != nil {
		sb.t.Fatal(err)
	}
	obj, _ := json.Marshal(r.Object())
	o := gjson.ParseBytes(obj)
	return &testRun{
		sb: sb, run: r, id: id, token: r.Token(),
		portal: o.Get("endpoints.portal").Str, apiBase: o.Get("endpoints.portal_api").Str,
		username: o.Get("credentials.portal.username").Str, password: o.Get("credentials.portal.password").Str,
	}
}

// reply is an HTTP answer.
type reply struct {
	status int
	header http.Header
	body   string
}

func (r reply) json(path string) gjson.Result { return gjson.Get(r.body, path) }

// do sends a request; token "" sends none.
func do(t testing.TB, c *http.Client, method, url, token, contentType string, body io.Reader) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(data)}
}

// api calls the run's portal API with its token.
func (tr *testRun) api(method, path, body string) reply {
	tr.sb.t.Helper()
	var r io.Reader
	ct := ""
	if body != "" {
		r, ct = strings.NewReader(body), "application/json"
	}
	return do(tr.sb.t, nil, method, tr.apiURL(path), tr.token, ct, r)
}

func (tr *testRun) apiURL(path string) string { return tr.apiBase + path }

// advance moves the run's clock with the operator token.
func (tr *testRun) advance(d string) {
	tr.sb.t.Helper()
	r := do(tr.sb.t, nil, "POST", tr.sb.srv.URL()+"/runs/"+tr.id+"/clock", tr.sb.srv.Token(), "application/json", strings.NewReader(`{"advance":"`+d+`"}`))
	if r.status != 200 {
		tr.sb.t.Fatalf("clock: %d %s", r.status, r.body)
	}
}

// events returns the run's portal_action events.
func (tr *testRun) events() []gjson.Result {
	tr.sb.t.Helper()
	var out []gjson.Result
	after := 0
	for {
		r := do(tr.sb.t, nil, "GET", tr.sb.srv.URL()+"/runs/"+tr.id+"/events?limit=1000&after="+itoa(after), tr.sb.srv.Token(), "", nil)
		for _, e := range r.json("data").Array() {
			if e.Get("type").Str == "portal_action" {
				out = append(out, e)
			}
		}
		next := r.json("next")
		if !next.Exists() || next.Type == gjson.Null {
			return out
		}
		after = int(next.Int())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// multipartBody builds a multipart form: fields in order, a file part
// when filename is not "".
func multipartBody(t testing.TB, fields [][2]string, filename string, content []byte) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	if filename != "" {
		fw, err := mw.CreateFormFile("file", filename)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	mw.Close()
	return mw.FormDataContentType(), &b
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// readFile reads a snapshot's file.
func readFile(t testing.TB, snap, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(snap, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
