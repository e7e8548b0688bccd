package check

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/jsonvalue"
)

// Field is one field assertion: the value at Path must equal Expected.
type Field struct {
	Path string `json:"path"`
	// Expected is a string, a json.Number, a bool, or nil.
	Expected any `json:"expected"`
}

// UnmarshalJSON keeps a number in Expected as the json.Number it was
// written as, so 20-digit identifiers compare exactly.
func (f *Field) UnmarshalJSON(data []byte) error {
	if !jsonvalue.Valid(data) {
		return fmt.Errorf("field assertion is not JSON: %.40q", data)
	}
	obj := gjson.ParseBytes(data)
	if !obj.IsObject() {
		return fmt.Errorf("a field assertion must be an object {path, expected}, not %s", obj.Raw)
	}
	path := obj.Get("path")
	if path.Exists() && path.Type != gjson.String {
		return fmt.Errorf("path must be a string, not %s", path.Raw)
	}
	f.Path = path.Str
	exp, err := expectedValue(obj.Get("expected"))
	if err != nil {
		return err
	}
	f.Expected = exp
	return nil
}

// ParseFields decodes a JSON array of field assertions as json.Unmarshal
// into a []Field does (null or absent: nil; [] : empty), without the
// reflection: a kind's decoder runs once per criterion, often in a fresh
// process where encoding/json's first decode of a type is most of the cost.
func ParseFields(list json.RawMessage) ([]Field, error) {
	arr := gjson.ParseBytes(list)
	if !arr.IsArray() {
		if len(list) == 0 || arr.Type == gjson.Null {
			return nil, nil
		}
		return nil, fmt.Errorf("field assertions must be a list, not %.40s", list)
	}
	out := []Field{}
	var err error
	arr.ForEach(func(_, v gjson.Result) bool {
		var f Field
		if err = f.UnmarshalJSON([]byte(v.Raw)); err != nil {
			return false
		}
		out = append(out, f)
		return true
	})
	return out, err
}

// ParseExpected decodes an expected value as field assertions hold it: a
// string, a json.Number (as written), a bool, or nil (also for an absent
// value). Objects and arrays are errors. Kinds use it for correlate_by
// values, which compare by the same rules.
func ParseExpected(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !jsonvalue.Valid(raw) {
		return nil, fmt.Errorf("expected value is not JSON: %.40q", raw)
	}
	return expectedValue(gjson.ParseBytes(raw))
}

func expectedValue(v gjson.Result) (any, error) {
	switch v.Type {
	case gjson.Null:
		return nil, nil
	case gjson.String:
		return v.Str, nil
	case gjson.Number:
		return json.Number(v.Raw), nil
	case gjson.True, gjson.False:
		return v.Bool(), nil
	}
	return nil, fmt.Errorf("expected must be a string, number, boolean or null, not %s", v.Raw)
}

// FieldResult is the evidence of one field assertion.
type FieldResult struct {
	Path     string `json:"path"`
	Expected any    `json:"expected"`
	// Actual is what the path selected: null when nothing, the value when
	// one, the list of values when two or more.
	Actual any  `json:"actual"`
	Passed bool `json:"passed"`
	// Reason explains a failure where the values alone would not.
	Reason string `json:"reason,omitempty"`
}

// Passed counts the passed results.
func Passed(results []FieldResult) int {
	n := 0
	for _, r := range results {
		if r.Passed {
			n++
		}
	}
	return n
}

// describe renders an expected value for messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case json.Number:
		return t.String()
	case json.RawMessage:
		return string(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = describe(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// numbersEqual compares two decimal numbers: exactly for plain decimals (so
// 20-digit identifiers compare digit for digit, and 5 equals 5.0), as
// float64 when either has an exponent (so 1e999999999 cannot make big.Rat
// allocate without bound).
func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	if strings.ContainsAny(a, "eE") || strings.ContainsAny(b, "eE") {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		return err1 == nil && err2 == nil && x == y
	}
	x, ok1 := new(big.Rat).SetString(a)
	y, ok2 := new(big.Rat).SetString(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

// typeOf names the JSON type of an expected value.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, int:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// expectedNumber returns the decimal text of an expected number.
func expectedNumber(v any) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		return t.String(), true
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	}
	return "", false
}

// judge compares every selected value with f.Expected: the field passes when
// any matches (with none selected, only expected null passes), and actual is
// null, the one value, or the list of values seen.
func judge[V any](f Field, values []V, actual func(V) any, compare func(any, V) (bool, string)) FieldResult {
	r := FieldResult{Path: f.Path, Expected: f.Expected}
	switch len(values) {
	case 0:
		r.Passed = f.Expected == nil
		if !r.Passed {
			r.Reason = "no value at this path"
		}
		return r
	case 1:
		r.Actual = actual(values[0])
		r.Passed, r.Reason = compare(f.Expected, values[0])
		if r.Passed {
			r.Reason = ""
		}
		return r
	}
	list := make([]any, len(values))
	for i, v := range values {
		list[i] = actual(v)
		if ok, _ := compare(f.Expected, v); ok {
			r.Passed = true
		}
	}
	r.Actual = list
	if !r.Passed {
		r.Reason = "no selected value matches"
	}
	return r
}

// Correlation is one correlate_by entry of a spec: a key (a path, or a
// name a kind reads as one) and the value what it names must hold.
type Correlation struct {
	// Key is the key as written.
	Key string
	// Pointer is the entry's JSON pointer in the spec,
	// /correlate_by/KEY.
	Pointer string
	// Expected is a string, a json.Number (as written), a bool or nil,
	// compared by the rules of field assertions.
	Expected any
}

// ParseCorrelations decodes a correlate_by object of a spec that passed its
// kind's schema (each value a string, a number, a boolean or null), its
// entries in key order (of a key written twice, the last); absent or null
// is none.
func ParseCorrelations(obj json.RawMessage) ([]Correlation, error) {
	o := gjson.ParseBytes(obj)
	if !o.IsObject() {
		if len(obj) == 0 || o.Type == gjson.Null {
			return nil, nil
		}
		return nil, fmt.Errorf("correlate_by must be an object, not %.40s", obj)
	}
	values := map[string]gjson.Result{}
	o.ForEach(func(k, v gjson.Result) bool {
		values[k.Str] = v
		return true
	})
	out := make([]Correlation, 0, len(values))
	for k, v := range values {
		exp, err := expectedValue(v)
		if err != nil {
			return nil, fmt.Errorf("correlate_by %q: %w", k, err)
		}
		out = append(out, Correlation{Key: k, Pointer: "/correlate_by/" + assert.EscapePointer(k), Expected: exp})
	}
	slices.SortFunc(out, func(a, b Correlation) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// ParsePaths parses the path of each field with parse. A path that does
// not parse is a violation at base/I/path (base is the pointer of the
// fields in the spec, such as "/fields"), worded by the parser's error.
func ParsePaths[P any](fields []Field, base string, parse func(string) (P, error)) ([]P, []assert.Violation) {
	paths := make([]P, len(fields))
	var viols []assert.Violation
	for i, f := range fields {
		p, err := parse(f.Path)
		if err != nil {
			viols = append(viols, assert.Violation{Pointer: assert.IndexPointer(base, i) + "/path", Message: err.Error()})
			continue
		}
		paths[i] = p
	}
	return paths, viols
}
