// Package origin compares URLs by origin (scheme, host and port, default
// ports made explicit) and keeps an HTTP client's credentials to one
// origin across redirects (DESIGN.md section 10, section 12 rule 12): net/http
// alone compares host names only, so it would send a key to another port of
// the same host or over plain http. Confine, for clients that read
// evidence, refuses a redirect to another origin outright (rule 18); both
// stop a redirect loop as a final error, never retried (rule 17).
//
// Secret scrubs a client's credentials, in every spelling a server may
// echo them in, from whatever the client reports (rule 18): the criteria
// API client, the FHIR client and the Chat Completions client share it.
package origin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/assaykit/assay/internal/retry"
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

// ErrRedirectLoop is wrapped (through retry.Final) by the error of a
// request whose redirects come back to a URL already visited, or go on past
// MaxRedirects: no retry heals it, so clients never send it again.
var ErrRedirectLoop = errors.New("a redirect loop")

// ErrLeftOrigin is wrapped (through retry.Final) by the error of a request
// that Confine stopped: a redirect to another origin.
var ErrLeftOrigin = errors.New("a redirect to another origin")

// Guard returns a copy of hc whose requests carry "Authorization: Bearer
// key" only to home: a redirect to another scheme, host or port is followed
// without it, and one back to home gets it again. A redirect back to a URL
// already visited, or past MaxRedirects, is a final error (ErrRedirectLoop).
// hc's own CheckRedirect, if any, still decides whether to follow. An empty
// key sends no header.
func Guard(hc *http.Client, home Origin, key string) *http.Client {
	return guard(hc, home, key, false)
}

// Confine is for clients that read evidence: a redirect to another origin
// is not followed at all but is a final error (ErrLeftOrigin), since what
// another origin says is not the evidence asked for (DESIGN.md section 12
// rule 18); a redirect within home keeps the headers net/http copies to
// the same host, Authorization included. Redirect loops stop as Guard
// stops them.
func Confine(hc *http.Client, home Origin) *http.Client {
	return guard(hc, home, "", true)
}

func guard(hc *http.Client, home Origin, key string, confine bool) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	guarded := *hc
	next := hc.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if confine && Of(req.URL) != home {
			return retry.Final(fmt.Errorf("%w: %s is not on %s", ErrLeftOrigin, Of(req.URL), home))
		}
		if !confine {
			Authorize(req, home, key)
		}
		if next != nil {
			return next(req, via)
		}
		for _, v := range via {
			if v.URL.String() == req.URL.String() {
				return retry.Final(fmt.Errorf("%w: back to a URL already visited", ErrRedirectLoop))
			}
		}
		if len(via) >= MaxRedirects {
			return retry.Final(fmt.Errorf("%w: stopped after %d redirects", ErrRedirectLoop, MaxRedirects))
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

// Redact replaces every form of each secret in s (as Secret has them) with
// "[REDACTED]". Secrets shorter than MinRedactLen are left.
func Redact(s string, secrets ...string) string {
	return NewSecret(secrets...).Redact(s)
}
