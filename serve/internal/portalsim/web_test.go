package portalsim_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// browser is a plain HTTP client with a cookie jar that does not follow
// redirects, so each answer can be checked.
type browser struct {
	t *testing.T
	c *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t, &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) get(u string) reply {
	b.t.Helper()
	return do(b.t, b.c, "GET", u, "", "", nil)
}

func (b *browser) post(u string, form url.Values) reply {
	b.t.Helper()
	return do(b.t, b.c, "POST", u, "", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// login signs in with the run's credentials and returns the session's CSRF
// token.
func (b *browser) login(tr *testRun) string {
	b.t.Helper()
	r := b.post(tr.portal+"login", url.Values{"username": {tr.username}, "password": {tr.password}})
	if r.status != 303 {
		b.t.Fatalf("login: %d %s", r.status, r.body)
	}
	r = b.get(tr.portal)
	m := csrfInput.FindStringSubmatch(r.body)
	if r.status != 200 || m == nil {
		b.t.Fatalf("after login: %d %s", r.status, r.body)
	}
	return m[1]
}

func TestWebFlow(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("w1")
	b := newBrowser(t)

	// The portal's root without a session is the login form.
	r := b.get(tr.portal)
	if r.status != 200 || !strings.Contains(r.body, `<label for="password">`) {
		t.Fatalf("login page: %d %s", r.status, r.body)
	}
	// A wrong password: 401, the form again with the error by the field,
	// and no secret in the page.
	r = b.post(tr.portal+"login", url.Values{"username": {tr.username}, "password": {"guess"}})
	if r.status != 401 || !strings.Contains(r.body, `id="password-error"`) || strings.Contains(r.body, tr.password) {
		t.Errorf("wrong password: %d %s", r.status, r.body)
	}
	// Signing in sets the session cookie: HttpOnly, SameSite=Lax, scoped to
	// the run's portal.
	r = b.post(tr.portal+"login", url.Values{"username": {tr.username}, "password": {tr.password}})
	if r.status != 303 || r.header.Get("Location") != "/runs/w1/portal/" {
		t.Fatalf("login: %d %v", r.status, r.header)
	}
	sc := r.header.Get("Set-Cookie")
	for _, want := range []string{"assay_portal_session=", "Path=/runs/w1/portal/", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %s", sc, want)
		}
	}
	r = b.get(tr.portal)
	csrf := csrfInput.FindStringSubmatch(r.body)[1]
	if !strings.Contains(r.body, "<h1>Find a patient</h1>") || r.header.Get("Content-Security-Policy") == "" {
		t.Errorf("start page: %s", r.body)
	}
	// Search.
	r = b.get(tr.portal + "patients?last_name=doe&birth_date=1984-03-12")
	if r.status != 200 || !strings.Contains(r.body, "W123456789") || !strings.Contains(r.body, "Acme Gold HMO") {
		t.Errorf("search: %d %s", r.status, r.body)
	}
	r = b.get(tr.portal + "patients?birth_date=12/03/1984")
	if r.status != 400 || !strings.Contains(r.body, `id="birth_date-error"`) {
		t.Errorf("search with a bad date: %d %s", r.status, r.body)
	}
	// A form with problems comes back with each error by its field and the
	// values kept.
	form := url.Values{"csrf_token": {csrf}, "patient_member_id": {"W000"}, "procedure_code": {"73721"}, "units": {"1"}}
	r = b.post(tr.portal+"prior-auths", form)
	if r.status != 400 || !strings.Contains(r.body, `id="patient_member_id-error"`) || !strings.Contains(r.body, `value="W000"`) {
		t.Errorf("unknown member: %d %s", r.status, r.body)
	}
	form.Set("patient_member_id", "W123456789")
	form.Set("units", "two")
	if r = b.post(tr.portal+"prior-auths", form); r.status != 400 || !strings.Contains(r.body, `id="units-error"`) {
		t.Errorf("units: %d %s", r.status, r.body)
	}
	// Submitted: to the status page.
	form.Set("units", "1")
	form.Set("diagnosis_codes", "M25.561, S83.2")
	r = b.post(tr.portal+"prior-auths", form)
	if r.status != 303 || r.header.Get("Location") != "/runs/w1/portal/prior-auths/PA-000001?submitted=1" {
		t.Fatalf("submit: %d %v %s", r.status, r.header, r.body)
	}
	r = b.get(tr.portal + "prior-auths/PA-000001?submitted=1")
	for _, want := range []string{`id="status">Approved<`, `id="certification_number">AUTH000001<`, "M25.561, S83.2", "submitted"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("status page lacks %s:\n%s", want, r.body)
		}
	}
	row := tr.api("GET", "/prior-auths/PA-000001", "")
	if row.json("channel").Str != "web" || row.json("diagnosis_codes.#").Int() != 2 {
		t.Errorf("the web's row: %s", row.body)
	}
	// Upload.
	ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}, {"document_type", "clinical_notes"}}, "notes.txt", []byte("knee pain 6 weeks"))
	r = do(t, b.c, "POST", tr.portal+"prior-auths/PA-000001/attachments", "", ct, body)
	if r.status != 303 || !strings.HasSuffix(r.header.Get("Location"), "prior-auths/PA-000001?uploaded=ATT-000001") {
		t.Fatalf("upload: %d %v %s", r.status, r.header, r.body)
	}
	if r = b.get(tr.portal + "prior-auths/PA-000001?uploaded=ATT-000001"); !strings.Contains(r.body, "notes.txt was uploaded as ATT-000001") {
		t.Errorf("after upload: %s", r.body)
	}
	// The list.
	if r = b.get(tr.portal + "prior-auths"); !strings.Contains(r.body, "PA-SEED-1") || !strings.Contains(r.body, "PA-000001") {
		t.Errorf("requests: %s", r.body)
	}
	// Sign out: the cookie is cleared and the old session is gone.
	cookie := b.c.Jar.Cookies(mustURL(t, tr.portal))
	r = b.post(tr.portal+"logout", url.Values{"csrf_token": {csrf}})
	if r.status != 303 || !strings.Contains(r.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Errorf("logout: %d %v", r.status, r.header)
	}
	stale := newBrowser(t)
	stale.c.Jar.SetCookies(mustURL(t, tr.portal), cookie)
	if r = stale.get(tr.portal + "prior-auths"); r.status != 401 {
		t.Errorf("a session after logout: %d", r.status)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestWebBadInput: forms without a session, with another session's token,
// from another run, uploads without a file or over the cap: each a clear
// page and status, an event, and nothing stored.
func TestWebBadInput(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("b1")
	other := sb.newRun("b2")
	b := newBrowser(t)
	csrf := b.login(tr)
	b2 := newBrowser(t)
	csrf2 := b2.login(tr) // a second session of the same run
	submit := url.Values{"patient_member_id": {"W123456789"}, "procedure_code": {"73721"}}
	with := func(v url.Values, k, val string) url.Values {
		out := url.Values{}
		for kk, vv := range v {
			out[kk] = vv
		}
		out.Set(k, val)
		return out
	}
	cookie := b.c.Jar.Cookies(mustURL(t, tr.portal))[0]
	tests := []struct {
		name   string
		send   func() reply
		status int
		body   string // the page says
		event  string // action/status of the event recorded, in run
		run    *testRun
	}{
		{"a form post without a session", func() reply { return newBrowser(t).post(tr.portal+"prior-auths", with(submit, "csrf_token", csrf)) },
			401, `name="password"`, "submit/401", tr},
		{"a page without a session", func() reply { return newBrowser(t).get(tr.portal + "prior-auths/PA-SEED-1") },
			401, `name="next" value="prior-auths/PA-SEED-1"`, "view/401", tr},
		{"a form post without a token", func() reply { return b.post(tr.portal+"prior-auths", submit) },
			403, "This form has expired", "submit/403", tr},
		{"another session's token", func() reply { return b.post(tr.portal+"prior-auths", with(submit, "csrf_token", csrf2)) },
			403, "This form has expired", "submit/403", tr},
		{"this run's cookie on another run's portal", func() reply {
			req, _ := http.NewRequest("POST", other.portal+"prior-auths", strings.NewReader(with(submit, "csrf_token", csrf).Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: cookie.Name, Value: cookie.Value})
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			return reply{resp.StatusCode, resp.Header, string(data)}
		}, 401, `name="password"`, "submit/401", other},
		{"an upload without a file", func() reply {
			ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}, {"document_type", "other"}}, "", nil)
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-SEED-1/attachments", "", ct, body)
		}, 400, `id="file-error"`, "attach/400", tr},
		{"an upload with no file chosen", func() reply {
			ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}}, " ", nil)
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-SEED-1/attachments", "", ct, body)
		}, 400, "Choose a file", "attach/400", tr},
		{"an upload with another session's token", func() reply {
			ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf2}}, "a.txt", []byte("a"))
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-SEED-1/attachments", "", ct, body)
		}, 403, "This form has expired", "attach/403", tr},
		{"an upload over 16 MiB", func() reply {
			ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}}, "big.bin", make([]byte, 16<<20+1))
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-SEED-1/attachments", "", ct, body)
		}, 413, `id="file-error"`, "attach/413", tr},
		{"an upload as JSON from the web", func() reply {
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-SEED-1/attachments", "", "application/json", strings.NewReader(`{}`))
		}, 400, `id="file-error"`, "attach/400", tr},
		{"an upload to no request", func() reply {
			ct, body := multipartBody(t, [][2]string{{"csrf_token", csrf}}, "a.txt", []byte("a"))
			return do(t, b.c, "POST", tr.portal+"prior-auths/PA-404/attachments", "", ct, body)
		}, 404, "There is no prior authorization request PA-404", "attach/404", tr},
		{"a status page of no request", func() reply { return b.get(tr.portal + "prior-auths/PA-404") },
			404, "There is no prior authorization request PA-404", "view/404", tr},
		{"no such page", func() reply { return b.get(tr.portal + "claims") }, 404, "Page not found", "search/404", tr},
		{"a post to a page that takes none", func() reply { return b.post(tr.portal+"patients", url.Values{"csrf_token": {csrf}}) },
			405, "Not allowed", "search/405", tr},
		{"logout with another session's token", func() reply { return b.post(tr.portal+"logout", url.Values{"csrf_token": {csrf2}}) },
			403, "This form has expired", "login/403", tr},
		{"a login form over 1 MiB", func() reply {
			return newBrowser(t).post(tr.portal+"login", url.Values{"username": {strings.Repeat("u", 1<<20)}})
		}, 413, "The form could not be read", "login/413", tr},
	}
	for _, tc := range tests {
		before := len(tc.run.events())
		r := tc.send()
		if r.status != tc.status || !strings.Contains(r.body, tc.body) {
			t.Errorf("%s: %d, want %d with %q:\n%s", tc.name, r.status, tc.status, tc.body, r.body)
		}
		evs := tc.run.events()
		if len(evs) != before+1 {
			t.Errorf("%s: %d new events, want 1", tc.name, len(evs)-before)
			continue
		}
		e := evs[len(evs)-1]
		if got := e.Get("action").Str + "/" + e.Get("status").Raw; got != tc.event || e.Get("channel").Str != "web" || e.Get("error").Str == "" {
			t.Errorf("%s: event %s, want %s with channel web and an error", tc.name, e.Raw, tc.event)
		}
	}
	// Nothing was stored by any of them.
	for _, run := range []*testRun{tr, other} {
		if r := run.api("GET", "/prior-auths", ""); r.json("data.#").Int() != 1 {
			t.Errorf("run %s holds %s", run.id, r.body)
		}
		if r := run.api("GET", "/prior-auths/PA-SEED-1/attachments", ""); r.json("data.#").Int() != 0 {
			t.Errorf("run %s holds attachments %s", run.id, r.body)
		}
	}
	// The session still works after all that; fields left empty read null,
	// as through the API.
	if r := b.post(tr.portal+"prior-auths", with(with(submit, "csrf_token", csrf), "diagnosis_codes", " , ")); r.status != 303 {
		t.Errorf("a good post after the bad ones: %d %s", r.status, r.body)
	}
	row := tr.api("GET", "/prior-auths/PA-000001", "")
	for _, k := range []string{"diagnosis_codes", "provider_npi", "service_date", "units"} {
		if v := row.json(k); v.Type.String() != "Null" {
			t.Errorf("%s of a web request without it: %s", k, v.Raw)
		}
	}
}

