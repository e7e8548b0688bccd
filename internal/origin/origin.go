// Package origin compares URLs by origin (scheme, host and port, default
// ports made explicit) and keeps an HTTP client's credentials to one
// origin across redirects (DESIGN.md section 10, section 12 rule 12): net/http
// alone compares host names only, so it would send a key to another port of
// the same host or over plain http.
package origin

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Origin is a URL's scheme, host and port: https://api.example.com and
// https://API.example.com:443 are one origin; http://api.example.com,
// https://api.example.com:8443 and https://sub.api.example.com are three
// others.
type Origin struct {
	Scheme, Host, Port string
}

// Of returns u's origin.
func Of(u *url.URL) Origin {
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Port: u.Port()}
	if o.Port == "" {
		switch o.Scheme {
		case "http":
			o.Port = "80"
		case "https":
			o.Port = "443"
		}
	}
	// A trailing dot names the same host ("example.com." is
	// "example.com"); an IPv6 literal compares in its canonical form.
	o.Host = strings.TrimSuffix(o.Host, ".")
	if ip := net.ParseIP(o.Host); ip != nil {
		o.Host = ip.String()
	}
	return o
}

// String writes the origin as scheme://host:port.
func (o Origin) String() string { return o.Scheme + "://" + net.JoinHostPort(o.Host, o.Port) }

// MaxRedirects is how many redirects a guarded client follows, as
// net/http's default does.
const MaxRedirects = 10

// Guard returns a copy of hc whose requests carry "Authorization: Bearer
// key" only to home: a redirect to another scheme, host or port is followed
// without it, and one back to home gets it again. hc's own CheckRedirect,
// if any, still decides whether to follow. An empty key sends no header.
func Guard(hc *http.Client, home Origin, key string) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	guarded := *hc
	next := hc.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		Authorize(req, home, key)
		if next != nil {
			return next(req, via)
		}
		if len(via) >= MaxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &guarded
}

// Authorize sets req's Authorization header to the bearer key when req goes
// to home, and removes it otherwise.
func Authorize(req *http.Request, home Origin, key string) {
	if key != "" && req.URL != nil && Of(req.URL) == home {
		req.Header.Set("Authorization", "Bearer "+key)
		return
	}
	req.Header.Del("Authorization")
}

// Redact replaces every occurrence of each secret in s with "[redacted]",
// longest secrets first (so one that holds another is not left half
// written). Empty secrets are ignored.
func Redact(s string, secrets ...string) string {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, k := range secrets {
		if k != "" {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}
