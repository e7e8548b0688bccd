package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

// typicalCriterion is the first assertion of examples/priorauth.
const typicalCriterion = `{
  "assert": "fhir-resource-state",
  "resource_type": "Patient",
  "search": {"identifier": "http://acmehealth.example/member|W123456789"},
  "fields": [
    {"path": "name.0.family", "expected": "Doe"},
    {"path": "birthDate", "expected": "1984-03-12"}
  ]
}`

// kindSchemas returns the repository schemas and sets b's bytes per op to
// their size.
func kindSchemas(b *testing.B) [][]byte {
	var out [][]byte
	size := 0
	for _, s := range repoSchemas(b) {
		out = append(out, s.src)
		size += len(s.src)
	}
	b.SetBytes(int64(size))
	return out
}

// BenchmarkCompileAll compiles every repository schema (kinds, criterion,
// suites; strict and lenient) once per iteration.
func BenchmarkCompileAll(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		schemas := kindSchemas(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				if _, err := jsonschema.Compile(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("jsonschema-v5", func(b *testing.B) {
		schemas := kindSchemas(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				if _, err := compileV5(s); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkValidateCriterion validates a typical criterion (valid, and with
// a typo'd key and a wrong type) against the fhir-resource-state schema.
func BenchmarkValidateCriterion(b *testing.B) {
	src, _ := kindSchemaByName(b, "fhir-resource-state")
	o := compileBoth(b, "fhir-resource-state", src)
	valid := decodeJSON(b, typicalCriterion)
	invalid := deepCopy(valid).(map[string]any)
	invalid["expect"] = "x"
	invalid["resource_type"] = 7.0
	for _, c := range []struct {
		name string
		doc  any
		bad  bool
	}{{"valid", valid, false}, {"invalid", invalid, true}} {
		b.Run(c.name+"/ours", func(b *testing.B) {
			b.SetBytes(int64(len(typicalCriterion)))
			b.ReportAllocs()
			for b.Loop() {
				if got := o.ours.Validate(c.doc); (len(got) > 0) != c.bad {
					b.Fatal(got)
				}
			}
		})
		b.Run(c.name+"/jsonschema-v5", func(b *testing.B) {
			b.SetBytes(int64(len(typicalCriterion)))
			b.ReportAllocs()
			for b.Loop() {
				if err := o.v5.Validate(c.doc); (err != nil) != c.bad {
					b.Fatal(err)
				}
			}
		})
	}
}

func kindSchemaByName(b *testing.B, kind string) ([]byte, bool) {
	for _, s := range repoSchemas(b) {
		if s.name == "kind "+kind {
			return s.src, true
		}
	}
	b.Fatalf("no kind %q", kind)
	return nil, false
}

// BenchmarkCompileKind compiles each kind's schema from its text: "decode"
// is json.Valid, a decode with UseNumber and CompileValue (the path of
// assert.NewValidator before Compile read text itself), "text" is Compile,
// "open" CompileOpen (assert's lenient mode).
func BenchmarkCompileKind(b *testing.B) {
	for _, s := range repoSchemas(b) {
		kind, ok := strings.CutPrefix(s.name, "kind ")
		if !ok || strings.HasSuffix(kind, "(lenient)") {
			continue
		}
		src := s.src
		b.Run(kind+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if !json.Valid(src) {
					b.Fatal("not JSON")
				}
				dec := json.NewDecoder(bytes.NewReader(src))
				dec.UseNumber()
				var doc any
				if err := dec.Decode(&doc); err != nil {
					b.Fatal(err)
				}
				if _, err := jsonschema.CompileValue(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/text", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonschema.Compile(src); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(kind+"/open", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonschema.CompileOpen(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
