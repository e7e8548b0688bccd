package fhir

import (
	"net/url"
	"strings"
	"testing"
)

// readableQuery undoes exactly the escapes the strings.Replacer it
// replaced did, on every encoded value, escapes of "%" itself included.
func TestReadableQuery(t *testing.T) {
	replacer := strings.NewReplacer("%3A", ":", "%2F", "/", "%7C", "|", "%2C", ",", "%40", "@", "%24", "$")
	for _, v := range []string{
		"http://loinc.org|1234-5", "ge2024-01-01T00:00:00+01:00", "a,b@c$d", "100%3A", "%", "50%", "x%2",
		"Patient/p-1", "é ü", "", "%%3A%7C", "a b&c=d",
	} {
		q := url.Values{"k": {v}, v: {"x"}}.Encode()
		if got, want := readableQuery(q), replacer.Replace(q); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
	if got := readableQuery("a=%3a"); got != "a=%3a" {
		t.Errorf("lower-case hex, which url.Values never writes: %q", got)
	}
}
