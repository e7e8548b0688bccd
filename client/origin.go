package client

import "net/url"

// mustParse parses a base URL that parseBaseURL has accepted.
func mustParse(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic("client: base URL accepted but unparsable: " + err.Error())
	}
	return u
}
