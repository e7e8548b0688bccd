package jsonschema_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

// TestRepositorySchemasCompile compiles every schema assay validates with:
// each kind registered in the default registry (the domain packages
// imported), the criterion object's, the cli-bench suite's and the two
// suite loading derives, strict and lenient.
func TestRepositorySchemasCompile(t *testing.T) {
	schemas := repoSchemas(t)
	kinds := 0
	for _, s := range schemas {
		if strings.HasPrefix(s.name, "kind ") {
			kinds++
		}
		if _, err := jsonschema.Compile(s.src); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	t.Logf("%d schemas compiled, %d of them kinds' (strict and lenient)", len(schemas), kinds)
	// 10 cli-bench kinds and at least one per other domain package.
	if kinds < 2*(10+6) {
		t.Errorf("only %d kind schemas (strict and lenient) found: is a domain package missing from the imports?", kinds)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		pointer string
		keyword string
		message string
	}{
		{"not JSON", `{`, "", "", "not JSON"},
		{"trailing data", `{} {}`, "", "", "data after"},
		{"not a schema", `3`, "", "", "must be an object or a boolean"},
		{"dynamicRef", `{"properties":{"a":{"$dynamicRef":"#x"}}}`, "/properties/a", "$dynamicRef", "not supported"},
		{"dynamicAnchor", `{"$dynamicAnchor":"x"}`, "", "$dynamicAnchor", "not supported"},
		{"recursiveRef", `{"$recursiveRef":"#"}`, "", "$recursiveRef", "not supported"},
		{"vocabulary", `{"$vocabulary":{}}`, "", "$vocabulary", "not supported"},
		{"dependencies", `{"dependencies":{"a":["b"]}}`, "", "dependencies", "dependentRequired"},
		{"additionalItems", `{"items":{},"additionalItems":false}`, "", "additionalItems", "prefixItems"},
		{"items array", `{"items":[{}]}`, "", "items", "prefixItems"},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, "", "$ref", "same document"},
		{"relative ref", `{"$ref":"other.json#/a"}`, "", "$ref", "same document"},
		{"dangling pointer", `{"$ref":"#/$defs/nope"}`, "", "$ref", "points at nothing"},
		{"unknown anchor", `{"items":{"$ref":"#nope"}}`, "/items", "$ref", "no $anchor"},
		{"duplicate anchor", `{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, "/$defs/b", "$anchor", "defined twice"},
		{"bad anchor", `{"$anchor":"1x"}`, "", "$anchor", "plain name"},
		{"embedded $id", `{"$defs":{"a":{"$id":"https://x/"}}}`, "/$defs/a", "$id", "embedded"},
		{"other draft", `{"$schema":"http://json-schema.org/draft-07/schema#"}`, "", "$schema", "2020-12"},
		{"loop", `{"$ref":"#"}`, "", "", "loop"},
		{"loop through allOf", `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, "/$defs/a", "", "loop"},
		{"bad type", `{"type":"text"}`, "", "type", "unknown type"},
		{"bad type list", `{"type":["string","string"]}`, "", "type", "unique type names"},
		{"bad required", `{"required":"a"}`, "", "required", "unique strings"},
		{"bad minLength", `{"minLength":-1}`, "", "minLength", "non-negative integer"},
		{"fractional maxItems", `{"maxItems":1.5}`, "", "maxItems", "non-negative integer"},
		{"bad minimum", `{"minimum":"1"}`, "", "minimum", "number"},
		{"zero multipleOf", `{"multipleOf":0}`, "", "multipleOf", "greater than 0"},
		{"bad pattern", `{"pattern":"(?<=a)b"}`, "", "pattern", "regular expression"},
		{"bad patternProperties", `{"patternProperties":{"(":{}}}`, "", "patternProperties", "regular expression"},
		{"bad subschema", `{"properties":{"a":1}}`, "/properties/a", "", "object or a boolean"},
		{"empty allOf", `{"allOf":[]}`, "", "allOf", "non-empty array"},
		{"bad enum", `{"enum":1}`, "", "enum", "array"},
		{"bad annotation", `{"title":1}`, "", "title", "string"},
		{"bad uniqueItems", `{"uniqueItems":"yes"}`, "", "uniqueItems", "boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsonschema.Compile([]byte(tc.schema))
			var ce *jsonschema.CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *CompileError", err)
			}
			if ce.Pointer != tc.pointer || ce.Keyword != tc.keyword || !strings.Contains(ce.Message, tc.message) {
				t.Errorf("got pointer %q keyword %q message %q (%v), want %q %q containing %q", ce.Pointer, ce.Keyword, ce.Message, err, tc.pointer, tc.keyword, tc.message)
			}
			if !strings.HasPrefix(err.Error(), "jsonschema: ") {
				t.Errorf("Error() = %q", err)
			}
		})
	}
}

