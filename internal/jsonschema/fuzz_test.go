package jsonschema_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

var (
	oraclesOnce sync.Once
	oracles     []*oracle
)

// repoOracles compiles, with both validators, every repository schema and
// every schema of the keyword cases (which exercise the keywords the
// repository does not use).
func repoOracles(t testing.TB) []*oracle {
	oraclesOnce.Do(func() {
		for _, s := range repoSchemas(t) {
			oracles = append(oracles, compileBoth(t, s.name, s.src))
		}
		for _, tc := range keywordCases {
			oracles = append(oracles, compileBoth(t, "keyword case "+tc.name, []byte(tc.schema)))
		}
	})
	return oracles
}

// FuzzAgreesWithJSONSchemaV5 validates arbitrary JSON documents against
// every repository schema and every keyword case's schema with both
// validators: same verdict, same leaf violations. Seeded from the
// repository corpus and the keyword cases.
func FuzzAgreesWithJSONSchemaV5(f *testing.F) {
	seeds := 0
	for _, file := range repoCorpus(f) {
		for _, d := range subdocuments(file.value, 8) {
			b, err := json.Marshal(d)
			if err == nil && len(b) < 4096 {
				f.Add(b)
				seeds++
			}
		}
	}
	for _, tc := range keywordCases {
		f.Add([]byte(tc.doc))
	}
	os := repoOracles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ok := decodeAny(data, false)
		if !ok {
			return
		}
		for _, o := range os {
			if diff, _ := o.agree(doc); diff != "" {
				t.Fatalf("%s\ninstance %s", diff, data)
			}
		}
	})
}

// FuzzCompile compiles arbitrary schema bytes and validates a few
// documents with what compiles: compile errors are fine, panics are not.
func FuzzCompile(f *testing.F) {
	for _, s := range repoSchemas(f) {
		f.Add(s.src)
	}
	for _, tc := range keywordCases {
		f.Add([]byte(tc.schema))
	}
	f.Add([]byte(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"items":{"$ref":"#"}}}}`))
	f.Add([]byte(`{"$ref":"#/enum/0","enum":[{"type":"string"}]}`))
	docs := []any{
		nil, true, json.Number("1"), json.Number("1.5e3"), "text",
		[]any{json.Number("1"), "a", []any{}, map[string]any{}},
		map[string]any{"assert": "exit_code", "a": map[string]any{"b": []any{nil, json.Number("-2")}}, "": "x"},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := jsonschema.Compile(data)
		if err != nil {
			if s != nil {
				t.Fatal("a schema and an error")
			}
			return
		}
		for _, d := range docs {
			for _, v := range s.Validate(d) {
				if v.Message == "" {
					t.Fatalf("violation without a message: %+v", v)
				}
			}
		}
	})
}

// FuzzSchemasAgreeWithJSONSchemaV5 compiles an arbitrary schema with both
// validators and, when both accept it, validates an arbitrary document
// with both: same leaf violations. (This package refuses more schemas than
// jsonschema/v5, by design: see the package documentation.)
func FuzzSchemasAgreeWithJSONSchemaV5(f *testing.F) {
	for _, tc := range keywordCases {
		f.Add([]byte(tc.schema), []byte(tc.doc))
	}
	f.Fuzz(func(t *testing.T, schema, instance []byte) {
		doc, ok := decodeAny(instance, false)
		if !ok {
			return
		}
		ours, err := jsonschema.Compile(schema)
		if err != nil {
			return
		}
		if root, ok := decodeAny(schema, false); !ok || hasKey(root, "$id") || hasHugeCount(root) {
			// jsonschema/v5 recurses until the stack overflows (a fatal
			// error, not a panic) on some $id values, {"$id": "?"} for
			// one; this package ignores a root $id. And it reads counts
			// (minLength, ...) through float64 into int, which wraps
			// past 2^63; this package reads them exactly.
			return
		}
		// jsonschema/v5 asserts format in a schema without $schema: name
		// 2020-12 for it, where format is an annotation (a documented
		// difference).
		v5src := schema
		if root, ok := decodeAny(schema, false); ok {
			if m, ok := root.(map[string]any); ok {
				m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
				if b, err := json.Marshal(m); err == nil {
					v5src = b
				}
			}
		}
		var theirs *oracle
		func() {
			defer func() { _ = recover() }()
			if s, err := compileV5(v5src); err == nil {
				theirs = &oracle{"fuzzed", ours, s}
			}
		}()
		if theirs == nil {
			return
		}
		if diff, _ := theirs.agree(doc); diff != "" {
			t.Fatalf("%s\nschema %s\ninstance %s", diff, schema, instance)
		}
	})
}

// hasKey reports whether any object in v has the member key.
func hasKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == key || hasKey(c, key) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasKey(c, key) {
				return true
			}
		}
	}
	return false
}

// hasHugeCount reports whether a count keyword in v is beyond 2^53.
func hasHugeCount(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			switch k {
			case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
				if n, ok := c.(json.Number); ok {
					if f, err := n.Float64(); err != nil || f > 1<<53 {
						return true
					}
				}
			}
			if hasHugeCount(c) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if hasHugeCount(c) {
				return true
			}
		}
	}
	return false
}
