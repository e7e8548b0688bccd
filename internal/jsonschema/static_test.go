package jsonschema_test

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/jsonschema"
)

var writeStatic = flag.Bool("write-static", false, "rewrite static_gen.go from the kinds' schemas (go generate)")

// kindSchemaTexts returns the schema of every kind assay registers, in
// kind order.
func kindSchemaTexts(t *testing.T) [][]byte {
	var out [][]byte
	for _, s := range repoSchemas(t) {
		if strings.HasPrefix(s.name, "kind ") && !strings.HasSuffix(s.name, " (lenient)") {
			out = append(out, s.src)
		}
	}
	if len(out) < 16 {
		t.Fatalf("%d kind schemas, want the sixteen", len(out))
	}
	return out
}

// TestStaticSchemas checks that static_gen.go holds the kinds' schemas as
// they are now: a schema changed without go generate, or the generated
// file edited by hand, fails it. With -write-static it rewrites the file
// instead (go generate ./internal/jsonschema runs it so).
func TestStaticSchemas(t *testing.T) {
	src, err := jsonschema.WriteStatic(kindSchemaTexts(t))
	if err != nil {
		t.Fatal(err)
	}
	if *writeStatic {
		if err := os.WriteFile("static_gen.go", src, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("static_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatal("static_gen.go is not what the kinds' schemas generate: run go generate ./internal/jsonschema")
	}
}

// Each precompiled schema is exactly what compiling its text gives, and
// Compile returns it rather than compiling again; a text one byte off is
// compiled.
func TestStaticSchemasAsCompiled(t *testing.T) {
	static := 0
	for _, text := range kindSchemaTexts(t) {
		got, err := jsonschema.Compile(text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jsonschema.CompileFromText(text)
		if err != nil {
			t.Fatal(err)
		}
		jsonschema.ResolvePatterns(got)
		jsonschema.ResolvePatterns(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.80s: the precompiled schema differs from the compiled one", text)
		}
		again, _ := jsonschema.Compile(text)
		if again != got {
			continue // compiled each time: not precompiled (a pattern or a bound)
		}
		static++
		edited := append(bytes.Clone(text), ' ')
		if other, err := jsonschema.Compile(edited); err != nil || other == got {
			t.Errorf("%.80s: a text with a space more is not compiled afresh (%v)", text, err)
		}
	}
	if want := len(kindSchemaTexts(t)); static != want {
		t.Errorf("%d kind schemas precompiled, want all %d", static, want)
	}
}
