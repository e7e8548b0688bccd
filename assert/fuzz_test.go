package assert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/tidwall/gjson"
	"gopkg.in/yaml.v3"
)

func addFiles(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseCriteria: no criteria document panics ParseCriteria or the
// evaluation of what it returns.
func FuzzParseCriteria(f *testing.F) {
	addFiles(f, "../examples/priorauth/criteria.json")
	addFiles(f, "testdata/*.json")
	f.Add([]byte(`{"data": [{"assertion": {"fixed": 1}, "weight": 0}]}`))
	f.Add([]byte(`[{"weight": -0}]`))
	f.Add([]byte(` [ "]" , {"a": "[\\"}, [1, [2]], null ] `))
	reg := newTestRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		// ParseCriteria takes gjson's word that a document is JSON.
		if gjson.ValidBytes(data) != json.Valid(data) {
			t.Fatalf("%q: gjson.ValidBytes %v, json.Valid %v", data, gjson.ValidBytes(data), json.Valid(data))
		}
		// The reflection-free split of a criteria array agrees with
		// encoding/json's.
		if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
			var want []json.RawMessage
			if err := json.Unmarshal(trimmed, &want); err != nil {
				t.Fatal(err)
			}
			if got := assert.SplitArray(trimmed); len(got) != len(want) || (len(got) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("split %q, encoding/json %q", got, want)
			}
		}
		cs, err := assert.ParseCriteria(data)
		if err != nil {
			return
		}
		if _, err := reg.Evaluate(context.Background(), cs, assert.NewEnv()); err != nil {
			t.Fatalf("ParseCriteria accepted criteria Evaluate rejects: %v", err)
		}
	})
}

// FuzzDecode: no spec panics the registry, and a spec it accepts has a
// kind.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"assert": "fixed", "status": "passed", "score": 1}`))
	f.Add([]byte(`{"fixed": {"status": "x"}}`))
	f.Add([]byte(`{"assert": "needs-source"}`))
	f.Add([]byte(`[{"assert": 1}]`))
	reg := newTestRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := reg.Decode(data)
		if err == nil && a.Kind() == "" {
			t.Fatal("accepted a spec without a kind")
		}
	})
}

// FuzzDecodeYAML: no YAML document panics the converter or the registry.
func FuzzDecodeYAML(f *testing.F) {
	f.Add([]byte("- fixed: 1\n- assert: fixed\n  status: passed\n"))
	f.Add([]byte("a: &x [1, *x]\n"))
	f.Add([]byte("a: !!binary aGVsbG8=\nb: 2001-12-14\n"))
	reg := newTestRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		var n yaml.Node
		if yaml.Unmarshal(data, &n) != nil {
			return
		}
		if _, err := assert.ConvertYAML(&n); err != nil {
			return
		}
		_, _ = reg.DecodeYAML(&n)
	})
}

// FuzzParseCriteriaYAML: no YAML document panics ParseCriteriaYAML or the
// registry's validation of it; a document it accepts reads the same as
// the JSON it was converted to, and every problem it reports is located.
func FuzzParseCriteriaYAML(f *testing.F) {
	addFiles(f, "testdata/*.yaml")
	addFiles(f, "../examples/priorauth/criteria.json")
	f.Add([]byte("- label: a\n  assertion:\n    assert: exit_code\n     exit_code: 0\n"))
	f.Add([]byte("data:\n  - {assertion: {fixed: 1}, weight: .inf}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	reg := newTestRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = reg.ValidateCriteriaYAML(data)
		cs, err := assert.ParseCriteriaYAML(data)
		if err != nil {
			return
		}
		js, _, err := assert.CriteriaYAML(data)
		if err != nil {
			t.Fatalf("ParseCriteriaYAML accepted what CriteriaYAML rejects: %v", err)
		}
		again, err := assert.ParseCriteria(js)
		if err != nil || len(again) != len(cs) {
			t.Fatalf("the converted JSON reads differently: %v (%d vs %d)", err, len(again), len(cs))
		}
	})
}
