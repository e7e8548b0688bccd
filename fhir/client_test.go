package fhir_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/internal/retry"
	"github.com/tidwall/gjson"
)

func fastRetry() retry.RetryPolicy {
	p := retry.DefaultRetryPolicy()
	p.MinWait, p.MaxWait = time.Millisecond, 5*time.Millisecond
	return p
}

func localServer(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("testdata/people.json")
	if err != nil {
		t.Fatal(err)
	}
	s := fhir.NewStore()
	if _, err := s.LoadJSON(data); err != nil {
		t.Fatal(err)
	}
	srv := fhir.NewServer(s)
	base, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return base
}

func TestClientAgainstServer(t *testing.T) {
	base := localServer(t)
	c, err := fhir.NewClient(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	// _count=1 makes five pages; the client follows them all.
	res, err := c.Search(context.Background(), "Patient", url.Values{"_count": {"1"}, "gender": {"female,male"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res {
		ids = append(ids, r.Key()+"@"+r.Version)
	}
	if got := strings.Join(ids, " "); got != "Patient/eve@1 Patient/evelyn@1 Patient/severine@1 Patient/mueller@1 Patient/muller@1" {
		t.Errorf("got %s", got)
	}
	// A zone offset travels encoded and comes back in the next link.
	res, err = c.Search(context.Background(), "Appointment", url.Values{"date": {"ge2024-03-01T10:00:00+01:00"}, "_count": {"1"}})
	if err != nil || len(res) != 2 {
		t.Errorf("offset search: %d %v", len(res), err)
	}
	// A search the server refuses is an OperationOutcomeError.
	_, err = c.Search(context.Background(), "Patient", url.Values{"colour": {"blue"}})
	var oe *fhir.OperationOutcomeError
	if !errors.As(err, &oe) || oe.StatusCode != 400 || len(oe.Issues) != 1 || oe.Issues[0].Code != "not-supported" {
		t.Errorf("unknown parameter: %v", err)
	}
	// The check end to end.
	env := assert.NewEnv()
	fhir.Attach(env, c)
	r := run(t, env, `{"assert":"fhir-resource-state","resource_type":"Encounter","search":{"subject":"Patient/eve","date":"2023-06-15"},"fields":[{"path":"status","expected":"finished"}]}`)
	if r.Status != assert.StatusPassed || r.Details != "Encounter/e-day matched; 1 of 1 fields passed." {
		t.Errorf("%s %q", r.Status, r.Details)
	}
}

// pager serves a fixed list of pages at /fhir/Patient; page n links to
// next(n).
type pager struct {
	pages   int
	next    func(srv string, n int) string
	self    func(r *http.Request) string
	entries func(n int) string
	seen    []string
	auth    []string
}

func (p *pager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.seen = append(p.seen, r.URL.RequestURI())
	p.auth = append(p.auth, r.Header.Get("Authorization"))
	n := 1
	if v := r.URL.Query().Get("page"); v != "" {
		fmt.Sscan(v, &n)
	}
	self := "http://" + r.Host + r.URL.RequestURI()
	if p.self != nil {
		self = p.self(r)
	}
	links := fmt.Sprintf(`{"relation":"self","url":%q}`, self)
	if n < p.pages {
		links += fmt.Sprintf(`,{"relation":"next","url":%q}`, p.next("http://"+r.Host, n))
	}
	entries := fmt.Sprintf(`{"resource":{"resourceType":"Patient","id":"p%d","meta":{"versionId":"3"}},"search":{"mode":"match"}},`+
		`{"resource":{"resourceType":"Organization","id":"o%d"},"search":{"mode":"include"}}`, n, n)
	if p.entries != nil {
		entries = p.entries(n)
	}
	w.Header().Set("Content-Type", "application/fhir+json")
	fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","link":[%s],"entry":[%s]}`, links, entries)
}

func TestClientPagingLinkForms(t *testing.T) {
	const date = "ge2024-01-01T00:00:00+01:00"
	for name, next := range map[string]func(srv string, n int) string{
		"absolute": func(srv string, n int) string {
			return fmt.Sprintf("%s/fhir/Patient?date=%s&page=%d", srv, url.QueryEscape(date), n+1)
		},
		"relative": func(srv string, n int) string {
			return fmt.Sprintf("Patient?date=%s&page=%d", url.QueryEscape(date), n+1)
		},
		"host-relative": func(srv string, n int) string {
			return fmt.Sprintf("/fhir/Patient?date=%s&page=%d", url.QueryEscape(date), n+1)
		},
		"raw plus": func(srv string, n int) string { return fmt.Sprintf("/fhir/Patient?date=%s&page=%d", date, n+1) },
	} {
		t.Run(name, func(t *testing.T) {
			p := &pager{pages: 3, next: next}
			srv := httptest.NewServer(p)
			defer srv.Close()
			c, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithBearerToken("secret"))
			res, err := c.Search(context.Background(), "Patient", url.Values{"date": {date}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 3 || res[2].Key() != "Patient/p3" || res[0].Version != "3" {
				t.Errorf("got %v", res)
			}
			if !strings.HasPrefix(p.seen[0], "/fhir/Patient?date=ge2024-01-01T00%3A00%3A00%2B01%3A00") {
				t.Errorf("first request %s", p.seen[0])
			}
			if name == "raw plus" && !strings.Contains(p.seen[1], "+01:00") {
				t.Errorf("the next link was re-encoded: %s", p.seen[1])
			}
			for _, a := range p.auth {
				if a != "Bearer secret" {
					t.Errorf("Authorization %q", a)
				}
			}
		})
	}
}

func TestClientPagingRefusals(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the client followed a next link to another origin with %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	for name, c := range map[string]struct {
		p    *pager
		opts []fhir.ClientOption
	}{
		"other origin": {p: &pager{pages: 2, next: func(string, int) string { return other.URL + "/fhir/Patient?page=2" }}},
		"loop":         {p: &pager{pages: 5, next: func(srv string, n int) string { return srv + "/fhir/Patient?page=1" }}},
		"page cap": {p: &pager{pages: 1 << 30, next: func(srv string, n int) string { return fmt.Sprintf("%s/fhir/Patient?page=%d", srv, n+1) }},
			opts: []fhir.ClientOption{fhir.WithMaxPages(5)}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(c.p)
			defer srv.Close()
			cl, _ := fhir.NewClient(srv.URL+"/fhir", append(c.opts, fhir.WithBearerToken("secret"))...)
			_, err := cl.Search(context.Background(), "Patient", nil)
			if !errors.Is(err, fhir.ErrPaging) {
				t.Errorf("got %v, want ErrPaging", err)
			}
		})
	}
}

func TestClientIgnoredParameter(t *testing.T) {
	// The server drops "colour" from its self link: it ignored it.
	p := &pager{pages: 1, self: func(r *http.Request) string { return "http://" + r.Host + "/fhir/Patient?name=eve" }}
	srv := httptest.NewServer(p)
	defer srv.Close()
	c, _ := fhir.NewClient(srv.URL + "/fhir")
	_, err := c.Search(context.Background(), "Patient", url.Values{"name": {"eve"}, "colour": {"blue"}})
	var ie *fhir.IgnoredParameterError
	if !errors.As(err, &ie) || strings.Join(ie.Missing, ",") != "colour" {
		t.Fatalf("got %v", err)
	}
	env := assert.NewEnv()
	fhir.Attach(env, c)
	r := run(t, env, `{"assert":"fhir-resource-state","resource_type":"Patient","search":{"name":"eve","colour":"blue"}}`)
	if r.Status != assert.StatusError {
		t.Errorf("an ignored parameter gave %s: %q", r.Status, r.Details)
	}
	// No self link at all: refused too, unless opted out.
	p.self = func(*http.Request) string { return "" }
	if _, err := c.Search(context.Background(), "Patient", url.Values{"name": {"eve"}}); !errors.As(err, &ie) {
		t.Errorf("no self link: %v", err)
	}
	lax, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithoutSelfLinkCheck())
	if res, err := lax.Search(context.Background(), "Patient", url.Values{"name": {"eve"}}); err != nil || len(res) != 1 {
		t.Errorf("opted out: %v %v", res, err)
	}
}

func TestClientBadResponses(t *testing.T) {
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/html/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Please log in</body></html>")
	})
	mux.HandleFunc("/hang/Patient", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/outcome/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		w.WriteHeader(403)
		fmt.Fprint(w, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"forbidden","diagnostics":"no access"}]}`)
	})
	mux.HandleFunc("/flaky/Patient", func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(503)
			return
		}
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprint(w, `{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"Patient","id":"x"}}]}`)
	})
	var limited atomic.Int32
	mux.HandleFunc("/limited/Patient", func(w http.ResponseWriter, r *http.Request) {
		if limited.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			return
		}
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprint(w, `{"resourceType":"Bundle","type":"searchset"}`)
	})
	mux.HandleFunc("/big/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","x":"%s"}`, strings.Repeat("a", 5000))
	})
	mux.HandleFunc("/notbundle/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprint(w, `{"resourceType":"Patient","id":"x"}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	search := func(path string, opts ...fhir.ClientOption) error {
		c, err := fhir.NewClient(srv.URL+path, append([]fhir.ClientOption{fhir.WithRetryPolicy(fastRetry())}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Search(context.Background(), "Patient", nil)
		return err
	}
	var he *fhir.HTTPError
	if err := search("/html"); !errors.As(err, &he) || he.Reason != "not FHIR JSON" {
		t.Errorf("html: %v", err)
	}
	start := time.Now()
	noRetry := retry.DefaultRetryPolicy()
	noRetry.MaxRetries = 0
	if err := search("/hang", fhir.WithTimeout(100*time.Millisecond), fhir.WithRetryPolicy(noRetry)); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("hang: %v after %s", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	c, _ := fhir.NewClient(srv.URL + "/hang")
	if _, err := c.Search(ctx, "Patient", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang with ctx: %v", err)
	}
	cancel()
	var oe *fhir.OperationOutcomeError
	if err := search("/outcome"); !errors.As(err, &oe) || oe.StatusCode != 403 || oe.Issues[0].Diagnostics != "no access" {
		t.Errorf("outcome: %v", err)
	}
	if err := search("/flaky"); err != nil || hits.Load() != 3 {
		t.Errorf("flaky: %v after %d requests", err, hits.Load())
	}
	// 429 with Retry-After: 1 waits that second (the policy's MaxWait
	// caps it; here 2 s).
	slow := fastRetry()
	slow.MaxWait = 2 * time.Second
	start = time.Now()
	if err := search("/limited", fhir.WithRetryPolicy(slow)); err != nil || limited.Load() != 2 || time.Since(start) < 900*time.Millisecond {
		t.Errorf("429: %v after %d requests in %s", err, limited.Load(), time.Since(start))
	}
	if err := search("/big", fhir.WithMaxBodySize(1000)); err == nil || !strings.Contains(err.Error(), "cap") {
		t.Errorf("big: %v", err)
	}
	if err := search("/notbundle"); !errors.As(err, &he) || he.Reason != "not a Bundle" {
		t.Errorf("not a bundle: %v", err)
	}
	if _, err := fhir.NewClient("ftp://x"); err == nil {
		t.Error("ftp base accepted")
	}
}

// verifyJWT checks an RS384 or ES384 assertion with the public key.
func verifyJWT(t *testing.T, jwt string, pub crypto.PublicKey) gjson.Result {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("assertion %q", jwt)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha512.Sum384([]byte(parts[0] + "." + parts[1]))
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if err := rsa.VerifyPKCS1v15(k, crypto.SHA384, digest[:], sig); err != nil {
			t.Errorf("RS384 signature: %v", err)
		}
	case *ecdsa.PublicKey:
		r, s := new(big.Int).SetBytes(sig[:48]), new(big.Int).SetBytes(sig[48:])
		if !ecdsa.Verify(k, digest[:], r, s) {
			t.Error("ES384 signature does not verify")
		}
	}
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	return gjson.ParseBytes(claims)
}

func TestBackendServicesToken(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	for name, key := range map[string]crypto.Signer{"RS384": rsaKey, "ES384": ecKey, "secret": nil} {
		t.Run(name, func(t *testing.T) {
			var tokens atomic.Int32
			mux := http.NewServeMux()
			var tokenURL string
			mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
				tokens.Add(1)
				r.ParseForm()
				if r.Form.Get("grant_type") != "client_credentials" || r.Form.Get("scope") != "system/*.read" {
					t.Errorf("form %v", r.Form)
				}
				if key == nil {
					if u, p, ok := r.BasicAuth(); !ok || u != "cid" || p != "s3cret" {
						t.Errorf("basic auth %q %q", u, p)
					}
				} else {
					claims := verifyJWT(t, r.Form.Get("client_assertion"), key.Public())
					if claims.Get("iss").Str != "cid" || claims.Get("aud").Str != tokenURL || claims.Get("jti").Str == "" {
						t.Errorf("claims %s", claims.Raw)
					}
				}
				fmt.Fprint(w, `{"access_token":"tok-1","token_type":"bearer","expires_in":3600}`)
			})
			mux.HandleFunc("/fhir/Patient", func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer tok-1" || r.Header.Get("Prefer") != "handling=strict" || r.Header.Get("Accept") != "application/fhir+json" {
					t.Errorf("headers %v", r.Header)
				}
				w.Header().Set("Content-Type", "application/fhir+json")
				fmt.Fprint(w, `{"resourceType":"Bundle","type":"searchset","entry":[]}`)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			tokenURL = srv.URL + "/token"
			ts := &fhir.BackendServices{TokenURL: tokenURL, ClientID: "cid", Scope: "system/*.read", Key: key, KeyID: "k1", ClientSecret: "s3cret"}
			c, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithTokenSource(ts))
			for range 2 {
				if _, err := c.Search(context.Background(), "Patient", nil); err != nil {
					t.Fatal(err)
				}
			}
			if tokens.Load() != 1 {
				t.Errorf("%d token requests, want 1 (cached)", tokens.Load())
			}
		})
	}
}

