package portalsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/portal"
	"github.com/assaykit/assay/serve/internal/simfake"
)

// newFakeRun is a run of the testdata seed's payer, for tests that drive
// a runSim without the frame; the portal's login is provider/secret.
func newFakeRun(t testing.TB) *simfake.Run {
	p, err := payer.Parse(mustRead(t, "testdata/seed/payer/policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	return simfake.New(simfake.Options{ID: "f", Policy: p, User: "provider", Password: "secret"})
}

// newTestRun builds the portal of a fake run from the testdata seed.
func newTestRun(t testing.TB) (*runSim, *simfake.Run) {
	s, err := New(fstest.MapFS{StateFile: {Data: mustRead(t, "testdata/seed/portal/state.json")}})
	if err != nil {
		t.Fatal(err)
	}
	fr := newFakeRun(t)
	rs, err := s.NewRun(fr)
	if err != nil {
		t.Fatal(err)
	}
	return rs.(*runSim), fr
}

func mustRead(t testing.TB, name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkState fails unless the run's state is a JSON document that
// portal-state-match reads, holding the slug.
func checkState(t *testing.T, rs *runSim) {
	doc := rs.stateJSON()
	if !json.Valid(doc) {
		t.Fatalf("state is not JSON: %s", doc)
	}
	if _, err := portal.ParseState(doc); err != nil {
		t.Fatalf("state does not parse: %v", err)
	}
}

// FuzzSeed: no portal/state.json or portal/portal.json makes New panic, and
// a seed New takes gives runs whose state is a valid document.
func FuzzSeed(f *testing.F) {
	f.Add(mustRead(f, "testdata/seed/portal/state.json"), []byte(""))
	f.Add([]byte(`{"acme": {"a": {"k": {"x": 1}}, "attachments": {}}}`), []byte(`{"slug": "acme"}`))
	f.Add([]byte(`{"payer-portal": {"prior_auth_requests": {"A-1": {"patient_member_id": 5}}}}`), []byte(""))
	f.Add([]byte(`{"payer-portal": {"x": [{"a": [[[{"b": "\u0000"}]]]}]}}`), []byte(`{"slug": "payer-portal"}`))
	f.Fuzz(func(t *testing.T, state, config []byte) {
		seed := fstest.MapFS{StateFile: {Data: state}}
		if len(config) > 0 {
			seed[ConfigFile] = &fstest.MapFile{Data: config}
		}
		s, err := New(seed)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "portal/") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		rs, err := s.NewRun(newFakeRun(t))
		if err != nil {
			t.Fatal(err)
		}
		r := rs.(*runSim)
		r.store("A-1", upload{filename: "a.txt", data: []byte("a")})
		checkState(t, r)
	})
}

// FuzzAPI: no request to the REST API, whatever its path, query, body and
// content type, makes the portal panic or answer 5xx, and every answer is
// JSON; the state stays a valid document.
func FuzzAPI(f *testing.F) {
	f.Add("POST", "prior-auths", "application/json", `{"patient_member_id": "W123456789", "procedure_code": "73721", "units": 1}`)
	f.Add("POST", "prior-auths", "application/json", `{"patient_member_id": "W123456789", "procedure_code": "97110", "diagnosis_codes": ["A", "B"], "units": -1}`)
	f.Add("GET", "patients?member_id=W123456789&last_name=doe", "", "")
	f.Add("GET", "providers?npi=1234567893", "", "")
	f.Add("GET", "prior-auths?patient_member_id=W123456789", "", "")
	f.Add("POST", "prior-auths/PA-SEED-1/attachments", "application/json", `{"filename": "a/b\\c.pdf", "document_type": "x", "content_base64": "YWJj"}`)
	f.Add("POST", "prior-auths/PA-SEED-1/attachments", "multipart/form-data; boundary=B",
		"--B\r\nContent-Disposition: form-data; name=\"document_type\"\r\n\r\nnotes\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"n.txt\"\r\n\r\nhello\r\n--B--\r\n")
	f.Add("POST", "prior-auths/PA-SEED-1/attachments", "multipart/form-data", "--B--")
	f.Fuzz(func(t *testing.T, method, target, contentType, body string) {
		if !validMethod(method) {
			return
		}
		rs, _ := newTestRun(t)
		w := fuzzServe(t, rs, method, "/portal/api/"+target, contentType, body, nil)
		if w == nil {
			return
		}
		if w.Code != http.StatusPermanentRedirect && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %s: %d, not JSON: %s", method, target, w.Code, w.Body)
		}
		checkState(t, rs)
	})
}

// FuzzWeb: no form posted by a signed-in browser makes the portal panic
// or answer 5xx. "CSRF" in the body stands for the session's token.
func FuzzWeb(f *testing.F) {
	f.Add("POST", "prior-auths", "application/x-www-form-urlencoded", "csrf_token=CSRF&patient_member_id=W123456789&procedure_code=73721&units=2&diagnosis_codes=A1,+B2")
	f.Add("POST", "prior-auths", "application/x-www-form-urlencoded", "csrf_token=CSRF&patient_member_id=W123456789&procedure_code=73721&units=x&service_date=2026-13-40")
	f.Add("GET", "patients?last_name=DOE&birth_date=1984-03-12", "", "")
	f.Add("GET", "prior-auths/PA-SEED-1?uploaded=ATT-000001", "", "")
	f.Add("POST", "prior-auths/PA-SEED-1/attachments", "multipart/form-data; boundary=B",
		"--B\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\nCSRF\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"n.txt\"\r\n\r\nhello\r\n--B--\r\n")
	f.Add("POST", "login", "application/x-www-form-urlencoded", "username=provider&password=secret&next=prior-auths%2FPA-SEED-1")
	f.Add("POST", "logout", "application/x-www-form-urlencoded", "csrf_token=CSRF")
	f.Fuzz(func(t *testing.T, method, target, contentType, body string) {
		if !validMethod(method) {
			return
		}
		rs, _ := newTestRun(t)
		login := httptest.NewRequest("POST", "/portal/login", strings.NewReader(url.Values{"username": {"provider"}, "password": {"secret"}}.Encode()))
		login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		lw := httptest.NewRecorder()
		rs.ServeHTTP(lw, login)
		cookies := lw.Result().Cookies()
		if lw.Code != http.StatusSeeOther || len(cookies) != 1 {
			t.Fatalf("login: %d", lw.Code)
		}
		sess := rs.sessions[cookies[0].Value]
		fuzzServe(t, rs, method, "/portal/"+target, contentType, strings.ReplaceAll(body, "CSRF", sess.csrf), cookies[0])
		checkState(t, rs)
	})
}

// fuzzServe sends a request to the portal and fails the test on a 5xx;
// nil when the request cannot be made.
func fuzzServe(t *testing.T, rs *runSim, method, target, contentType, body string, cookie *http.Cookie) *httptest.ResponseRecorder {
	req, err := http.NewRequest(method, "http://x"+target, strings.NewReader(body))
	if err != nil {
		return nil
	}
	req.RequestURI = req.URL.RequestURI()
	if cookie != nil {
		req.AddCookie(cookie)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	rs.ServeHTTP(w, req)
	if w.Code >= 500 {
		t.Fatalf("%s %s: %d %s", method, target, w.Code, w.Body)
	}
	return w
}

func validMethod(m string) bool {
	return m != "" && !strings.ContainsAny(m, " \t\r\n()<>@,;:\\\"/[]?={}") && len(m) < 16
}

// TestAppendRows: the run's rows follow the seed's in the seed's form.
func TestAppendRows(t *testing.T) {
	own := []keyedRow{{"K1", []byte(`{"a":1}`)}, {"K2", []byte(`{"a":2}`)}}
	for _, tc := range []struct{ seed, want string }{
		{"", `[{"a":1},{"a":2}]`},
		{"[]", `[{"a":1},{"a":2}]`},
		{"{}", `{"K1":{"a":1},"K2":{"a":2}}`},
		{`[{"s":0}]`, `[{"s":0},{"a":1},{"a":2}]`},
		{`{"K0":{"s":0}}`, `{"K0":{"s":0},"K1":{"a":1},"K2":{"a":2}}`},
	} {
		var b bytes.Buffer
		appendRows(&b, []byte(tc.seed), own)
		if b.String() != tc.want {
			t.Errorf("seed %s: %s, want %s", tc.seed, b.String(), tc.want)
		}
		b.Reset()
		appendRows(&b, []byte(tc.seed), nil)
		if want := tc.seed; b.String() != want && !(want == "" && b.String() == "[]") {
			t.Errorf("seed %s alone: %s", tc.seed, b.String())
		}
	}
}

// TestMemoryBudget: an upload past the sandbox's memory budget is 507 and
// gives back what it held; a kept upload holds its size.
func TestMemoryBudget(t *testing.T) {
	rs, fr := newTestRun(t)
	fr.SetBudget(1 << 10)
	post := func(n int) int {
		body := fmt.Sprintf(`{"filename": "a.bin", "content_base64": "%s"}`, strings.Repeat("QUFB", n/3))
		req := httptest.NewRequest("POST", "/portal/api/prior-auths/PA-SEED-1/attachments", strings.NewReader(body))
		w := httptest.NewRecorder()
		rs.ServeHTTP(w, req)
		return w.Code
	}
	if code := post(300); code != 201 {
		t.Fatalf("a small upload: %d", code)
	}
	if fr.Used() != 300 {
		t.Errorf("holds %d bytes after a 300-byte upload", fr.Used())
	}
	if code := post(3000); code != http.StatusInsufficientStorage {
		t.Errorf("past the budget: %d, want 507", code)
	}
	if fr.Used() != 300 {
		t.Errorf("holds %d bytes after a refused upload, want 300", fr.Used())
	}
}
