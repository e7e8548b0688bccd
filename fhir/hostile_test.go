package fhir_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/internal/origin"
)

// The tests in this file run the client against hostile servers (issue 25):
// one that pages for ever, one that echoes the token, one whose bodies are
// over the cap or redirect in a loop.

// endless serves /fhir/Patient pages of about size bytes, each linking to a
// fresh next page on the same origin, for ever.
func endless(size int, pages *atomic.Int64) http.Handler {
	pad := strings.Repeat(" ", size)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := pages.Add(1)
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","link":[{"relation":"next","url":"/fhir/Patient?page=%d"}],`+
			`"entry":[{"resource":{"resourceType":"Patient","id":"p%d"}}]%s}`, n+1, n, pad)
	})
}

// A server that always sends a fresh next link is followed only as far as
// the total cap on one search: an error that names it, not 10,000 pages
// kept in memory (rule 17).
func TestClientEndlessPaging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []fhir.ClientOption
		pages int64 // the most pages fetched
		cap   string
	}{
		{"WithMaxTotalSize", []fhir.ClientOption{fhir.WithMaxTotalSize(8 << 20)}, 9, "past the 8388608-byte (8 MiB) cap on one search"},
		{"default", nil, 257, "past the 268435456-byte (256 MiB) cap on one search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts == nil && testing.Short() {
				t.Skip("reads 256 MiB over loopback")
			}
			var pages atomic.Int64
			srv := httptest.NewServer(endless(1<<20, &pages))
			defer srv.Close()
			c, _ := fhir.NewClient(srv.URL+"/fhir", append(tc.opts, fhir.WithoutSelfLinkCheck())...)
			start := time.Now()
			res, err := c.Search(context.Background(), "Patient", nil)
			if !errors.Is(err, check.ErrTotalTooLarge) || res != nil || !strings.Contains(err.Error(), tc.cap) {
				t.Fatalf("%d resources, %v; want an error naming the cap", len(res), err)
			}
			if pages.Load() > tc.pages {
				t.Errorf("%d pages fetched, want at most %d", pages.Load(), tc.pages)
			}
			t.Logf("%d pages in %s", pages.Load(), time.Since(start))
		})
	}
}

