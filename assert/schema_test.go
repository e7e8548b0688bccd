package assert_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
)

// validationCase is one schema, one instance and the violations expected,
// each written "pointer: message" as Violation.String writes them.
type validationCase struct {
	name   string
	schema string
	doc    string
	want   []string
}

// The wording of jsonschema/v5 kept, keyword by keyword, and the places
// where Validator rewords it (see its doc).
var validationCases = []validationCase{
	// type
	{"type string ok", `{"type":"string"}`, `"x"`, nil},
	{"type string bad", `{"type":"string"}`, `1`, []string{`/: must be a string, not a number`}},
	{"type integer 1.0", `{"type":"integer"}`, `1.0`, nil},
	{"type integer 1e2", `{"type":"integer"}`, `1e2`, nil},
	{"type integer 1.5", `{"type":"integer"}`, `1.5`, []string{`/: must be a whole number, not a fraction`}},
	{"type integer 300e-2", `{"type":"integer"}`, `300e-2`, nil},
	{"type list", `{"type":["string","null"]}`, `true`, []string{`/: must be a string or null, not a boolean`}},
	{"type of a list says of what", `{"properties":{"contains":{"type":"array","items":{"type":"string"},"minItems":1}}}`, `{"contains":"hi"}`, []string{`/contains: must be a non-empty list of strings, not a string`}},
	{"type stops other keywords", `{"type":"string","required":["a"],"allOf":[false]}`, `{}`, []string{`/: must be a string, not an object`}},
	// enum and const
	{"enum strings", `{"enum":["easy","medium","hard"]}`, `"x"`, []string{`/: value must be one of "easy", "medium", "hard"`}},
	{"enum one", `{"enum":["easy"]}`, `"x"`, []string{`/: value must be "easy"`}},
	{"enum numbers equal by value", `{"enum":[1,2]}`, `1.0`, nil},
	{"enum numbers", `{"enum":[1,2.5,null,true]}`, `3`, []string{`/: value must be one of 1, 2.5, null, true`}},
	{"enum object", `{"enum":[{"a":1},[1]]}`, `{"a":2}`, []string{`/: enum failed`}},
	// jsonschema/v5 formats this message with the values as the format:
	// "value must be one of "50%!"(MISSING), "a%!b(MISSING)"".
	{"enum with percent signs", `{"enum":["50%","a%b","%%"]}`, `"x"`, []string{`/: value must be one of "50%", "a%b", "%%"`}},
	{"enum one with a percent sign", `{"enum":["100%"]}`, `"x"`, []string{`/: value must be "100%"`}},
	{"enum through a $ref", `{"$defs":{"e":{"enum":["a%d","b"]}},"properties":{"k":{"$ref":"#/$defs/e"}}}`, `{"k":"x"}`, []string{`/k: value must be one of "a%d", "b"`}},
	{"enum under an escaped name", `{"properties":{"a b/c":{"enum":["%s"]}}}`, `{"a b/c":1}`, []string{`/a b~1c: value must be "%s"`}},
	{"const string", `{"const":"portal-state-match"}`, `"x"`, []string{`/: value must be "portal-state-match"`}},
	{"const with a percent sign", `{"const":"50%"}`, `"x"`, []string{`/: value must be "50%"`}},
	{"const null", `{"const":null}`, `0`, []string{`/: value must be null`}},
	// objects
	{"required", `{"required":["path","b"]}`, `{"b":1}`, []string{`/: missing required key "path"`}},
	{"required two", `{"required":["path","it's"]}`, `{}`, []string{`/: missing required keys "path" and "it's"`}},
	{"properties", `{"properties":{"a":{"type":"string"},"b/c":{"type":"string"}}}`, `{"a":1,"b/c":2,"d":3}`,
		[]string{`/a: must be a string, not a number`, `/b~1c: must be a string, not a number`}},
	{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"y":3,"x":2}`,
		[]string{`/x: unknown key "x"`, `/y: unknown key "y"`}},
	{"unknown keys quoted and escaped", `{"additionalProperties":false}`, `{"it's":1,"q\"z":2,"%d":3,"a/b":4,"é\u0001":5,"":6,"a b":7}`,
		[]string{`/: unknown key ""`, `/%d: unknown key "%d"`, `/a b: unknown key "a b"`, `/a~1b: unknown key "a/b"`, `/it's: unknown key "it's"`, `/q"z: unknown key "q\"z"`, `/é` + "\x01" + `: unknown key "é\x01"`}},
	{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"x":3}`,
		[]string{`/x: must be a string, not a number`}},
	{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ok":1,"Bad":2}`, []string{`/Bad: a key must match the regular expression ^[a-z]+$`}},
	{"dependentRequired", `{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"c":1}`, []string{`/: missing required key "b" (needed when "a" is given)`}},
	// arrays
	{"items", `{"items":{"type":"integer"}}`, `[1,"x",2,true]`, []string{`/1: must be a whole number, not a string`, `/3: must be a whole number, not a boolean`}},
	{"prefixItems", `{"prefixItems":[{"type":"string"}],"items":false}`, `["a",2]`, []string{`/1: not allowed`}},
	{"minItems", `{"minItems":1}`, `[]`, []string{`/: must not be empty`}},
	{"minItems 2", `{"minItems":2}`, `[1]`, []string{`/: needs at least 2 items (it has 1)`}},
	{"maxItems", `{"maxItems":1}`, `[1,2]`, []string{`/: may hold at most 1 item (it has 2)`}},
	{"minProperties", `{"minProperties":1}`, `{}`, []string{`/: must not be empty`}},
	{"uniqueItems", `{"uniqueItems":true}`, `[1,2,1.0]`, []string{`/: items 0 and 2 are the same: each item must be different`}},
	{"contains empty", `{"contains":{"type":"string"}}`, `[]`, []string{`/: needs at least 1 item of the form it must contain (it has 0)`}},
	// strings
	{"minLength code points", `{"minLength":3}`, `"é😀"`, []string{`/: must be at least 3 characters long (it has 2)`}},
	{"minLength 1", `{"minLength":1}`, `""`, []string{`/: must not be empty`}},
	{"maxLength", `{"maxLength":2}`, `"abc"`, []string{`/: must be at most 2 characters long (it has 3)`}},
	{"pattern", `{"pattern":"^[A-Z][A-Za-z0-9]{0,63}$"}`, `"patient"`, []string{`/: must match the regular expression ^[A-Z][A-Za-z0-9]{0,63}$`}},
	{"pattern described", `{"properties":{"resource_type":{"pattern":"^[A-Z]","description":"a FHIR resource type, such as Patient"}}}`, `{"resource_type":"patient"}`,
		[]string{`/resource_type: must be a FHIR resource type, such as Patient`}},
	{"format is an annotation", `{"$schema":"https://json-schema.org/draft/2020-12/schema","format":"date-time"}`, `"not a date"`, nil},
	{"format is an annotation without $schema", `{"format":"email"}`, `"not an address"`, nil},
	// numbers
	{"minimum", `{"minimum":0}`, `-1`, []string{`/: must be at least 0, not -1`}},
	{"maximum", `{"maximum":1.5}`, `2`, []string{`/: must be at most 1.5, not 2`}},
	{"multipleOf", `{"multipleOf":0.01}`, `1.005`, []string{`/: must be a multiple of 0.01, not 1.005`}},
	{"a large exponent is read", `{"type":"integer","minimum":0}`, `1e999999`, nil},
	// jsonschema/v5 would crash on these.
	{"an exponent past a million", `{"type":"integer"}`, `1e10000000`, []string{`/: the number 1e10000000 is beyond what can be checked (a power of ten past a million)`}},
	{"an exponent past a million, deep", `{"items":{"minimum":0}}`, `[1,{"a":[-1e-1000001]}]`, []string{`/1/a/0: the number -1e-1000001 is beyond what can be checked (a power of ten past a million)`}},
	// combinators
	// A oneOf or anyOf none of whose branches fit is one message, not each
	// branch's complaint as if all applied.
	{"anyOf: the branch whose type fits", `{"anyOf":[{"type":"string"},{"type":"array","minItems":1}]}`, `[]`,
		[]string{`/: must not be empty`}},
	{"oneOf: no type fits", `{"additionalProperties":{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"},"minItems":1}]}}`, `{"a":1}`,
		[]string{`/a: must be a string or a non-empty list of strings`}},
	{"oneOf: no type fits, through $ref", `{"$defs":{"l":{"type":"array","items":{"type":"integer"}}},"oneOf":[{"type":"boolean"},{"$ref":"#/$defs/l"}]}`, `"x"`,
		[]string{`/: must be true or false or a list of whole numbers`}},
	{"oneOf: a bad item of the list branch", `{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}`, `["a",2]`,
		[]string{`/1: must be a string, not a number`}},
	{"oneOf: one of the required keys", `{"oneOf":[{"required":["path"]},{"required":["path_pattern"]}]}`, `{}`,
		[]string{`/: needs "path" or "path_pattern"`}},
	{"anyOf: required sets", `{"anyOf":[{"required":["a","b"]},{"required":["c"]}]}`, `{"d":1}`,
		[]string{`/: needs "a" and "b" or "c"`}},
	{"oneOf: nested in an item", `{"items":{"type":"object","oneOf":[{"required":["key"]},{"required":["path"]}]}}`, `[{"key":"x"},{"expected":1}]`,
		[]string{`/1: needs "key" or "path"`}},
	{"oneOf two", `{"oneOf":[{"required":["path"]},{"required":["path_pattern"]}]}`, `{"path":1,"path_pattern":2}`,
		[]string{`/: give exactly one of "path", "path_pattern", not several`}},
	{"not", `{"not":{"type":"string"}}`, `"x"`, []string{`/: has a form that is not allowed here`}},
	{"boolean false", `false`, `1`, []string{`/: not allowed`}},
	// references and locations
	{"$ref recursive", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}},"n":{"type":"integer"}}}`, `{"kids":[{"kids":[{"n":"x"}]}]}`,
		[]string{`/kids/0/kids/0/n: must be a whole number, not a string`}},
	{"unevaluatedProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, []string{`/b: unknown key "b"`}},
	{"pointer escapes", `{"additionalProperties":{"type":"string"}}`, `{"a b/c~d%e":1}`, []string{`/a b~1c~0d%e: must be a string, not a number`}},
	// jsonschema/v5 drops the empty token of a member named "".
	{"empty key", `{"properties":{"":{"type":"string"}}}`, `{"":1}`, []string{`/: must be a string, not a number`}},
	// ... except for an empty key refused by propertyNames, told by its length.
	{"empty key refused", `{"properties":{"search":{"propertyNames":{"minLength":1}}}}`, `{"search":{"":"x","a":"y"}}`, []string{`/search/: a key must not be empty`}},
	{"deep array", `{"items":{"items":{"type":"string"}}}`, `[[],["a",1]]`, []string{`/1/1: must be a string, not a number`}},
}

func decodeNumbers(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestValidatorWording(t *testing.T) {
	for _, tc := range validationCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := assert.NewValidator("case", []byte(tc.schema), false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range v.Validate(decodeNumbers(t, tc.doc), nil) {
				got = append(got, x.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("schema %s\ninstance %s\n got %q\nwant %q", tc.schema, tc.doc, got, tc.want)
			}
		})
	}
}

// Violations of a document converted from YAML carry the line and column
// of the value, or of the key for an unknown key, or of the nearest
// ancestor with a position.
func TestValidatorPositions(t *testing.T) {
	v, err := assert.NewValidator("case", []byte(`{"properties":{"a":{"type":"string"},"b":{"enum":["1%"]}},"additionalProperties":false}`), false)
	if err != nil {
		t.Fatal(err)
	}
	pos := assert.Positions{"": {Line: 1, Column: 1}, "/a": {Line: 2, Column: 4}, "/typo": {Line: 3, Column: 1}}
	got := v.Validate(decodeNumbers(t, `{"a":1,"b":"x","typo":2}`), pos)
	want := []assert.Violation{
		{Pointer: "/a", Line: 2, Column: 4, Message: "must be a string, not a number"},
		{Pointer: "/b", Line: 1, Column: 1, Message: `value must be "1%"`},
		{Pointer: "/typo", Line: 3, Column: 1, Message: `unknown key "typo"`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("violation %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Lenient validators accept unknown keys; a schema that is not JSON, does
// not compile, or refers outside itself is an error naming the schema.
func TestNewValidator(t *testing.T) {
	open, err := assert.NewValidator("open", []byte(`{"type":"object","properties":{"a":{"type":"object","additionalProperties":false}},"additionalProperties":false}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if got := open.Validate(decodeNumbers(t, `{"a":{"x":1},"y":2}`), nil); len(got) != 0 {
		t.Errorf("lenient: %v", got)
	}
	if string(open.Schema()) != `{"type":"object","properties":{"a":{"type":"object","additionalProperties":false}},"additionalProperties":false}` {
		t.Errorf("Schema() = %s, not the schema as given", open.Schema())
	}
	for name, schema := range map[string]string{
		"not JSON":         `{"type":`,
		"two values":       `{} {}`,
		"bad keyword":      `{"type": 5}`,
		"remote reference": `{"$ref": "https://example.com/other.json"}`,
		"file reference":   `{"$ref": "file:///etc/passwd"}`,
	} {
		if _, err := assert.NewValidator("bad "+name, []byte(schema), false); err == nil || !strings.Contains(err.Error(), `schema "bad `+name+`"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