// TestWebNext: a page asked for without a session comes back after login,
// and the login form never sends a browser to another site.
func TestWebNext(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("n1")
	for _, tc := range []struct{ next, location string }{
		{"prior-auths/PA-SEED-1", "/runs/n1/portal/prior-auths/PA-SEED-1"},
		{"patients?member_id=W123456789", "/runs/n1/portal/patients?member_id=W123456789"},
		{"//evil.example/x", "/runs/n1/portal/"},
		{"/elsewhere", "/runs/n1/portal/"},
		{"https://evil.example/", "/runs/n1/portal/"},
	} {
		b := newBrowser(t)
		r := b.post(tr.portal+"login", url.Values{"username": {tr.username}, "password": {tr.password}, "next": {tc.next}})
		if r.status != 303 || r.header.Get("Location") != tc.location {
			t.Errorf("next %q: %d to %q, want %q", tc.next, r.status, r.header.Get("Location"), tc.location)
		}
	}
}

// TestWebAlias: through the hosted platform's path the pages link and
// scope their cookie to that path.
func TestWebAlias(t *testing.T) {
	sb := newSandbox(t, nil)
	tr := sb.newRun("al")
	b := newBrowser(t)
	base := sb.srv.URL() + "/v1/benchmark-runs/al/portal/"
	r := b.post(base+"login", url.Values{"username": {tr.username}, "password": {tr.password}})
	if r.status != 303 || r.header.Get("Location") != "/v1/benchmark-runs/al/portal/" || !strings.Contains(r.header.Get("Set-Cookie"), "Path=/v1/benchmark-runs/al/portal/") {
		t.Fatalf("alias login: %d %v", r.status, r.header)
	}
	if r = b.get(base); r.status != 200 || !strings.Contains(r.body, `action="/v1/benchmark-runs/al/portal/patients"`) {
		t.Errorf("alias page: %d %s", r.status, r.body)
	}
	// BASE/portal without the slash goes to the portal.
	if r = b.get(strings.TrimSuffix(tr.portal, "/")); r.status != 308 || r.header.Get("Location") != "/runs/al/portal/" {
		t.Errorf("BASE/portal: %d %v", r.status, r.header)
	}
}