// A body over the cap and a redirect loop are failures, never retried:
// one request each, not four (rule 17).
func TestClientNeverRetries(t *testing.T) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/big/Patient", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","x":"%s"}`, strings.Repeat("a", 5000))
	})
	mux.HandleFunc("/loop/Patient", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	})
	mux.HandleFunc("/far/Patient", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, r.URL.Path+"?"+r.URL.RawQuery+"x", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, tc := range []struct {
		path, want string
		hits       int64
	}{
		{"/big", "the response is over the 1000-byte cap on one page", 1},
		{"/loop", "a redirect loop: back to a URL already visited", 1},
		{"/far", "a redirect loop: stopped after 10 redirects", 10},
	} {
		hits.Store(0)
		c, _ := fhir.NewClient(srv.URL+tc.path, fhir.WithRetryPolicy(fastRetry()), fhir.WithMaxBodySize(1000))
		_, err := c.Search(context.Background(), "Patient", nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || hits.Load() != tc.hits {
			t.Errorf("%s: %v after %d requests; want %q after %d", tc.path, err, hits.Load(), tc.want, tc.hits)
		}
	}
}

// A server that echoes the Authorization header, in an OperationOutcome,
// an HTML error page, a header, a next link or a resource, does not make
// the client report the token: not in errors, details or evidence (rule
// 18).
func TestClientRedactsToken(t *testing.T) {
	const token = "tok/<en>-0123456789"
	echo := func(r *http.Request) string { return r.Header.Get("Authorization") }
	mux := http.NewServeMux()
	mux.HandleFunc("/outcome/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"login","diagnostics":%q}]}`, "bad token "+echo(r))
	})
	mux.HandleFunc("/html/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; token="+strings.TrimPrefix(echo(r), "Bearer "))
		w.WriteHeader(500)
		fmt.Fprintf(w, "<html><pre>%s</pre></html>", echo(r))
	})
	mux.HandleFunc("/link/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","link":[{"relation":"next","url":"https://elsewhere.example/?t=%s"}]}`, strings.TrimPrefix(echo(r), "Bearer "))
	})
	mux.HandleFunc("/resource/Patient", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json")
		fmt.Fprintf(w, `{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"Patient","id":"p1","name":[{"family":%q}]}}]}`, echo(r))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/outcome", "/html", "/link", "/resource"} {
		c, _ := fhir.NewClient(srv.URL+path, fhir.WithBearerToken(token), fhir.WithoutSelfLinkCheck(), fhir.WithRetryPolicy(fastRetry()))
		res, err := c.Search(context.Background(), "Patient", nil)
		dump := fmt.Sprintf("%v %+v %#v %s", err, err, err, res)
		for _, r := range res {
			dump += string(r.JSON)
		}
		env := assert.NewEnv()
		fhir.Attach(env, c)
		r := run(t, env, `{"assert":"fhir-resource-state","resource_type":"Patient","fields":[{"path":"name.0.family","expected":"x"}]}`)
		dump += fmt.Sprintf(" %s %v", r.Details, r.Evidence)
		if strings.Contains(dump, "tok/") || strings.Contains(dump, "0123456789") {
			t.Errorf("%s: the token is reported: %s", path, dump)
		}
		if !strings.Contains(dump, origin.Redacted) {
			t.Errorf("%s: nothing was redacted: %s", path, dump)
		}
	}
}

// TestBackendServicesRedactsCredentials: a token endpoint that echoes what
// proves the client's identity (the client secret, raw and as sent, the
// Basic header, the signed assertion) in its refusal gets none of it into
// the TokenError, nor into the search error that wraps it (DESIGN.md
// section 12 rule 18).
func TestBackendServicesRedactsCredentials(t *testing.T) {
	const clientSecret = "CLIENT/secret+xyz123"
	ecKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	var lastAssertion atomic.Value
	mux := http.NewServeMux()
	echo := func(r *http.Request) string {
		r.ParseForm()
		lastAssertion.Store(r.Form.Get("client_assertion"))
		_, pass, _ := r.BasicAuth()
		return fmt.Sprintf("bad %s %s %s %s", pass, r.Header.Get("Authorization"), r.Form.Get("client_assertion"), clientSecret)
	}
	mux.HandleFunc("/refuse/token", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":%q}`, echo(r))
	})
	mux.HandleFunc("/garbled/token", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html>%s</html>", echo(r))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/refuse", "/garbled"} {
		for _, key := range []crypto.Signer{nil, ecKey} {
			name := fmt.Sprintf("%s key=%v", path, key != nil)
			ts := &fhir.BackendServices{TokenURL: srv.URL + path + "/token", ClientID: "id", Key: key, ClientSecret: clientSecret}
			_, terr := ts.Token(context.Background())
			var te *fhir.TokenError
			if !errors.As(terr, &te) {
				t.Fatalf("%s: %v, want a TokenError", name, terr)
			}
			c, _ := fhir.NewClient(srv.URL+"/fhir", fhir.WithTokenSource(ts), fhir.WithRetryPolicy(fastRetry()))
			_, serr := c.Search(context.Background(), "Patient", nil)
			if !errors.As(serr, &te) {
				t.Fatalf("%s: search: %v, want a TokenError", name, serr)
			}
			dump := fmt.Sprintf("%v %+v %#v %v %#v", terr, te, te, serr, serr)
			leaks := []string{clientSecret, "xyz123", url.QueryEscape(clientSecret),
				base64.StdEncoding.EncodeToString([]byte("id:" + url.QueryEscape(clientSecret)))}
			if key != nil {
				a, _ := lastAssertion.Load().(string)
				if a == "" {
					t.Fatalf("%s: no assertion was sent", name)
				}
				leaks = append(leaks, a, a[len(a)-40:])
			}
			for _, leak := range leaks {
				if strings.Contains(dump, leak) {
					t.Errorf("%s: %q is reported: %s", name, leak, dump)
				}
			}
			if !strings.Contains(dump, origin.Redacted) {
				t.Errorf("%s: nothing was redacted: %s", name, dump)
			}
		}
	}
}
