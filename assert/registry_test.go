package assert_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func TestDecodeShapes(t *testing.T) {
	r := assert.NewRegistry()
	var got assert.Spec
	r.Register("exit_code", []byte(`{
	  "type": "object", "required": ["assert", "exit_code"], "additionalProperties": false,
	  "properties": {"assert": {"const": "exit_code"}, "exit_code": {"type": "integer"}}}`),
		func(spec assert.Spec) (assert.Assertion, error) {
			got = spec
			return needsSource{}, nil
		})
	for _, in := range []string{`{"exit_code": 0}`, ` {"assert": "exit_code", "exit_code": 0}`} {
		got = nil
		if _, err := r.Decode([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("%s: the decoder got %s: %v", in, got, err)
		}
		if diff := cmp.Diff(map[string]any{"assert": "exit_code", "exit_code": 0.0}, v); diff != "" {
			t.Errorf("%s: the decoder got (-want +got):\n%s", in, diff)
		}
	}
	_, err := r.Decode([]byte(`{"exit_code": "zero"}`))
	var se *assert.SpecError
	if !errors.As(err, &se) || len(se.Violations) != 1 || se.Violations[0].Pointer != "/exit_code" {
		t.Fatalf("err = %v", err)
	}
}

func TestTypoIsAViolationAtTheKey(t *testing.T) {
	_, err := newTestRegistry().Decode([]byte(`{"assert": "fixed", "status": "passed", "scroe": 1, "expect": 2}`))
	var se *assert.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, v := range se.Violations {
		got = append(got, v.String())
	}
	want := []string{`/expect: unknown key "expect"`, `/scroe: unknown key "scroe" (did you mean "score"?)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("violations (-want +got):\n%s", diff)
	}
	if se.Kind != "fixed" {
		t.Errorf("kind %q", se.Kind)
	}
}

func TestAllowUnknownKeys(t *testing.T) {
	r := newTestRegistry(assert.AllowUnknownKeys())
	if _, err := r.Decode([]byte(`{"assert": "fixed", "status": "passed", "added_in_v2": {"x": 1}}`)); err != nil {
		t.Fatalf("lenient registry: %v", err)
	}
	if _, err := r.Decode([]byte(`{"assert": "fixed", "status": "sometimes"}`)); err == nil {
		t.Fatal("lenient registry accepted a value its schema forbids")
	}
}

func TestUnknownKind(t *testing.T) {
	_, err := newTestRegistry().Decode([]byte(`{"assert": "fhir-resource-stat"}`))
	if !errors.Is(err, assert.ErrUnknownKind) {
		t.Fatalf("err = %v, want ErrUnknownKind", err)
	}
	if !strings.Contains(err.Error(), "known: fixed, needs-source") {
		t.Errorf("message does not list the known kinds: %v", err)
	}
}

func TestDecodeYAMLPositions(t *testing.T) {
	src := "tasks:\n  - assert:\n      - fixed: 1\n      - assert: fixed\n        status: passed\n        expectd: 3\n      - nope: x\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	items := doc.Content[0].Content[1].Content[0].Content[1].Content
	var got []string
	for _, item := range items {
		_, err := newTestRegistry().DecodeYAML(item)
		var se *assert.SpecError
		if !errors.As(err, &se) {
			t.Fatalf("err = %v", err)
		}
		for _, v := range se.Violations {
			got = append(got, v.String())
		}
	}
	// The first item is {"assert": "fixed", "fixed": 1}: the schema wants a
	// status and does not know the key "fixed"; both are reported where
	// the item starts and where the key is.
	want := []string{
		`3:9: /: missing required key "status"`,
		`3:9: /fixed: unknown key "fixed"`,
		`6:9: /expectd: unknown key "expectd"`,
		`7:9: /nope: unknown kind "nope" (known: fixed, needs-source)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConvertYAMLKeepsOrderAndTypes(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("z: 1\na: [true, null, 1.50, \"<x>&\", 0x10]\nm: {k: v}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	yd, err := assert.ConvertYAML(&doc)
	if err != nil {
		t.Fatal(err)
	}
	data, pos := yd.JSON, yd.Positions
	if diff := cmp.Diff(map[string]any{"z": json.Number("1"), "a": []any{true, nil, json.Number("1.5"), "<x>&", json.Number("16")}, "m": map[string]any{"k": "v"}}, yd.Value); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if want := `{"z":1,"a":[true,null,1.5,"<x>&",16],"m":{"k":"v"}}`; string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
	if p := pos["/a/3"]; p.Line != 2 || p.Column != 23 {
		t.Errorf("/a/3 at %+v", p)
	}
	for _, bad := range []string{"a: .inf\n", "a: 1\na: 2\n", "? [1]\n: x\n", "a: &x [1, *x]\n", strings.Repeat("[", 1500) + strings.Repeat("]", 1500)} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(bad), &n); err != nil {
			continue
		}
		if _, err := assert.ConvertYAML(&n); err == nil {
			t.Errorf("%q converted without error", bad)
		}
	}
}

// A schema that is JSON but does not compile is found when the kind is
// first decoded (schemas compile lazily): every spec of it is then invalid,
// saying why, and nothing panics.
func TestSchemaCompiledOnFirstUse(t *testing.T) {
	r := newTestRegistry()
	r.Register("y", []byte(`{"type": 5}`), func(assert.Spec) (assert.Assertion, error) { return nil, nil })
	_, err := r.Decode([]byte(`{"assert": "y"}`))
	var se *assert.SpecError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "does not compile") {
		t.Fatalf("decode with a broken schema: %v", err)
	}
}

func TestRegisterPanics(t *testing.T) {
	cases := map[string]func(r *assert.Registry){
		"empty kind": func(r *assert.Registry) {
			r.Register("", []byte(`{}`), func(assert.Spec) (assert.Assertion, error) { return nil, nil })
		},
		"duplicate": func(r *assert.Registry) {
			r.Register("fixed", []byte(`{}`), func(assert.Spec) (assert.Assertion, error) { return nil, nil })
		},
		"nil decode": func(r *assert.Registry) { r.Register("x", []byte(`{}`), nil) },
		"schema not JSON": func(r *assert.Registry) {
			r.Register("y", []byte(`{"type": `), func(assert.Spec) (assert.Assertion, error) { return nil, nil })
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f(newTestRegistry())
		})
	}
}

