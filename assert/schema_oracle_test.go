package assert_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v5 "github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"

	"github.com/assaykit/assay/assert"
	_ "github.com/assaykit/assay/clitask"
	_ "github.com/assaykit/assay/fhir"
	_ "github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/internal/jsonschema"
	_ "github.com/assaykit/assay/portal"
	_ "github.com/assaykit/assay/sftp"
	_ "github.com/assaykit/assay/voice"
	_ "github.com/assaykit/assay/x12"
)

// oldValidator is assert's Validator as it was when it validated with
// jsonschema/v5: the oracle that proves the switch to internal/jsonschema
// changed nothing assert prints.
type oldValidator struct{ s *v5.Schema }

func newOldValidator(t *testing.T, schema []byte) *oldValidator {
	t.Helper()
	c := v5.NewCompiler()
	c.Draft = v5.Draft2020
	const u = "https://schemas.assaykit.dev/old.json"
	if err := c.AddResource(u, bytes.NewReader(schema)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(u)
	if err != nil {
		t.Fatal(err)
	}
	return &oldValidator{s}
}

var oldAdditionalProps = regexp.MustCompile(`'((?:[^']|'')*)'`)

func (o *oldValidator) validate(doc any, pos assert.Positions) []assert.Violation {
	err := o.s.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *v5.ValidationError
	if !errors.As(err, &ve) {
		return []assert.Violation{{Message: err.Error()}}
	}
	var out []assert.Violation
	var collect func(ve *v5.ValidationError)
	collect = func(ve *v5.ValidationError) {
		if len(ve.Causes) > 0 {
			for _, c := range ve.Causes {
				collect(c)
			}
			return
		}
		loc := unescapeOld(ve.InstanceLocation)
		kw := ve.KeywordLocation
		if strings.HasSuffix(kw, "/additionalProperties") || strings.HasSuffix(kw, "/unevaluatedProperties") {
			if names := oldAdditionalProps.FindAllStringSubmatch(ve.Message, -1); len(names) > 0 {
				for _, m := range names {
					out = append(out, assert.Violation{Pointer: loc + "/" + assert.EscapePointer(m[1]), Message: fmt.Sprintf("unknown key %q", m[1])})
				}
				return
			}
		}
		out = append(out, assert.Violation{Pointer: loc, Message: ve.Message})
	}
	collect(ve)
	seen := map[string]bool{}
	uniq := out[:0]
	for _, x := range out {
		key := x.Pointer + "\x00" + x.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		if p, ok := findPosition(pos, x.Pointer); ok {
			x.Line, x.Column = p.Line, p.Column
		}
		uniq = append(uniq, x)
	}
	sort.SliceStable(uniq, func(i, j int) bool { return uniq[i].Pointer < uniq[j].Pointer })
	return uniq
}

// unescapeOld turns jsonschema/v5's percent-encoded pointer into RFC 6901.
func unescapeOld(ptr string) string {
	if ptr == "" {
		return ""
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		if u, err := url.PathUnescape(tok); err == nil {
			toks[i] = u
		}
	}
	return "/" + strings.Join(toks, "/")
}

func findPosition(p assert.Positions, ptr string) (assert.Position, bool) {
	if p == nil {
		return assert.Position{}, false
	}
	for {
		if pos, ok := p[ptr]; ok {
			return pos, true
		}
		if ptr == "" {
			return assert.Position{}, false
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

// plainKeys reports whether every key in v is one that jsonschema/v5
// neither percent-encoded nor quoted with escapes, nor empty: the keys
// where the old output was exact (internal/jsonschema's doc says what
// changed for the others).
func plainKeys(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "" || url.PathEscape(k) != k || strconv.Quote(k) != `"`+k+`"` || strings.ContainsAny(k, `'\`) || !plainKeys(c) {
				return false
			}
		}
	case []any:
		for _, c := range x {
			if !plainKeys(c) {
				return false
			}
		}
	}
	return true
}

// TestSchemaSwitchKeepsOutput validates the specs of the repository's
// testdata (JSON and YAML, with positions) and mutations of them against
// their kinds' schemas, strict and lenient, with assert.Validator and with
// the jsonschema/v5 implementation it replaced: the violations must be the
// same, in the same order, with the same lines and columns.
func TestSchemaSwitchKeepsOutput(t *testing.T) {
	type pair struct {
		ours *assert.Validator
		old  *oldValidator
	}
	validators := map[string][]pair{}
	for _, k := range assert.Kinds() {
		src, _ := assert.Schema(k)
		for _, lenient := range []bool{false, true} {
			v, err := assert.NewValidator(k, src, lenient)
			if err != nil {
				t.Fatal(err)
			}
			oldSrc := src
			if lenient {
				oldSrc = openObjects(t, src)
			}
			validators[k] = append(validators[k], pair{v, newOldValidator(t, oldSrc)})
		}
	}
	type doc struct {
		where string
		value any
		pos   assert.Positions
	}
	var docs []doc
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		slashed := filepath.ToSlash(path)
		if !strings.Contains(slashed, "/testdata/") && !strings.HasPrefix(slashed, "../examples/") {
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
		switch filepath.Ext(path) {
		case ".json":
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var v any
			if dec.Decode(&v) == nil {
				docs = append(docs, doc{slashed, v, nil})
			}
		case ".yaml", ".yml":
			var n yaml.Node
			if yaml.Unmarshal(data, &n) == nil {
				if y, err := assert.ConvertYAML(&n); err == nil {
					docs = append(docs, doc{slashed, y.Value, y.Positions})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	compared, invalid := 0, 0
	compare := func(where string, spec map[string]any, pos assert.Positions) {
		kind, _ := spec["assert"].(string)
		for _, p := range validators[kind] {
			got, want := p.ours.Validate(spec, pos), p.old.validate(spec, pos)
			compared++
			if len(want) > 0 {
				invalid++
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: kind %s (-old +new):\n%s", where, kind, diff)
			}
		}
	}
	for _, d := range docs {
		var walk func(v any, ptr string)
		walk = func(v any, ptr string) {
			switch x := v.(type) {
			case map[string]any:
				if _, ok := x["assert"].(string); ok && plainKeys(x) {
					// Positions are keyed from the document root: re-root them.
					compare(d.where, x, reroot(d.pos, ptr))
					for _, m := range mutate(x) {
						compare(d.where+" (mutated)", m, reroot(d.pos, ptr))
					}
				}
				for k, c := range x {
					walk(c, ptr+"/"+assert.EscapePointer(k))
				}
			case []any:
				for i, c := range x {
					walk(c, assert.IndexPointer(ptr, i))
				}
			}
		}
		walk(d.value, "")
	}
	if compared < 100 || invalid == 0 {
		t.Fatalf("only %d comparisons (%d invalid): the corpus was not found", compared, invalid)
	}
	t.Logf("%d documents, %d validations compared, %d of them invalid", len(docs), compared, invalid)
}

// reroot returns the positions below ptr, keyed relative to it.
func reroot(pos assert.Positions, ptr string) assert.Positions {
	if pos == nil {
		return nil
	}
	out := assert.Positions{}
	for k, v := range pos {
		if k == ptr || strings.HasPrefix(k, ptr+"/") {
			out[k[len(ptr):]] = v
		}
	}
	return out
}

// mutate returns copies of spec with each top-level key dropped, unknown
// keys added and each top-level value replaced by one of another type.
func mutate(spec map[string]any) []map[string]any {
	cp := func() map[string]any {
		var m map[string]any
		b, _ := json.Marshal(spec)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		_ = dec.Decode(&m)
		return m
	}
	var out []map[string]any
	for k := range spec {
		m := cp()
		delete(m, k)
		out = append(out, m)
		for _, nv := range []any{"text", json.Number("7"), json.Number("2.5"), true, nil, []any{}, map[string]any{"zz": json.Number("1")}} {
			m := cp()
			m[k] = nv
			out = append(out, m)
		}
	}
	m := cp()
	m["expect"], m["zz_unknown"] = "x", json.Number("1")
	out = append(out, m)
	return out
}

func openObjects(t *testing.T, src []byte) []byte {
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
