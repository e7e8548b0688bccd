package specjson

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/check"
)

// Every reader agrees with encoding/json decoding the same text into the
// types decoders used before, duplicates included.
func TestAgreesWithEncodingJSON(t *testing.T) {
	for _, text := range []string{
		`{"s": "a", "list": ["x", "y"], "obj": {"k": "1", "j": ["2"]}, "fields": [{"path": "a.b", "expected": 12.50}, {"path": "c", "expected": null}]}`,
		`{"s": "first", "s": "last", "obj": {"k": "1", "k": "2"}, "list": [], "fields": []}`,
		`{"s": "\u00e9\t\"q\"", "list": null, "obj": null, "fields": null}`,
		`{}`,
	} {
		var want struct {
			S      string                     `json:"s"`
			List   []string                   `json:"list"`
			Obj    map[string]json.RawMessage `json:"obj"`
			Fields []check.Field              `json:"fields"`
		}
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		doc := gjson.Parse(text)
		if got := Member(doc, "s").String(); got != want.S {
			t.Errorf("%s: s = %q, want %q", text, got, want.S)
		}
		if got := Strings(Member(doc, "list")); !cmp.Equal(got, want.List) {
			t.Errorf("%s: list = %#v, want %#v", text, got, want.List)
		}
		obj := Object(Member(doc, "obj"))
		if len(obj) != len(want.Obj) || (obj == nil) != (want.Obj == nil) {
			t.Errorf("%s: obj = %v, want %s", text, obj, want.Obj)
		}
		for k, v := range want.Obj {
			if obj[k].Raw != string(v) {
				t.Errorf("%s: obj[%s] = %s, want %s", text, k, obj[k].Raw, v)
			}
		}
		fields, err := check.ParseFields([]byte(Member(doc, "fields").Raw))
		if err != nil || !cmp.Equal(fields, want.Fields) {
			t.Errorf("%s: fields = %#v, %v; want %#v", text, fields, err, want.Fields)
		}
	}
}

func TestMemberAbsent(t *testing.T) {
	if Member(gjson.Parse(`{"a": 1}`), "b").Exists() {
		t.Error("found a member that is not there")
	}
	if Member(gjson.Parse(`[1]`), "0").Exists() {
		t.Error("found a member of an array")
	}
}

func TestFieldsError(t *testing.T) {
	for _, list := range []string{`[{"path": "a", "expected": {"x": 1}}]`, `{"path": "a"}`, `"a"`} {
		if _, err := check.ParseFields([]byte(list)); err == nil {
			t.Errorf("%s was accepted", list)
		}
	}
}

func TestAt(t *testing.T) {
	spec := []byte(`{"verify": {"run": "a"}, "verify": {"run": "b", "run": "c"}}`)
	if got := At(spec, "verify", "run").String(); got != "c" {
		t.Errorf("verify.run = %q, want the last of the last: c", got)
	}
	if At(spec, "verify", "output_equals").Exists() || At(spec, "nothing", "run").Exists() {
		t.Error("found a member that is not there")
	}
}