func TestKindsAndSchema(t *testing.T) {
	r := newTestRegistry()
	if diff := cmp.Diff([]string{"fixed", "needs-source"}, r.Kinds()); diff != "" {
		t.Fatal(diff)
	}
	s, ok := r.Schema("fixed")
	if !ok || string(s) != fixedSchema {
		t.Fatalf("schema %q %v", s, ok)
	}
	if _, ok := r.Schema("nope"); ok {
		t.Fatal("schema of an unknown kind")
	}
}

func TestSpecRoundTrip(t *testing.T) {
	in := `{"label":"x","assertion":{"assert":"future-kind","zeta":1.0,"alpha":1e3,"big":12345678901234567890,"html":"<a&b>"}}`
	var c assert.Criterion
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.Assertion); err != nil {
		t.Fatal(err)
	}
	out := bytes.TrimSpace(buf.Bytes())
	if want := `{"assert":"future-kind","zeta":1.0,"alpha":1e3,"big":12345678901234567890,"html":"<a&b>"}`; string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	if k := c.Assertion.Kind(); k != "future-kind" {
		t.Fatalf("kind %q", k)
	}
	if k := assert.Spec(`{"ran": "git"}`).Kind(); k != "ran" {
		t.Fatalf("single-key kind %q", k)
	}
	if k := assert.Spec(`{"a": 1, "b": 2}`).Kind(); k != "" {
		t.Fatalf("two keys gave kind %q", k)
	}
}

func TestParseCriteria(t *testing.T) {
	good := `[{"label": "a", "assertion": {"assert": "fixed", "status": "passed"}, "weight": 2, "axis": "x", "input_entity_id": null},
	          {"assertion": {"assert": "fixed", "status": "passed"}}]`
	cs, err := assert.ParseCriteria([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].EffectiveWeight() != 2 || cs[1].EffectiveWeight() != 1 || cs[0].Axis != "x" {
		t.Fatalf("got %+v", cs)
	}
	if cs, err := assert.ParseCriteria([]byte(`{"data": [{"assertion": {}}], "_meta": {"next": null}}`)); err != nil || len(cs) != 1 {
		t.Fatalf("list response: %v %v", cs, err)
	}
	if cs, err := assert.ParseCriteria([]byte(`[]`)); err != nil || len(cs) != 0 {
		t.Fatalf("empty list: %v %v", cs, err)
	}
	bad := map[string]string{
		`{"label": `:                                 `/: not JSON`,
		`"criteria"`:                                 `/: criteria must be a JSON array`,
		`{"items": []}`:                              `/: an object criteria document must be a list response`,
		`{"data": 5}`:                                `/data: must be an array of criteria`,
		`[{"assertion": {}}, 7]`:                     `/1: a criterion must be a JSON object, not a number`,
		`[{"assertion": {}, "weight": -1}]`:          `/0/weight: weight -1 is negative`,
		`{"data": [{"weight": "heavy"}]}`:            `/data/0/weight: weight must be a number, not a string`,
		`[{"label": 5}]`:                             `/0/label: must be a string, not a number`,
		``:                                           `/: not JSON`,
		`[{"assertion": {}}] trailing`:               `/: not JSON`,
		`[{"created_at": "yesterday"}]`:              `/0/created_at: must be an RFC 3339 time`,
		`[{"assertion": {}, "weight": 1e999}]`:       `/0/weight: weight must be a number`,
		`[{"assertion": {}, "weight": [1]}, "x"]`:    `/0/weight: weight must be a number, not an array`,
		`{"data": [{"assertion": {}}, null, true]}`:  `/data/1: a criterion must be a JSON object, not null`,
		`[{"assertion": {}, "axis": {"name": "x"}}]`: `/0/axis: must be a string, not an object`,
	}
	for in, want := range bad {
		_, err := assert.ParseCriteria([]byte(in))
		var ce *assert.CriteriaError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", in, err, want)
		}
	}
}
