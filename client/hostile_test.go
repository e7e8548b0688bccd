package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/origin"
)

// The tests in this file run the client against hostile servers: ones that
// redirect elsewhere, echo the key back in headers, status lines, bodies
// and cursors, and page forever.

func TestOriginOf(t *testing.T) {
	same := [][2]string{
		{"https://api.example.com/v1", "https://api.example.com:443/other"},
		{"https://API.Example.com", "https://api.example.com"},
		{"http://api.example.com", "http://api.example.com:80"},
		{"https://api.example.com.", "https://api.example.com"},
		{"http://[::1]:8080", "http://[0:0::1]:8080"},
	}
	different := [][2]string{
		{"https://api.example.com", "http://api.example.com"},        // https -> http
		{"http://api.example.com", "https://api.example.com"},        // http -> https
		{"https://api.example.com", "https://api.example.com:8443"},  // another port
		{"http://api.example.com:80", "http://api.example.com:8080"}, // another port
		{"https://api.example.com", "https://evil.api.example.com"},  // a subdomain
		{"https://api.example.com", "https://example.com"},           // a parent
		{"http://127.0.0.1:80", "http://localhost:80"},               // another name
		{"https://api.example.com:443", "http://api.example.com:443"},
	}
	parse := func(s string) origin.Origin {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return origin.Of(u)
	}
	for _, p := range same {
		if parse(p[0]) != parse(p[1]) {
			t.Errorf("%s and %s: different origins %v %v, want one", p[0], p[1], parse(p[0]), parse(p[1]))
		}
	}
	for _, p := range different {
		if parse(p[0]) == parse(p[1]) {
			t.Errorf("%s and %s: one origin %v, want two", p[0], p[1], parse(p[0]))
		}
	}
}

// authRecorder is a server that records the Authorization header of each
// request it answers with a criterion.
type authRecorder struct {
	mu   sync.Mutex
	seen []string // "PATH AUTH"
}

func (a *authRecorder) handler(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
	a.mu.Unlock()
	fmt.Fprint(w, `{"id":"c1","label":"x","assertion":{"assert":"ran","ran":"x"}}`)
}

func (a *authRecorder) got() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

// TestAuthorizationOnlyToTheOrigin redirects a call to another port of the
// same host, from https to http and from http to https, to another host
// name, within the origin, and back to the origin, and checks where the key
// went. net/http alone compares host names only, so without the client's
// guard the key reaches another port and plain http.
func TestAuthorizationOnlyToTheOrigin(t *testing.T) {
	bearer := "Bearer " + testKey
	type hop = func(base, plain, secure string) string
	tests := []struct {
		name string
		tls  bool // the API is served over https
		// to is where the API redirects /v1/criteria/c1.
		to hop
		// wantAPI and wantOther are the Authorization headers the API's
		// server and the other server saw, in order.
		wantAPI, wantOther []string
	}{
		{
			name:    "within the origin",
			to:      func(base, _, _ string) string { return base + "/v1/criteria/moved" },
			wantAPI: []string{"/v1/criteria/c1 " + bearer, "/v1/criteria/moved " + bearer},
		},
		{
			name:      "another port of the same host",
			to:        func(_, plain, _ string) string { return plain + "/steal" },
			wantAPI:   []string{"/v1/criteria/c1 " + bearer},
			wantOther: []string{"/steal "},
		},
		{
			name:      "https to http on the same host",
			tls:       true,
			to:        func(_, plain, _ string) string { return plain + "/steal" },
			wantAPI:   []string{"/v1/criteria/c1 " + bearer},
			wantOther: []string{"/steal "},
		},
		{
			name:      "http to https on the same host",
			to:        func(_, _, secure string) string { return secure + "/steal" },
			wantAPI:   []string{"/v1/criteria/c1 " + bearer},
			wantOther: []string{"/steal "},
		},
		{
			name: "another host name",
			to: func(_, plain, _ string) string {
				return strings.Replace(plain, "127.0.0.1", "localhost", 1) + "/steal"
			},
			wantAPI:   []string{"/v1/criteria/c1 " + bearer},
			wantOther: []string{"/steal "},
		},
		{
			name: "away and back to the origin",
			to: func(base, plain, _ string) string {
				return plain + "/bounce?to=" + url.QueryEscape(base+"/v1/criteria/back")
			},
			wantAPI:   []string{"/v1/criteria/c1 " + bearer, "/v1/criteria/back " + bearer},
			wantOther: []string{"/bounce "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var api, other authRecorder
			otherMux := http.NewServeMux()
			otherMux.HandleFunc("/bounce", func(w http.ResponseWriter, r *http.Request) {
				other.mu.Lock()
				other.seen = append(other.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
				other.mu.Unlock()
				http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			})
			otherMux.HandleFunc("/", other.handler)
			plain := httptest.NewServer(otherMux)
			defer plain.Close()
			secure := httptest.NewTLSServer(otherMux)
			defer secure.Close()

			var base string
			apiMux := http.NewServeMux()
			apiMux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
				api.mu.Lock()
				api.seen = append(api.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
				api.mu.Unlock()
				http.Redirect(w, r, tt.to(base, plain.URL, secure.URL), http.StatusTemporaryRedirect)
			})
			apiMux.HandleFunc("/", api.handler)
			var srv *httptest.Server
			if tt.tls {
				srv = httptest.NewTLSServer(apiMux)
			} else {
				srv = httptest.NewServer(apiMux)
			}
			defer srv.Close()
			base = srv.URL
			// One transport that trusts both test certificates.
			hc := secure.Client()
			if tt.tls {
				hc.Transport.(*http.Transport).TLSClientConfig.RootCAs.AddCert(srv.Certificate())
			}
			cl, err := New(base+"/v1", WithHTTPClient(hc), WithAPIKey(testKey), WithRetryPolicy(fastRetries()))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err != nil {
				t.Fatal(err)
			}
			if got := api.got(); fmt.Sprint(got) != fmt.Sprint(tt.wantAPI) {
				t.Errorf("the API saw %q, want %q", got, tt.wantAPI)
			}
			if got := other.got(); fmt.Sprint(got) != fmt.Sprint(tt.wantOther) {
				t.Errorf("the other server saw %q, want %q", got, tt.wantOther)
			}
		})
	}
}

