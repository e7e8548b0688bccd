package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/internal/jsonschema"

	// The domain packages register their kinds in the default registry.
	_ "github.com/assaykit/assay/fhir"
	_ "github.com/assaykit/assay/hl7"
	_ "github.com/assaykit/assay/portal"
	_ "github.com/assaykit/assay/sftp"
	_ "github.com/assaykit/assay/voice"
	_ "github.com/assaykit/assay/x12"
)

// namedSchema is one schema of the repository.
type namedSchema struct {
	name string
	src  []byte
}

// repoSchemas returns every schema assay validates with: each registered
// kind's, the criterion object's, the cli-bench suite's and the two that
// suite loading derives from it, each also in the lenient form (closed
// objects opened) that assert.AllowUnknownKeys uses.
func repoSchemas(t testing.TB) []namedSchema {
	t.Helper()
	var out []namedSchema
	r := assert.DefaultRegistry()
	kinds := r.Kinds()
	sort.Strings(kinds)
	for _, k := range kinds {
		s, ok := r.Schema(k)
		if !ok {
			t.Fatalf("kind %q has no schema", k)
		}
		out = append(out, namedSchema{"kind " + k, s})
	}
	out = append(out, namedSchema{"criterion", []byte(assert.CriterionSchema)})
	out = append(out, namedSchema{"suite", []byte(clitask.SuiteSchema)})
	suite, list := suiteLoadingSchemas(t)
	out = append(out, namedSchema{"suite (loading)", suite}, namedSchema{"task file (loading)", list})
	n := len(out)
	for _, s := range out[:n] {
		out = append(out, namedSchema{s.name + " (lenient)", lenient(t, s.src)})
	}
	return out
}

// suiteLoadingSchemas derives the two schemas clitask's loading compiles
// (clitask/schema.go, loadingValidators), the same way.
func suiteLoadingSchemas(t testing.TB) (suite, list []byte) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(clitask.SuiteSchema), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	assertProp := defs["task"].(map[string]any)["properties"].(map[string]any)["assert"].(map[string]any)
	delete(assertProp, "items")
	delete(defs, "assertion")
	suite, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	list, err = json.Marshal(map[string]any{
		"$schema": doc["$schema"],
		"title":   "cli-bench task file",
		"type":    "array",
		"items":   map[string]any{"$ref": "#/$defs/task"},
		"$defs":   defs,
	})
	if err != nil {
		t.Fatal(err)
	}
	return suite, list
}

// lenient drops every "additionalProperties": false and
// "unevaluatedProperties": false, as assert.NewValidator does in lenient mode.
func lenient(t testing.TB, src []byte) []byte {
	var doc any
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	jsonschema.OpenObjects(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusFile is one JSON or YAML file of the repository's testdata/ folders
// and examples/, decoded as assert decodes it.
type corpusFile struct {
	path  string
	value any
}

const repoRoot = "../.."

// repoCorpus reads every .json, .yaml and .yml file under a testdata/ folder
// or examples/ (at most 256 KB, fuzz corpora left out) that decodes.
func repoCorpus(t testing.TB) []corpusFile {
	t.Helper()
	var out []corpusFile
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if d.IsDir() {
			base := d.Name()
			if base == ".git" || base == "fuzz" || base == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		slashed := filepath.ToSlash(rel)
		if !strings.Contains(slashed, "testdata/") && !strings.HasPrefix(slashed, "examples/") {
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".json" && ext != ".yaml" && ext != ".yml" {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 256<<10 {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if v, ok := decodeAny(data, ext != ".json"); ok {
			out = append(out, corpusFile{slashed, v})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("only %d corpus files found under %s", len(out), repoRoot)
	}
	return out
}

// decodeAny decodes JSON with UseNumber, or YAML through assert.ConvertYAML.
func decodeAny(data []byte, isYAML bool) (any, bool) {
	if isYAML {
		var node yaml.Node
		if err := yaml.Unmarshal(data, &node); err != nil {
			return nil, false
		}
		doc, err := assert.ConvertYAML(&node)
		if err != nil {
			return nil, false
		}
		return doc.Value, true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, true
}

// subdocuments returns v and every object and array inside it, at most max.
func subdocuments(v any, max int) []any {
	var out []any
	var walk func(v any)
	walk = func(v any) {
		if len(out) >= max {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			out = append(out, x)
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			out = append(out, x)
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}

// specsIn returns the objects in v that look like specs ({"assert": KIND})
// or criteria ({"assertion": ...}).
func specsIn(v any) []map[string]any {
	var out []map[string]any
	for _, d := range subdocuments(v, 1<<20) {
		if m, ok := d.(map[string]any); ok {
			if _, ok := m["assert"].(string); ok {
				out = append(out, m)
			} else if _, ok := m["assertion"]; ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, c := range x {
			m[k] = deepCopy(c)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, c := range x {
			a[i] = deepCopy(c)
		}
		return a
	}
	return v
}

// mutations returns variants of v: at every object, each key dropped in
// turn and an unknown key added; at every value, a value of another type.
func mutations(v any, max int) []any {
	var out []any
	// paths to every node, as the chain of keys/indexes
	type step struct {
		key string
		idx int
	}
	var paths [][]step
	var walk func(v any, p []step)
	walk = func(v any, p []step) {
		paths = append(paths, append([]step(nil), p...))
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], append(p, step{key: k, idx: -1}))
			}
		case []any:
			for i, c := range x {
				walk(c, append(p, step{idx: i}))
			}
		}
	}
	walk(v, nil)
	at := func(root any, p []step) (parent any, last step, node any) {
		node = root
		for _, s := range p {
			parent, last = node, s
			if s.idx >= 0 {
				node = node.([]any)[s.idx]
			} else {
				node = node.(map[string]any)[s.key]
			}
		}
		return
	}
	set := func(parent any, s step, nv any) {
		if s.idx >= 0 {
			parent.([]any)[s.idx] = nv
		} else {
			parent.(map[string]any)[s.key] = nv
		}
	}
	for _, p := range paths {
		if len(out) >= max {
			break
		}
		_, _, node := at(v, p)
		if m, ok := node.(map[string]any); ok {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				c := deepCopy(v)
				_, _, n := at(c, p)
				delete(n.(map[string]any), k)
				out = append(out, c)
			}
			c := deepCopy(v)
			_, _, n := at(c, p)
			n.(map[string]any)["zz unknown/key~"] = json.Number("1")
			n.(map[string]any)["expect"] = "typo"
			out = append(out, c)
		}
		if len(p) == 0 {
			continue
		}
		for _, nv := range otherTypes(node) {
			c := deepCopy(v)
			parent, last, _ := at(c, p)
			set(parent, last, nv)
			out = append(out, c)
		}
	}
	return out
}

// otherTypes returns values of other JSON types than v's.
func otherTypes(v any) []any {
	all := []any{"text", json.Number("7"), json.Number("-1.5"), true, nil, []any{}, map[string]any{}, ""}
	var out []any
	for _, x := range all {
		if sameType(x, v) {
			continue
		}
		out = append(out, x)
	}
	return out
}

func sameType(a, b any) bool {
	switch a.(type) {
	case string:
		_, ok := b.(string)
		return ok
	case json.Number:
		_, ok := b.(json.Number)
		return ok
	case bool:
		_, ok := b.(bool)
		return ok
	case nil:
		return b == nil
	case []any:
		_, ok := b.([]any)
		return ok
	case map[string]any:
		_, ok := b.(map[string]any)
		return ok
	}
	return false
}
