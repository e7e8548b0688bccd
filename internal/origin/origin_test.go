package origin_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/internal/retry"
)

func TestOf(t *testing.T) {
	same := [][2]string{
		{"https://api.example.com", "https://API.example.com:443/v1"},
		{"http://example.com.", "http://example.com:80"},
		{"http://[::1]:8080", "http://[0:0:0:0:0:0:0:1]:8080"},
	}
	for _, p := range same {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin.Of(a) != origin.Of(b) {
			t.Errorf("%s and %s: different origins %v %v", p[0], p[1], origin.Of(a), origin.Of(b))
		}
	}
	differ := [][2]string{
		{"https://api.example.com", "http://api.example.com"},
		{"https://api.example.com", "https://api.example.com:8443"},
		{"https://api.example.com", "https://sub.api.example.com"},
	}
	for _, p := range differ {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin.Of(a) == origin.Of(b) {
			t.Errorf("%s and %s: one origin", p[0], p[1])
		}
	}
}

// A redirect to another port of the same host is followed without the key;
// one back home gets it again.
func TestGuard(t *testing.T) {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "other:"+r.Header.Get("Authorization"))
		http.Redirect(w, r, r.URL.Query().Get("back"), http.StatusFound)
	}))
	defer other.Close()
	var home *httptest.Server
	home = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "home:"+r.Header.Get("Authorization"))
		if r.URL.Path == "/start" {
			http.Redirect(w, r, other.URL+"/?back="+url.QueryEscape(home.URL+"/end"), http.StatusFound)
		}
	}))
	defer home.Close()
	u, _ := url.Parse(home.URL)
	hc := origin.Guard(nil, origin.Of(u), "sekrit")
	req, _ := http.NewRequest("GET", home.URL+"/start", nil)
	origin.Authorize(req, origin.Of(u), "sekrit")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if strings.Join(got, " ") != "home:Bearer sekrit other: home:Bearer sekrit" {
		t.Errorf("headers seen: %v", got)
	}
}

func TestRedact(t *testing.T) {
	// Longest first; a secret under MinRedactLen characters is left.
	if got := origin.Redact("key sekrit and sekrit, id 42, sekrit42", "42", "", "sekrit", "sekrit42"); got != "key [REDACTED] and [REDACTED], id 42, [REDACTED]" {
		t.Errorf("Redact: %q", got)
	}
}

// A secret is scrubbed as written and as JSON encoders and URLs escape it.
func TestSecretForms(t *testing.T) {
	key := "sk/<k>&é😀-1"
	forms := origin.NewSecret(key).Forms()
	for _, want := range []string{
		key,
		`sk/\u003ck\u003e\u0026é😀-1`,   // Go's json.Marshal
		`sk/<k>&\u00e9\ud83d\ude00-1`,  // Python's json.dumps
		`sk\/<k>&é😀-1`,                 // PHP's json_encode
		`sk\/<k>&\u00e9\ud83d\ude00-1`, // PHP's, ASCII only
		url.QueryEscape(key), url.PathEscape(key),
	} {
		if !slices.Contains(forms, want) {
			t.Errorf("form %q missing from %q", want, forms)
		}
	}
	if len(origin.NewSecret("short").Forms()) != 0 {
		t.Error("a key under 6 characters is scrubbed")
	}
	if got := origin.NewSecret("sk-plain-key-1").Forms(); len(got) != 1 {
		t.Errorf("a plain key has forms %q, want one", got)
	}
	s := origin.NewSecret("first-token")
	s.Add("second-token")
	s.Add("first-token")
	if got := s.Redact("first-token second-token"); got != "[REDACTED] [REDACTED]" || s.Value() != "first-token" {
		t.Errorf("two tokens: %q, value %q", got, s.Value())
	}
	if fmt.Sprintf("%v %#v %s", s, s, s) != "[REDACTED] [REDACTED] [REDACTED]" || origin.NewSecret().String() != "none" {
		t.Errorf("printed: %v", s)
	}
}

// Error scrubs an error's text, and the URL of a *url.Error, keeping its
// chain; RedactResponse scrubs the status line, header names and values.
func TestSecretError(t *testing.T) {
	const key = "sk-secret-key-1"
	s := origin.NewSecret(key)
	plain := errors.New("nothing here")
	if s.Error(plain) != plain || s.Error(nil) != nil {
		t.Error("an error without the key was changed")
	}
	err := fmt.Errorf("get: %w", fs.ErrNotExist)
	err = fmt.Errorf("%w (key %s)", err, key)
	if got := s.Error(err); strings.Contains(got.Error(), key) || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("wrapped: %v", got)
	}
	ue := &url.Error{Op: "Get", URL: "http://x/?k=" + key, Err: errors.New("refused " + key)}
	var got *url.Error
	if !errors.As(s.Error(ue), &got) || strings.Contains(got.URL, key) || strings.Contains(got.Err.Error(), key) {
		t.Errorf("url.Error: %v", s.Error(ue))
	}
	resp := &http.Response{Status: "401 " + key, Header: http.Header{"X-Echo": {"Bearer " + key}, "X-" + key: {"v"}}}
	s.RedactResponse(resp)
	if dump := fmt.Sprint(resp.Status, resp.Header); strings.Contains(dump, key) {
		t.Errorf("response: %s", dump)
	}
}

// A redirect loop is a final error after one round, not ten; Confine
// refuses a redirect to another origin, even one that would come back.
func TestGuardStops(t *testing.T) {
	var hits atomic.Int64
	var home *httptest.Server
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, home.URL+"/data", http.StatusFound)
	}))
	defer other.Close()
	home = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop2", http.StatusFound)
		case "/loop2":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/away":
			http.Redirect(w, r, other.URL, http.StatusFound)
		default:
			fmt.Fprint(w, "data")
		}
	}))
	defer home.Close()
	u, _ := url.Parse(home.URL)
	for _, tc := range []struct {
		name, path string
		confine    bool
		want       error
		hits       int64
	}{
		{"loop", "/loop", false, origin.ErrRedirectLoop, 2},
		{"away, guarded", "/away", false, nil, 3},
		{"away, confined", "/away", true, origin.ErrLeftOrigin, 1},
	} {
		hits.Store(0)
		hc := origin.Guard(nil, origin.Of(u), "sekrit")
		if tc.confine {
			hc = origin.Confine(nil, origin.Of(u))
		}
		resp, err := hc.Get(home.URL + tc.path)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, tc.want) || (tc.want != nil) != retry.IsFinal(err) || hits.Load() != tc.hits {
			t.Errorf("%s: %v (final %v), %d requests; want %v, %d", tc.name, err, retry.IsFinal(err), hits.Load(), tc.want, tc.hits)
		}
	}
}
