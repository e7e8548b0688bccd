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