// TestCallersCheckRedirectStillDecides: the guard wraps the caller's
// CheckRedirect rather than replacing it, and when there is none stops a
// redirect back to a URL already visited at once.
func TestCallersCheckRedirectStillDecides(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/criteria/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/criteria/loop", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, tt := range []struct {
		check func(*http.Request, []*http.Request) error
		want  string
	}{
		{nil, "a redirect loop: back to a URL already visited"},
		{func(*http.Request, []*http.Request) error { return errors.New("no redirects here") }, "no redirects here"},
	} {
		hc := &http.Client{CheckRedirect: tt.check}
		cl, err := New(srv.URL, WithHTTPClient(hc), WithAPIKey(testKey), WithRetryPolicy(RetryPolicy{}))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = cl.Criteria.Get(context.Background(), "loop")
		if err == nil {
			t.Fatal("no error")
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want %q", err, tt.want)
		}
		if hc.CheckRedirect == nil && tt.check != nil {
			t.Error("the caller's http.Client was changed")
		}
	}
}

// rawResponse answers a request with raw bytes (a status line and headers
// of the server's choosing), reading the request first.
func rawServer(t *testing.T, answer func(path string) string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
				fmt.Fprint(conn, answer(req.URL.RequestURI()))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestKeyRedactedFromEverything runs a server that echoes the key (bare,
// in "Bearer KEY", JSON-escaped and URL-escaped) into X-Request-Id and other
// headers, the status line, error and success bodies and the next cursor,
// and checks that nothing the client reports holds it: errors (Error(),
// %+v, %#v and their fields), kept responses (headers, bodies, requests),
// decoded criteria, Response values and the debug log.
func TestKeyRedactedFromEverything(t *testing.T) {
	for _, key := range []string{testKey, "sk/<live>&key+1 é"} {
		t.Run(key, func(t *testing.T) {
			forms := origin.NewSecret(key).Forms()
			if len(forms) < 2 && key != testKey {
				t.Fatalf("forms of %q: %q", key, forms)
			}
			// Bodies carry the key as JSON encoders write it (each form
			// once, as JSON string content), other text every form.
			echo := strings.Join(forms, " | ")
			var jsonForms []string
			for _, f := range forms {
				if f == key || (f != url.QueryEscape(key) && f != url.PathEscape(key)) {
					jsonForms = append(jsonForms, f)
				}
			}
			jsonEcho := strings.Join(jsonForms, " | ")
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			base := rawServer(t, func(path string) string {
				head := func(status string, headers ...string) string {
					h := "HTTP/1.1 " + status + "\r\nConnection: close\r\nContent-Type: application/json\r\nX-Request-Id: " + key +
						"\r\nX-Echo: Bearer " + key + "\r\nX-" + url.PathEscape(key) + ": 1\r\n"
					return h + strings.Join(headers, "") + "\r\n"
				}
				switch {
				case path == "/criteria/bad":
					return head("422 Unprocessable "+key) + `{"error":{"code":"invalid ` + jsonEcho + `","message":"key ` + jsonEcho + `","details":{"` + jsonEcho + `":"` + jsonEcho + `"},"request_id":"` + jsonEcho + `"}}`
				case path == "/criteria/ok":
					return head("200 OK") + `{"id":"ok","label":"` + jsonEcho + `","assertion":{"assert":"ran","ran":"` + jsonEcho + `"}}`
				case path == "/criteria/status":
					return head("299 Odd " + key)
				case path == "/criteria/html":
					return head("502 Bad Gateway") + "<html>" + echo + "</html>"
				case strings.HasPrefix(path, "/criteria?") && !strings.Contains(path, "cursor="):
					return head("200 OK") + `{"data":[],"_meta":{"next":"` + jsonEcho + `"}}`
				case strings.HasPrefix(path, "/criteria?") && strings.Contains(path, "repeat"):
					return head("200 OK") + `{"data":[],"_meta":{"next":"` + jsonEcho + `"}}`
				default: // a page after the echoed cursor
					return head("500 Internal Server Error") + `{"error":{"message":"boom"}}`
				}
			})
			cl, err := New(base, WithAPIKey(key), WithRetryPolicy(fastRetries()), WithLogger(logger))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var reports []string
			add := func(v ...any) {
				for _, x := range v {
					reports = append(reports, fmt.Sprint(x), fmt.Sprintf("%+v", x), fmt.Sprintf("%#v", x))
				}
			}
			addErr := func(err error) {
				if err == nil {
					t.Error("no error")
					return
				}
				add(err, err.Error())
				var apiErr *APIError
				if errors.As(err, &apiErr) {
					add(apiErr.Code, apiErr.Message, apiErr.Details, string(apiErr.RawDetails), apiErr.RequestID, string(apiErr.Body), apiErr.URL)
					add(apiErr.Response.Header, apiErr.Response.Status, apiErr.Response.Request.Header, apiErr.Response.Request.URL)
					var body bytes.Buffer
					body.ReadFrom(apiErr.Response.Body)
					add(body.String())
				}
				var respErr *ResponseError
				if errors.As(err, &respErr) {
					add(respErr.Reason, respErr.URL, respErr.ContentType, respErr.Err)
				}
				var reqErr *RequestError
				if errors.As(err, &reqErr) {
					add(reqErr.URL, reqErr.Err, reqErr.Last)
				}
			}

			_, _, err = cl.Criteria.Get(ctx, "bad")
			addErr(err)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.RequestID != redacted || !strings.Contains(apiErr.Error(), "[request id [REDACTED]]") {
				t.Errorf("request id not kept redacted: %v", err)
			}
			_, _, err = cl.Criteria.Get(ctx, "status")
			addErr(err)
			_, _, err = cl.Criteria.Get(ctx, "html")
			addErr(err)
			c, resp, err := cl.Criteria.Get(ctx, "ok")
			if err != nil {
				t.Fatal(err)
			}
			add(c.Label, string(c.Assertion), resp.RequestID, resp.Header, resp.Status, resp.Request.Header)
			var body bytes.Buffer
			body.ReadFrom(resp.Body)
			add(body.String())
			// The echoed cursor goes into the next request's URL, which
			// then fails: the URL in the error and the log is scrubbed.
			_, err = cl.Criteria.ListAll(ctx, "t")
			addErr(err)
			// A repeated echoed cursor.
			_, err = cl.Criteria.ListAll(ctx, "repeat")
			addErr(err)
			add(cl, *cl)
			reports = append(reports, logs.String())

			for _, s := range reports {
				for _, form := range forms {
					if strings.Contains(s, form) {
						t.Errorf("the key (as %q) leaks in:\n%s", form, s)
					}
				}
			}
			if !strings.Contains(logs.String(), "request_id=[REDACTED]") {
				t.Errorf("the log lacks the redacted request id:\n%s", logs.String())
			}
		})
	}
}

// A redirect loop and a body over the cap are failures no retry heals:
// each is one attempt, whatever the retry policy (DESIGN.md section 12
// rule 17), not four.
func TestNeverRetried(t *testing.T) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/criteria/far", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		n := len(r.URL.RawQuery)
		http.Redirect(w, r, fmt.Sprintf("/criteria/far?%s", strings.Repeat("n", n+1)), http.StatusFound)
	})
	mux.HandleFunc("/criteria/loop", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/criteria/loop", http.StatusFound)
	})
	mux.HandleFunc("/criteria/big", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(bytes.Repeat([]byte(" "), maxResponseBody+1))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, tc := range []struct {
		id, want string
		hits     int64
	}{
		{"far", "stopped after 10 redirects", 10},
		{"loop", "a redirect loop", 1},
		{"big", "response body larger than 33554432 bytes", 1},
	} {
		hits.Store(0)
		cl, err := New(srv.URL, WithAPIKey(testKey), WithRetryPolicy(fastRetries()))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = cl.Criteria.Get(context.Background(), tc.id)
		var re *RequestError
		if !errors.As(err, &re) || re.Attempts != 1 || !strings.Contains(err.Error(), tc.want) || hits.Load() != tc.hits {
			t.Errorf("%s: %v, %d requests; want one attempt failing with %q, %d requests", tc.id, err, hits.Load(), tc.want, tc.hits)
		}
	}
}

