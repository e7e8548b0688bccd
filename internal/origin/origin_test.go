package origin_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/origin"
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
	if got := origin.Redact("key sekrit and sekrit, id 42, sekrit42", "42", "", "sekrit", "sekrit42"); got != "key [redacted] and [redacted], id [redacted], [redacted]" {
		t.Errorf("Redact: %q", got)
	}
}