// TestClientRedirectToAnotherOrigin: a redirect within the server's origin
// is followed with the token; one to another origin (an http to https move
// included), of the first request or of a later page, is refused, the
// other origin never asked (DESIGN.md section 12 rule 18).
func TestClientRedirectToAnotherOrigin(t *testing.T) {
	var otherHits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprint(w, `{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"Patient","id":"forged"}}]}`)
	}))
	defer other.Close()
	var sameAuth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fhir/Patient":
			http.Redirect(w, r, "/fhir/moved/Patient", http.StatusFound)
		case "/fhir/moved/Patient":
			sameAuth.Store(r.Header.Get("Authorization"))
			w.Header().Set("Content-Type", "application/fhir+json")
			fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","link":[{"relation":"next","url":"/fhir/Observation"}],"entry":[{"resource":{"resourceType":"Patient","id":"p1"}}]}`)
		case "/fhir/Observation":
			http.Redirect(w, r, other.URL+"/Observation", http.StatusFound)
		case "/away/Patient":
			http.Redirect(w, r, other.URL+"/Patient", http.StatusFound)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, base string }{
		{"first page", srv.URL + "/away"},
		{"second page", srv.URL + "/fhir"},
	} {
		c, _ := fhir.NewClient(tc.base, fhir.WithBearerToken("secret-token"), fhir.WithoutSelfLinkCheck(), fhir.WithRetryPolicy(fastRetry()))
		res, err := c.Search(context.Background(), "Patient", nil)
		if !errors.Is(err, origin.ErrLeftOrigin) || res != nil || !strings.Contains(err.Error(), "a redirect to another origin") {
			t.Errorf("%s: %v %v; want the redirect refused", tc.name, res, err)
		}
	}
	if otherHits.Load() != 0 {
		t.Errorf("the other origin was asked %d times", otherHits.Load())
	}
	if sameAuth.Load() != "Bearer secret-token" {
		t.Errorf("same-origin redirect lost the token: %q", sameAuth.Load())
	}
}

func TestClientRefreshesTokenOn401(t *testing.T) {
	var issued atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"access_token":"tok-%d","expires_in":3600}`, issued.Add(1))
	})
	mux.HandleFunc("/fhir/Patient", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-2" { // the first token was revoked
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprint(w, `{"resourceType":"Bundle","type":"searchset"}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ts := &fhir.BackendServices{TokenURL: srv.URL + "/token", ClientID: "cid", ClientSecret: "s"}
	c, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithTokenSource(ts))
	if _, err := c.Search(context.Background(), "Patient", nil); err != nil || issued.Load() != 2 {
		t.Errorf("%v after %d tokens", err, issued.Load())
	}
	// A 401 that a new token does not cure is an error, not a loop.
	c2, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithBearerToken("wrong"))
	var he *fhir.HTTPError
	if _, err := c2.Search(context.Background(), "Patient", nil); !errors.As(err, &he) || he.StatusCode != 401 {
		t.Errorf("static wrong token: %v", err)
	}
}