// TestRedirectURLScrubbed: a server that redirects to a URL holding the key
// does not make the *url.Error (when the target fails) or the kept response
// (when it answers) carry it, nor the redirect response that led there.
func TestRedirectURLScrubbed(t *testing.T) {
	cl, mux := setup(t, WithRetryPolicy(RetryPolicy{}))
	mux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/?k="+testKey, http.StatusFound)
	})
	_, _, err := cl.Criteria.Get(context.Background(), "c1")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("error %T %v, want a *url.Error inside", err, err)
	}
	for _, s := range []string{err.Error(), ue.URL, ue.Error(), fmt.Sprintf("%#v", err)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the key leaks in %s", s)
		}
	}

	mux.HandleFunc("/v1/criteria/c2", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", testKey)
		http.Redirect(w, r, "/v1/landing?k="+testKey, http.StatusFound)
	})
	mux.HandleFunc("/v1/landing", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	_, _, err = cl.Criteria.Get(context.Background(), "c2")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v, want an APIError", err)
	}
	req := apiErr.Response.Request
	if req.Response != nil {
		t.Error("the redirect response is kept")
	}
	for _, s := range []string{err.Error(), req.URL.String(), fmt.Sprint(req.Header)} {
		if strings.Contains(s, testKey) {
			t.Errorf("the key leaks in %s", s)
		}
	}
}

