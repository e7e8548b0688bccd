package client

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// origin is a URL's scheme, host and port, with the scheme's default port
// made explicit: https://api.example.com and https://API.example.com:443
// are one origin; http://api.example.com, https://api.example.com:8443 and
// https://sub.api.example.com are three others.
type origin struct {
	scheme, host, port string
}

func originOf(u *url.URL) origin {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port()}
	if o.port == "" {
		switch o.scheme {
		case "http":
			o.port = "80"
		case "https":
			o.port = "443"
		}
	}
	// A trailing dot names the same host ("example.com." is
	// "example.com"); an IPv6 literal compares in its canonical form.
	o.host = strings.TrimSuffix(o.host, ".")
	if ip := net.ParseIP(o.host); ip != nil {
		o.host = ip.String()
	}
	return o
}

// mustParse parses a base URL that parseBaseURL has accepted.
func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic("client: base URL accepted but unparsable: " + err.Error())
	}
	return u
}

// maxRedirects is how many redirects a call follows, as net/http's default.
const maxRedirects = 10

// guardRedirects returns a copy of hc whose redirects carry the
// Authorization header only to the base URL's origin: a redirect to another
// scheme (https to http, or http to https), host or port is followed
// without it, and one back to the origin gets it again. net/http alone
// compares host names only, so it would send the key to another port of the
// same host or over plain http. The caller's CheckRedirect, if any, still
// decides whether to follow.
func (c *Client) guardRedirects(hc *http.Client) *http.Client {
	guarded := *hc
	next := hc.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		c.authorize(req)
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &guarded
}

// authorize sets the Authorization header of req when req goes to the base
// URL's origin and removes it otherwise.
func (c *Client) authorize(req *http.Request) {
	if c.key.value != "" && req.URL != nil && originOf(req.URL) == c.origin {
		req.Header.Set("Authorization", "Bearer "+c.key.value)
		return
	}
	req.Header.Del("Authorization")
}
