package spec

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// marshal encodes v as encoding/json does without HTML escaping.
func marshal(t testing.TB, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "a<b>&c", "quote\" back\\slash", "ctl\x00\x01\x1f\t\r\n\x7f", "é ✓ \u2028\u2029", "bad \xff utf8 \xed\xa0\x80", "emoji 😀"} {
		if got, want := string(appendString(nil, s)), marshal(t, s); got != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzValues checks that any string, and any number literal ParseNumber
// accepts, writes valid JSON that reads back as the same value, and that
// ParseNumber accepts exactly what encoding/json reads as one number.
func FuzzValues(f *testing.F) {
	for _, s := range []string{"", "a<b>", "\xff\xfe", "\u2028", "1", "-0.5e+10", "01", "1.", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s).String()
		if !json.Valid([]byte(out)) {
			t.Fatalf("String(%q) wrote invalid JSON %s", s, out)
		}
		if out != marshal(t, s) {
			t.Fatalf("String(%q) = %s, encoding/json writes %s", s, out, marshal(t, s))
		}
		// encoding/json reads s as exactly one number, with nothing around it.
		stdOK := json.Valid([]byte(s)) && strings.TrimSpace(s) == s
		if stdOK {
			dec := json.NewDecoder(strings.NewReader(s))
			dec.UseNumber()
			var v any
			_ = dec.Decode(&v)
			_, stdOK = v.(json.Number)
		}
		_, err := ParseNumber(s)
		if (err == nil) != stdOK {
			t.Fatalf("ParseNumber(%q) error %v, encoding/json reads a number: %v", s, err, stdOK)
		}
	})
}
