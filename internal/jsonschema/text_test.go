package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

// decodeStd decodes data as the callers of CompileValue do (encoding/json,
// UseNumber), false when it is not one JSON value.
func decodeStd(data []byte) (any, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// checkParse requires the text reader to agree with encoding/json on
// whether data is JSON and on the value, in both modes.
func checkParse(t *testing.T, data []byte) {
	t.Helper()
	want, valid := decodeStd(data)
	for _, open := range []bool{false, true} {
		got, ok := jsonschema.ParseText(data, open)
		if ok != valid {
			t.Fatalf("open=%v: read %v, json.Valid %v: %q", open, ok, valid, data)
		}
		if !ok {
			continue
		}
		w := want
		if open {
			w, _ = decodeStd(data)
			w = jsonschema.OpenObjects(w)
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("open=%v: read %#v, encoding/json %#v: %q", open, got, w, data)
		}
		if err := jsonschema.CheckPointers(data, open); err != nil {
			t.Fatalf("open=%v: %v: %q", open, err, data)
		}
	}
}

var parseCases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `truex`, `0`, `-0`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `1E-7`,
	`-12.5e+30`, `12345678901234567890`, `1.0`, `1e3`, `"a"`, `"`, `"\"`, `"\u00e9\n\t\/\\\""`, `"\x"`, `"\'"`,
	`"\u12"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\xfe\"", "\"caf\xc3\xa9\"",
	"\"a\x01\"", "\"a\x7f\"", `[]`, `[`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{1:2}`,
	`{"a":1 "b":2}`, ` {"a" : [ 1 , {"b":null} ] } `, `{} {}`, `{}x`, "\ufeff{}", `{"a":1,"a":2}`,
	`{"a":{"x":1},"b":[1,2],"a":true}`, `{"additionalProperties":false,"unevaluatedProperties":false,"x":{"additionalProperties":false}}`,
	`{"additionalProperties":false,"additionalProperties":true}`, `{"additionalProperties":true,"additionalProperties":false}`,
	`{"enum":[{"additionalProperties":false}],"const":{"unevaluatedProperties":false,"additionalProperties":0}}`,
	`{"a/b":{"~c":[{"":1}]}}`, `[[[[[]]]]]`, "\t\r\n[1]\n",
}

func TestParseTextAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range parseCases {
		checkParse(t, []byte(c))
	}
	many := `{` + strings.Repeat(`"k":1,`, 20)
	for i := 0; i < 40; i++ {
		many += fmt.Sprintf(`"m%d":{"additionalProperties":false},`, i%25)
	}
	checkParse(t, []byte(many+`"k":2}`))
	for _, s := range repoSchemas(t) {
		checkParse(t, s.src)
	}
}

// TestParseTextDepth: encoding/json's limit of 10,000 levels of nesting.
func TestParseTextDepth(t *testing.T) {
	for _, depth := range []int{10000, 10001} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			doc := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth))
			_, ok := jsonschema.ParseText(doc, false)
			if ok != json.Valid(doc) || ok != (depth <= 10000) {
				t.Errorf("depth %d of %s: read %v, json.Valid %v", depth, open, ok, json.Valid(doc))
			}
		}
	}
}

// FuzzParseText: the text reader never panics, accepts exactly what
// encoding/json accepts and reads the same values (OpenObjects applied in
// open mode), and every value's pointer leads back to it.
func FuzzParseText(f *testing.F) {
	for _, c := range parseCases {
		f.Add([]byte(c))
	}
	for _, s := range repoSchemas(f) {
		f.Add(s.src)
	}
	for _, tc := range keywordCases {
		f.Add([]byte(tc.schema))
		f.Add([]byte(tc.doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data)
	})
}

// sameCompileError compares two compile errors by what they say.
func sameCompileError(a, b error) string {
	if (a == nil) != (b == nil) {
		return fmt.Sprintf("%v != %v", a, b)
	}
	if a == nil {
		return ""
	}
	var ca, cb *jsonschema.CompileError
	if !errors.As(a, &ca) || !errors.As(b, &cb) {
		return fmt.Sprintf("not a *CompileError: %v, %v", a, b)
	}
	if ca.Pointer != cb.Pointer || ca.Keyword != cb.Keyword || ca.Message != cb.Message {
		return fmt.Sprintf("%v != %v", a, b)
	}
	return ""
}

// checkCompileErrors requires Compile, CompileOpen and CompileValue to
// fail, or not, exactly as the compiler did before it read a tree.
func checkCompileErrors(t *testing.T, data []byte) {
	t.Helper()
	doc, ok := decodeStd(data)
	if !ok {
		for _, compile := range []func([]byte) (*jsonschema.Schema, error){jsonschema.Compile, jsonschema.CompileOpen} {
			s, err := compile(data)
			var ce *jsonschema.CompileError
			if s != nil || !errors.As(err, &ce) || ce.Syntax == nil || !strings.HasPrefix(ce.Message, "schema is not JSON: ") {
				t.Fatalf("not JSON %q: got %v, %v", data, s, err)
			}
		}
		return
	}
	before := jsonschema.CompileErrorBefore(doc)
	_, err := jsonschema.Compile(data)
	if d := sameCompileError(err, before); d != "" {
		t.Fatalf("Compile: %s\nschema %s", d, data)
	}
	doc, _ = decodeStd(data)
	_, err = jsonschema.CompileValue(doc)
	if d := sameCompileError(err, before); d != "" {
		t.Fatalf("CompileValue: %s\nschema %s", d, data)
	}
	doc, _ = decodeStd(data)
	before = jsonschema.CompileErrorBefore(jsonschema.OpenObjects(doc))
	_, err = jsonschema.CompileOpen(data)
	if d := sameCompileError(err, before); d != "" {
		t.Fatalf("CompileOpen: %s\nschema %s", d, data)
	}
}