// TestUnknownKeywordsIgnored: keywords that are no JSON Schema keyword at
// all are ignored, and subschemas under them can still be referenced.
func TestUnknownKeywordsIgnored(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"x-ui":{"widget":"text"},"definitions":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(map[string]any{"a": "x"})
	if len(got) != 1 || got[0].InstanceLocation != "/a" || got[0].Message != "expected integer, but got string" ||
		got[0].KeywordLocation != "/properties/a/$ref/type" {
		t.Errorf("got %+v", got)
	}
}

// TestOtherNumberTypes: float64 and Go integers are numbers too.
func TestOtherNumberTypes(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"type":"integer","minimum":2,"enum":[2,3]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{2, int64(3), uint8(2), 2.0, float32(3)} {
		if got := s.Validate(v); got != nil {
			t.Errorf("%T %v: %+v", v, v, got)
		}
	}
	if got := s.Validate(1.5); len(got) != 1 || got[0].Message != "expected integer, but got number" {
		t.Errorf("1.5: %+v", got)
	}
	if got := s.Validate(struct{}{}); len(got) != 1 || !strings.Contains(got[0].Message, "invalid JSON value") {
		t.Errorf("struct{}: %+v", got)
	}
}

// TestHugeNumbers: exponents math/big refuses are no panic.
func TestHugeNumbers(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"type":"integer","minimum":0,"uniqueItems":true,"enum":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(decodeJSON(t, `1e99999999999`))
	if len(got) == 0 {
		t.Fatal("no violation")
	}
	if got := s.Validate(decodeJSON(t, `1.5e-99999999999`)); len(got) == 0 || got[0].Message != "expected integer, but got number" {
		t.Errorf("got %+v", got)
	}
}

// TestKeywordLocation: the evaluation path, through $ref.
func TestKeywordLocation(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"$defs":{"f":{"type":"object","required":["key"],"additionalProperties":false,"properties":{"key":{}}}},
		"properties":{"fields":{"type":"array","items":{"$ref":"#/$defs/f"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := s.Validate(decodeJSON(t, `{"fields":[{"x":1}]}`))
	want := []jsonschema.Violation{
		{InstanceLocation: "/fields/0", KeywordLocation: "/properties/fields/items/$ref/required", Message: "missing properties: 'key'"},
		{InstanceLocation: "/fields/0", KeywordLocation: "/properties/fields/items/$ref/additionalProperties", Message: "additionalProperties 'x' not allowed", Properties: []string{"x"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.InstanceLocation != w.InstanceLocation || g.KeywordLocation != w.KeywordLocation || g.Message != w.Message || strings.Join(g.Properties, ",") != strings.Join(w.Properties, ",") {
			t.Errorf("%d: got %+v, want %+v", i, g, w)
		}
	}
}

// TestConcurrentValidate validates with one Schema from many goroutines
// (run with -race): a Schema is immutable.
func TestConcurrentValidate(t *testing.T) {
	s, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"unevaluatedProperties":false,"required":["a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	docs := []any{decodeJSON(t, `{"a":"x"}`), decodeJSON(t, `{"a":1.5,"b":1}`), decodeJSON(t, `{}`)}
	want := make([]int, len(docs))
	for i, d := range docs {
		want[i] = len(s.Validate(d))
	}
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			ok := true
			for i := 0; i < 200; i++ {
				for j, d := range docs {
					if len(s.Validate(d)) != want[j] {
						ok = false
					}
				}
			}
			done <- ok
		}()
	}
	for g := 0; g < 8; g++ {
		if !<-done {
			t.Error("a concurrent validation gave another result")
		}
	}
}
