package jsonkind

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestNames(t *testing.T) {
	for raw, want := range map[string]string{
		`{}`: "an object", `[1]`: "an array", `"x"`: "a string", `1.5`: "a number",
		`true`: "a boolean", `null`: "null", `{`: "not JSON",
	} {
		if got := OfRaw([]byte(raw)); got != want {
			t.Errorf("OfRaw(%s) = %q, want %q", raw, got, want)
		}
		if want == "not JSON" {
			continue
		}
		if got := OfResult(gjson.Parse(raw)); got != want {
			t.Errorf("OfResult(%s) = %q, want %q", raw, got, want)
		}
		var v any
		dec := json.NewDecoder(bytesReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if got := Of(v); got != want {
			t.Errorf("Of(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := OfResult(gjson.Get(`{}`, "missing")); got != "nothing" {
		t.Errorf("missing: %q", got)
	}
}

func bytesReader(s string) *strings.Reader { return strings.NewReader(s) }