var compileErrorCases = []string{
	`{"$defs":{"~2":{"$anchor":"x"}},"$ref":"#/$defs/~2"}`,
	`{"allOf":[{"type":"string"},{"$ref":"#/allOf/+1"}]}`,
	`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"items":{"$ref":"#"}}}}`,
	`{"$ref":"#/enum/0","enum":[{"type":"string"}]}`,
	`{"$ref":"#/enum/0","enum":[{"type":"text"}]}`,
	`{"properties":{"a":{"$ref":"#/additionalProperties"}},"additionalProperties":false}`,
	`{"properties":{"a":{"$ref":"#/properties/b/additionalProperties"},"b":{"additionalProperties":false}}}`,
	`{"properties":{"a":{"additionalProperties":false,"minLength":-1}}}`,
	`{"type":"string","type":"text"}`, `{"type":"text","type":"string"}`,
	`{"$defs":{"a":{"$anchor":"x"}},"properties":{"b":{"$anchor":"x"}}}`,
	`{"properties":{"a/b":{"items":{"type":1}}}}`, `{"items":[{}],"prefixItems":[{"type":2}]}`,
	`{"x-ui":{"$ref":"#/nope"}}`, `{"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"}`,
	`{"minLength":1e3,"maxLength":1.0,"minItems":12345678901234567890,"maxItems":1e400,"minContains":-0}`,
	`{"minimum":1e999999999,"multipleOf":1e-400}`, `{"const":"%d","enum":[1,"a",null,{"b":[]}]}`,
	`{"$id":"https://x/","$schema":"https://json-schema.org/draft/2020-12/schema#"}`,
	`{"dependentRequired":{"a":["b","b"]}}`, `{"patternProperties":{"(":{}}, "pattern":"("}`,
}

func TestCompileErrorsAsBefore(t *testing.T) {
	for _, c := range compileErrorCases {
		checkCompileErrors(t, []byte(c))
	}
	for _, c := range parseCases {
		checkCompileErrors(t, []byte(c))
	}
	for _, tc := range keywordCases {
		checkCompileErrors(t, []byte(tc.schema))
	}
	for _, s := range repoSchemas(t) {
		checkCompileErrors(t, s.src)
	}
}

// FuzzCompileErrorsAsBefore: for any schema, Compile, CompileOpen and
// CompileValue fail exactly as the compiler did before it read a tree
// (same pointer, keyword and message), or compile as it did.
func FuzzCompileErrorsAsBefore(f *testing.F) {
	for _, c := range compileErrorCases {
		f.Add([]byte(c))
	}
	for _, tc := range keywordCases {
		f.Add([]byte(tc.schema))
	}
	for _, s := range repoSchemas(f) {
		f.Add(s.src)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCompileErrors(t, data)
	})
}

// TestCompileEntriesAgree: Compile and CompileValue of the decoded text,
// and CompileOpen and CompileValue of the decoded text with OpenObjects
// applied, validate the repository corpus, mutations of every spec in it
// and the keyword cases' documents identically, against every repository
// schema and keyword case schema.
func TestCompileEntriesAgree(t *testing.T) {
	type pair struct {
		name      string
		text, val *jsonschema.Schema
	}
	var pairs []pair
	add := func(name string, src []byte) {
		text, err := jsonschema.Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, _ := decodeStd(src)
		val, err := jsonschema.CompileValue(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pairs = append(pairs, pair{name, text, val})
		open, err := jsonschema.CompileOpen(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, _ = decodeStd(src)
		openVal, err := jsonschema.CompileValue(jsonschema.OpenObjects(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pairs = append(pairs, pair{name + " (open)", open, openVal})
	}
	for _, s := range repoSchemas(t) {
		add(s.name, s.src)
	}
	for _, tc := range keywordCases {
		add("keyword case "+tc.name, []byte(tc.schema))
	}
	var docs []any
	for _, f := range repoCorpus(t) {
		docs = append(docs, subdocuments(f.value, 40)...)
		for _, spec := range specsIn(f.value) {
			docs = append(docs, mutations(spec, 20)...)
		}
	}
	for _, tc := range keywordCases {
		if d, ok := decodeStd([]byte(tc.doc)); ok {
			docs = append(docs, d)
		}
	}
	checked, invalid := 0, 0
	for _, p := range pairs {
		for _, d := range docs {
			got, want := p.text.Validate(d), p.val.Validate(d)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: text %+v, value %+v", p.name, got, want)
			}
			checked++
			if len(got) > 0 {
				invalid++
			}
		}
	}
	if invalid == 0 || invalid == checked {
		t.Fatalf("%d of %d validations failed: both verdicts are not exercised", invalid, checked)
	}
	t.Logf("%d schemas, %d validations agree (%d invalid)", len(pairs), checked, invalid)
}