// pager serves pages of one criterion each; next(n) is the cursor page n
// (1-based) hands out, "" to end the list. It counts the pages served.
func pager(t *testing.T, next func(n int) string) (*Client, *atomic.Int32, *[]string) {
	t.Helper()
	var served atomic.Int32
	var mu sync.Mutex
	var cursors []string
	cl, mux := setup(t)
	mux.HandleFunc("/v1/criteria", func(w http.ResponseWriter, r *http.Request) {
		n := int(served.Add(1))
		mu.Lock()
		cursors = append(cursors, r.URL.Query().Get("cursor"))
		mu.Unlock()
		fmt.Fprintf(w, `{"data":[{"id":"c%d","assertion":{}}],"_meta":{"next":%q}}`, n, next(n))
	})
	return cl, &served, &cursors
}

// TestListingStopsAtAPageLimit: a server that hands out a fresh cursor
// with every page stops the listing at the limit, with ErrTooManyPages and
// no partial list.
func TestListingStopsAtAPageLimit(t *testing.T) {
	cl, served, _ := pager(t, func(n int) string { return fmt.Sprintf("p%d", n+1) })
	ctx := context.Background()
	n := 0
	var last error
	for _, err := range cl.Criteria.All(ctx, "t", &ListOptions{MaxPages: 25}) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	var respErr *ResponseError
	if !errors.Is(last, ErrTooManyPages) || !errors.As(last, &respErr) {
		t.Fatalf("error %v, want a ResponseError wrapping ErrTooManyPages", last)
	}
	if n != 25 || served.Load() != 25 {
		t.Errorf("%d criteria from %d pages, want 25 from 25", n, served.Load())
	}
	if !strings.Contains(last.Error(), "limited to 25 pages") {
		t.Errorf("message: %v", last)
	}
}

// TestListAllDefaultPageLimit: without options, ListAll stops after
// DefaultMaxPages pages of an endless listing and returns no criteria.
func TestListAllDefaultPageLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches 10,000 pages")
	}
	cl, served, _ := pager(t, func(n int) string { return fmt.Sprintf("p%d", n+1) })
	list, err := cl.Criteria.ListAll(context.Background(), "t")
	if !errors.Is(err, ErrTooManyPages) || list != nil {
		t.Fatalf("%d criteria, error %v; want none and ErrTooManyPages", len(list), err)
	}
	if got := served.Load(); got != DefaultMaxPages {
		t.Errorf("%d pages served, want %d", got, DefaultMaxPages)
	}
}

