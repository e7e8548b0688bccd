package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

// keywordCase is one schema, one instance and the violations expected,
// each written "pointer: message". The differential test checks every case
// against jsonschema/v5 too.
type keywordCase struct {
	name   string
	schema string
	doc    string
	want   []string
}

var keywordCases = []keywordCase{
	// type
	{"type string ok", `{"type":"string"}`, `"x"`, nil},
	{"type string bad", `{"type":"string"}`, `1`, []string{`: expected string, but got number`}},
	{"type integer 1.0", `{"type":"integer"}`, `1.0`, nil},
	{"type integer 1e2", `{"type":"integer"}`, `1e2`, nil},
	{"type integer 1.5", `{"type":"integer"}`, `1.5`, []string{`: expected integer, but got number`}},
	{"type integer 15e-1", `{"type":"integer"}`, `15e-1`, []string{`: expected integer, but got number`}},
	{"type integer 150e-2", `{"type":"integer"}`, `150e-2`, []string{`: expected integer, but got number`}},
	{"type integer 300e-2", `{"type":"integer"}`, `300e-2`, nil},
	{"type integer -0.0", `{"type":"integer"}`, `-0.0`, nil},
	{"type integer string", `{"type":"integer"}`, `"1"`, []string{`: expected integer, but got string`}},
	{"type list", `{"type":["string","null"]}`, `true`, []string{`: expected string or null, but got boolean`}},
	{"type null", `{"type":"null"}`, `null`, nil},
	{"type object", `{"type":"object"}`, `[]`, []string{`: expected object, but got array`}},
	{"type stops other keywords", `{"type":"string","required":["a"],"allOf":[false]}`, `{}`, []string{`: expected string, but got object`}},
	// enum and const
	{"enum strings", `{"enum":["easy","medium","hard"]}`, `"x"`, []string{`: value must be one of "easy", "medium", "hard"`}},
	{"enum one", `{"enum":["easy"]}`, `"x"`, []string{`: value must be "easy"`}},
	{"enum numbers equal by value", `{"enum":[1,2]}`, `1.0`, nil},
	{"enum numbers", `{"enum":[1,2.5,null,true]}`, `3`, []string{`: value must be one of "1", "2.5", <nil>, true`}},
	{"enum object", `{"enum":[{"a":1},[1]]}`, `{"a":2}`, []string{`: enum failed`}},
	{"enum object ok", `{"enum":[{"a":1},[1]]}`, `{"a":1.0}`, nil},
	{"enum empty", `{"enum":[]}`, `1`, nil},
	{"const string", `{"const":"portal-state-match"}`, `"x"`, []string{`: value must be "portal-state-match"`}},
	{"const null", `{"const":null}`, `0`, []string{`: value must be <nil>`}},
	{"const null ok", `{"const":null}`, `null`, nil},
	{"const object", `{"const":{"a":[1]}}`, `{"a":[2]}`, []string{`: const failed`}},
	{"const escapes", `{"const":"a\"b\n"}`, `"x"`, []string{`: value must be "a\"b\n"`}},
	// objects
	{"required", `{"required":["path","b"]}`, `{"b":1}`, []string{`: missing properties: 'path'`}},
	{"required two", `{"required":["path","it's"]}`, `{}`, []string{`: missing properties: 'path', 'it\'s'`}},
	{"required not object", `{"required":["a"]}`, `[]`, nil},
	{"properties", `{"properties":{"a":{"type":"string"},"b/c":{"type":"string"}}}`, `{"a":1,"b/c":2,"d":3}`,
		[]string{`/a: expected string, but got number`, `/b~1c: expected string, but got number`}},
	{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"x":2,"y":3}`,
		[]string{`: additionalProperties 'x', 'y' not allowed`}},
	{"additionalProperties schema", `{"properties":{"a":{}},"patternProperties":{"^p":{}},"additionalProperties":{"type":"string"}}`, `{"a":1,"p1":2,"x":3}`,
		[]string{`/x: expected string, but got number`}},
	{"additionalProperties with patternProperties false", `{"patternProperties":{"^p":{"type":"integer"}},"additionalProperties":false}`, `{"p1":2.5,"q":3}`,
		[]string{`: additionalProperties 'q' not allowed`, `/p1: expected integer, but got number`}},
	{"patternProperties", `{"patternProperties":{"^a":{"minLength":2},"b$":{"maxLength":1}}}`, `{"ab":"x","c":"zzz"}`,
		[]string{`/ab: length must be >= 2, but got 1`}},
	{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"ok":1,"Bad":2}`, []string{`/Bad: does not match pattern '^[a-z]+$'`}},
	{"minProperties", `{"minProperties":2}`, `{"a":1}`, []string{`: minimum 2 properties allowed, but found 1 properties`}},
	{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":2}`, []string{`: maximum 1 properties allowed, but found 2 properties`}},
	{"dependentRequired", `{"dependentRequired":{"a":["b","c"]}}`, `{"a":1,"c":1}`, []string{`: property 'b' is required, if 'a' property exists`}},
	{"dependentRequired absent", `{"dependentRequired":{"a":["b"]}}`, `{"c":1}`, nil},
	{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, []string{`: missing properties: 'b'`}},
	// arrays
	{"items", `{"items":{"type":"integer"}}`, `[1,"x",2,true]`, []string{`/1: expected integer, but got string`, `/3: expected integer, but got boolean`}},
	{"prefixItems", `{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, `["a",1,2]`, []string{`/2: not allowed`}},
	{"prefixItems short", `{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `[1]`, []string{`/0: expected string, but got number`}},
	{"minItems", `{"minItems":1}`, `[]`, []string{`: minimum 1 items required, but found 0 items`}},
	{"maxItems", `{"maxItems":1}`, `[1,2]`, []string{`: maximum 1 items required, but found 2 items`}},
	{"uniqueItems", `{"uniqueItems":true}`, `[1,2,{"a":1},1.0,{"a":1}]`, []string{`: items at index 0 and 3 are equal`}},
	{"uniqueItems ok", `{"uniqueItems":true}`, `[1,"1",[1],{"a":1},{"a":2}]`, nil},
	{"uniqueItems long", `{"uniqueItems":true}`, `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,5]`, []string{`: items at index 5 and 22 are equal`}},
	{"uniqueItems long objects", `{"uniqueItems":true}`, `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,{"a":1,"b":[2]},"x",{"b":[2.0],"a":1e0}]`, []string{`: items at index 21 and 23 are equal`}},
	{"uniqueItems long ok", `{"uniqueItems":true}`, `[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"0",[0],{"0":0},null,true,false]`, nil},
	{"contains", `{"contains":{"type":"string"}}`, `[1,2]`, []string{`/0: expected string, but got number`, `/1: expected string, but got number`}},
	{"contains empty", `{"contains":{"type":"string"}}`, `[]`, []string{`: valid must be >= 1, but got 0`}},
	{"contains ok", `{"contains":{"type":"string"}}`, `[1,"a"]`, nil},
	{"minContains", `{"contains":{"type":"string"},"minContains":2}`, `["a",1]`, []string{`/1: expected string, but got number`}},
	{"minContains all match", `{"contains":{"type":"string"},"minContains":3}`, `["a","b"]`, []string{`: valid must be >= 3, but got 2`}},
	{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a","b",1]`, []string{`: valid must be <= 1, but got 2`}},
	{"minContains 0", `{"contains":{"type":"string"},"minContains":0}`, `[1]`, nil},
	// strings
	{"minLength code points", `{"minLength":3}`, `"é😀"`, []string{`: length must be >= 3, but got 2`}},
	{"maxLength", `{"maxLength":1}`, `"ab"`, []string{`: length must be <= 1, but got 2`}},
	{"pattern", `{"pattern":"^[A-Z][A-Za-z0-9]{0,63}$"}`, `"patient"`, []string{`: does not match pattern '^[A-Z][A-Za-z0-9]{0,63}$'`}},
	{"pattern unanchored", `{"pattern":"b"}`, `"abc"`, nil},
	{"pattern quote", `{"pattern":"^'\\d"}`, `"x"`, []string{`: does not match pattern '^\'\\d'`}},
	{"format is an annotation", `{"$schema":"https://json-schema.org/draft/2020-12/schema","format":"date-time"}`, `"not a date"`, nil},
	// numbers
	{"minimum", `{"minimum":0}`, `-1`, []string{`: must be >= 0 but found -1`}},
	{"minimum exact", `{"minimum":0.1}`, `0.1`, nil},
	{"minimum decimal", `{"minimum":0.3}`, `0.29999999999999999999`, []string{`: must be >= 0.3 but found 0.29999999999999999999`}},
	{"maximum", `{"maximum":1.5}`, `2`, []string{`: must be <= 1.5 but found 2`}},
	{"exclusiveMinimum", `{"exclusiveMinimum":0}`, `0`, []string{`: must be > 0 but found 0`}},
	{"exclusiveMaximum", `{"exclusiveMaximum":10}`, `1e1`, []string{`: must be < 10 but found 1e1`}},
	{"multipleOf", `{"multipleOf":0.01}`, `1.005`, []string{`: 1.005 not multipleOf 0.01`}},
	{"multipleOf exact", `{"multipleOf":0.1}`, `0.3`, nil},
	{"numbers skip strings", `{"minimum":5}`, `"1"`, nil},
	// combinators
	{"allOf", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`, []string{`: missing properties: 'a'`, `: missing properties: 'b'`}},
	{"anyOf fails", `{"anyOf":[{"type":"string"},{"type":"array","minItems":1}]}`, `[]`,
		[]string{`: expected string, but got array`, `: minimum 1 items required, but found 0 items`}},
	{"anyOf ok", `{"anyOf":[{"type":"string"},{"type":"array"}]}`, `[]`, nil},
	{"oneOf none", `{"oneOf":[{"required":["path"]},{"required":["path_pattern"]}]}`, `{}`,
		[]string{`: missing properties: 'path'`, `: missing properties: 'path_pattern'`}},
	{"oneOf two", `{"oneOf":[{"required":["path"]},{"required":["path_pattern"]},{"type":"string"}]}`, `{"path":1,"path_pattern":2}`,
		[]string{`: valid against schemas at indexes 0 and 1`}},
	{"oneOf one", `{"oneOf":[{"required":["path"]},{"required":["path_pattern"]}]}`, `{"path":1}`, nil},
	{"not", `{"not":{"type":"string"}}`, `"x"`, []string{`: not failed`}},
	{"not ok", `{"not":{"type":"string"}}`, `1`, nil},
	{"if then", `{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, []string{`: missing properties: 'b'`}},
	{"if else", `{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{}`, []string{`: missing properties: 'c'`}},
	{"then without if", `{"then":false}`, `1`, nil},
	{"boolean false", `false`, `1`, []string{`: not allowed`}},
	{"boolean true", `true`, `{"a":[1]}`, nil},
	{"nested false", `{"properties":{"a":false}}`, `{"a":1}`, []string{`/a: not allowed`}},
	// references
	{"$ref defs", `{"$defs":{"p":{"type":"integer","minimum":0}},"properties":{"a":{"$ref":"#/$defs/p"}}}`, `{"a":-1}`, []string{`/a: must be >= 0 but found -1`}},
	{"$ref anchor", `{"$defs":{"p":{"$anchor":"pos","type":"integer"}},"items":{"$ref":"#pos"}}`, `[1,"x"]`, []string{`/1: expected integer, but got string`}},
	{"$ref recursive", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}},"n":{"type":"integer"}}}`, `{"kids":[{"kids":[{"n":"x"}]}]}`,
		[]string{`/kids/0/kids/0/n: expected integer, but got string`}},
	{"$ref with siblings", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":2}`, `"a"`, []string{`: length must be >= 2, but got 1`}},
	{"$ref escaped pointer", `{"$defs":{"a/b":{"type":"string"},"c%d":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c%25d"}}}`, `{"x":1,"y":"z"}`,
		[]string{`/x: expected string, but got number`, `/y: expected integer, but got string`}},
	{"$ref into properties", `{"properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a"}}}`, `{"b":1}`, []string{`/b: expected string, but got number`}},
	// unevaluated
	{"unevaluatedProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, []string{`/b: not allowed`}},
	{"unevaluatedProperties allOf", `{"allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`, []string{`/b: not allowed`}},
	{"unevaluatedProperties failed branch", `{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`, `{"a":1,"b":2}`,
		[]string{`/a: not allowed`}},
	{"unevaluatedProperties if then", `{"if":{"properties":{"k":{"const":1}}},"then":{"properties":{"t":{}}},"else":{"properties":{"e":{}}},"unevaluatedProperties":false}`, `{"k":1,"t":1,"e":1}`,
		[]string{`/e: not allowed`}},
	{"unevaluatedProperties if else", `{"if":{"properties":{"k":{"const":1}},"required":["k"]},"then":{"properties":{"t":{}}},"else":{"properties":{"e":{}}},"unevaluatedProperties":false}`, `{"k":2,"t":1,"e":1}`,
		[]string{`/k: not allowed`, `/t: not allowed`}},
	{"unevaluatedProperties $ref", `{"$defs":{"b":{"properties":{"a":{}}}},"$ref":"#/$defs/b","unevaluatedProperties":{"type":"integer"}}`, `{"a":"x","z":"y"}`,
		[]string{`/z: expected integer, but got string`}},
	{"unevaluatedProperties dependentSchemas", `{"dependentSchemas":{"a":{"properties":{"b":{}}}},"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2,"c":3}`,
		[]string{`/c: not allowed`}},
	{"unevaluatedProperties additionalProperties", `{"allOf":[{"additionalProperties":true}],"unevaluatedProperties":false}`, `{"a":1}`, nil},
	{"unevaluatedProperties nested unevaluated", `{"allOf":[{"properties":{"a":{}},"unevaluatedProperties":{"type":"string"}}],"unevaluatedProperties":false}`, `{"a":1,"b":"x"}`, nil},
	{"unevaluatedProperties oneOf", `{"oneOf":[{"properties":{"a":{"const":1}},"required":["a"]},{"properties":{"b":{}},"required":["b"]}],"unevaluatedProperties":false}`, `{"a":1,"c":1}`,
		[]string{`/c: not allowed`}},
	{"unevaluatedProperties not", `{"not":{"not":{"properties":{"a":{}}}},"unevaluatedProperties":false}`, `{"a":1}`, []string{`/a: not allowed`}},
	{"unevaluatedItems", `{"prefixItems":[{}],"unevaluatedItems":false}`, `[1,2]`, []string{`/1: not allowed`}},
	{"unevaluatedItems items", `{"allOf":[{"items":true}],"unevaluatedItems":false}`, `[1,2]`, nil},
	{"unevaluatedItems contains", `{"contains":{"type":"string"},"unevaluatedItems":{"type":"integer"}}`, `["a",1,true]`, []string{`/2: expected integer, but got boolean`}},
	{"unevaluatedItems anyOf", `{"anyOf":[{"prefixItems":[{"type":"string"}]},{"prefixItems":[true,true]}],"unevaluatedItems":false}`, `["a",2,3]`, []string{`/2: not allowed`}},
	// annotations and unknown keywords
	{"annotations ignored", `{"title":"t","description":"d","$comment":"c","default":1,"examples":[1],"deprecated":true,"readOnly":true,"writeOnly":false,"contentMediaType":"application/json","contentEncoding":"base64","x-vendor":{"type":"string"}}`, `"not base64 {"`, nil},
	{"$id root", `{"$id":"https://example.com/s.json","$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`, `1`, []string{`: expected string, but got number`}},
	{"$schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`, `1`, []string{`: expected string, but got number`}},
	// locations
	{"empty key", `{"propertyNames":{"minLength":1},"properties":{"":{"type":"string"}}}`, `{"":1}`,
		[]string{`/: expected string, but got number`, `/: length must be >= 1, but got 0`}},
	{"pointer escapes", `{"additionalProperties":{"type":"string"}}`, `{"a b/c~d%e":1}`, []string{`/a b~1c~0d%e: expected string, but got number`}},
	{"deep array", `{"items":{"items":{"type":"string"}}}`, `[[],["a",1]]`, []string{`/1/1: expected string, but got number`}},
}

func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestKeywords(t *testing.T) {
	for _, tc := range keywordCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := jsonschema.Compile([]byte(tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range s.Validate(decodeJSON(t, tc.doc)) {
				got = append(got, v.InstanceLocation+": "+v.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("schema %s\ninstance %s\n got %q\nwant %q", tc.schema, tc.doc, got, tc.want)
			}
		})
	}
}

func TestKeywordsAgreeWithV5(t *testing.T) {
	for _, tc := range keywordCases {
		o := compileBoth(t, tc.name, []byte(tc.schema))
		diff, skip := o.agree(decodeJSON(t, tc.doc))
		if skip && tc.name == "empty key" {
			continue // a known difference: see hasEmptyKey
		}
		if diff != "" || skip {
			t.Errorf("%s (skip %v): %s", tc.name, skip, diff)
		}
	}
}

// TestKeywordCasesCrossAgreeWithV5 validates every keyword case's instance
// against every keyword case's schema with both validators.
func TestKeywordCasesCrossAgreeWithV5(t *testing.T) {
	var docs []any
	for _, tc := range keywordCases {
		docs = append(docs, decodeJSON(t, tc.doc))
	}
	failures := 0
	for _, tc := range keywordCases {
		o := compileBoth(t, tc.name, []byte(tc.schema))
		for _, d := range docs {
			if diff, _ := o.agree(d); diff != "" {
				failures++
				if failures < 10 {
					t.Errorf("%s", diff)
				}
			}
		}
	}
}