// TestListingStopsAtARepeatedCursor: a next cursor equal to any cursor
// already used in the listing (not only the last one, and the starting
// cursor included) stops it at once.
func TestListingStopsAtARepeatedCursor(t *testing.T) {
	tests := []struct {
		name      string
		start     string
		next      []string // the cursor page n hands out is next[n-1]
		wantPages int
		wantUsed  []string
	}{
		{"the same cursor twice", "", []string{"a", "a"}, 2, []string{"", "a"}},
		{"back to an earlier cursor", "", []string{"a", "b", "c", "a"}, 4, []string{"", "a", "b", "c"}},
		{"back to the starting cursor", "s", []string{"a", "s"}, 2, []string{"s", "a"}},
		{"a cursor that repeats itself", "s", []string{"s"}, 1, []string{"s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, served, used := pager(t, func(n int) string { return tt.next[min(n, len(tt.next))-1] })
			var last error
			for _, err := range cl.Criteria.All(context.Background(), "t", &ListOptions{Cursor: tt.start}) {
				last = err
			}
			if !errors.Is(last, ErrRepeatedCursor) {
				t.Fatalf("error %v, want ErrRepeatedCursor", last)
			}
			if int(served.Load()) != tt.wantPages || fmt.Sprint(*used) != fmt.Sprint(tt.wantUsed) {
				t.Errorf("%d pages with cursors %q, want %d with %q", served.Load(), *used, tt.wantPages, tt.wantUsed)
			}
		})
	}
	// A long cursor is quoted cut short.
	long := strings.Repeat("x", 5000)
	cl, _, _ := pager(t, func(int) string { return long })
	_, err := cl.Criteria.ListAll(context.Background(), "t")
	if !errors.Is(err, ErrRepeatedCursor) || len(err.Error()) > 600 || !strings.Contains(err.Error(), "(5000 bytes)") {
		t.Errorf("error %v", err)
	}
}

// TestClientErrorsAreNotRetried: every 4xx but 408 and 429 is returned at
// once, for every method that may be retried.
func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 402, 403, 404, 405, 406, 409, 410, 411, 412, 413, 415, 418, 422, 423, 425, 428, 431, 451, 499} {
		for _, method := range []string{"GET", "PATCH", "DELETE"} {
			cl, mux := setup(t)
			var calls atomic.Int32
			mux.HandleFunc("/v1/", scripted(t, &calls, status, 200))
			var err error
			switch method {
			case "GET":
				_, _, err = cl.Criteria.Get(context.Background(), "c1")
			case "PATCH":
				_, _, err = cl.Criteria.Update(context.Background(), "c1", CriterionUpdate{Label: Ptr("x")})
			case "DELETE":
				_, err = cl.Criteria.Delete(context.Background(), "c1")
			}
			var apiErr *APIError
			if calls.Load() != 1 || !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Errorf("%s %d: %d attempts, error %v; want 1 attempt and the APIError", method, status, calls.Load(), err)
			}
		}
	}
	// Not even by a policy whose CheckRetry would retry everything.
	policy := fastRetries()
	policy.CheckRetry = func(context.Context, *http.Response, error) (bool, error) { return true, nil }
	for _, status := range []int{400, 401, 403, 404, 409, 422} {
		cl, mux := setup(t, WithRetryPolicy(policy))
		var calls atomic.Int32
		mux.HandleFunc("/v1/", scripted(t, &calls, status, 200))
		if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err == nil || calls.Load() != 1 {
			t.Errorf("GET %d with a retry-everything policy: %d attempts, error %v; want 1 and the error", status, calls.Load(), err)
		}
	}
	cl, mux := setup(t, WithRetryPolicy(policy))
	var calls atomic.Int32
	mux.HandleFunc("/v1/", scripted(t, &calls, 500, 200))
	if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err != nil || calls.Load() != 2 {
		t.Errorf("GET 500 with a retry-everything policy: %d attempts, error %v; want a retry", calls.Load(), err)
	}
	for _, status := range []int{408, 429} {
		cl, mux := setup(t)
		var calls atomic.Int32
		mux.HandleFunc("/v1/", scripted(t, &calls, status, 200))
		if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err != nil || calls.Load() != 2 {
			t.Errorf("GET %d: %d attempts, error %v; want a retry that succeeds", status, calls.Load(), err)
		}
	}
}
