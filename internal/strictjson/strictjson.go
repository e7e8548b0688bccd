package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	suggestpkg "github.com/assaykit/assay/internal/suggest"
	"github.com/assaykit/assay/internal/textpos"
	"github.com/tidwall/gjson"
)

// Error is one problem in a document: where (a JSON pointer, and a 1-based
// line and column when known) and what.
type Error struct {
	Pointer      string
	Line, Column int
	Message      string
}

func (e *Error) Error() string {
	at := e.Pointer
	if at == "" {
		at = "/"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d): %s", at, e.Line, e.Column, e.Message)
	}
	return at + ": " + e.Message
}

// Errors are every problem of a document, in document order.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the errors one by one, for errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Decode reads data into v, a pointer to a struct, slice or map. It returns
// Errors holding every problem found, or nil. Even with errors, v holds
// every value Decode could read (a bad or missing value is left zero), so
// a caller can go on checking the rest of the document and report all its
// problems at once (see At, Covers and Sort).
func Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("strictjson: Decode needs a non-nil pointer")
	}
	d := &decoder{data: data}
	if !jsonvalue.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		e := &Error{Message: "not JSON"}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Line, e.Column = textpos.LineColumn(data, int(se.Offset)-1)
			e.Message = "not JSON: " + se.Error()
		}
		return Errors{e}
	}
	d.value(gjson.ParseBytes(data), rv.Elem(), "")
	if len(d.errs) > 0 {
		return d.errs
	}
	return nil
}

// Pointer joins a JSON pointer and a key or index, escaping ~ and /.
func Pointer(ptr string, key any) string {
	s := fmt.Sprint(key)
	s = strings.ReplaceAll(s, "~", "~0")
	s = strings.ReplaceAll(s, "/", "~1")
	return ptr + "/" + s
}

type decoder struct {
	data []byte
	errs Errors
}

func (d *decoder) fail(v gjson.Result, ptr, format string, args ...any) {
	e := &Error{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	if v.Index > 0 || (v.Exists() && v.Index == 0 && len(d.data) > 0) {
		e.Line, e.Column = textpos.LineColumn(d.data, v.Index)
	}
	d.errs = append(d.errs, e)
}

var (
	rawType    = reflect.TypeFor[json.RawMessage]()
	numberType = reflect.TypeFor[json.Number]()
)

func (d *decoder) value(v gjson.Result, rv reflect.Value, ptr string) {
	t := rv.Type()
	switch {
	case t == rawType:
		rv.SetBytes([]byte(v.Raw))
		return
	case t == numberType:
		if v.Type != gjson.Number {
			d.fail(v, ptr, "must be a number, not %s", jsonkind.OfResult(v))
			return
		}
		rv.SetString(v.Raw)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.Type == gjson.Null {
			rv.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		d.value(v, p.Elem(), ptr)
		rv.Set(p)
	case reflect.String:
		if v.Type != gjson.String {
			d.fail(v, ptr, "must be a string, not %s", jsonkind.OfResult(v))
			return
		}
		rv.SetString(v.Str)
	case reflect.Bool:
		if v.Type != gjson.True && v.Type != gjson.False {
			d.fail(v, ptr, "must be true or false, not %s", jsonkind.OfResult(v))
			return
		}
		rv.SetBool(v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		if v.Type != gjson.Number || err != nil || rv.OverflowInt(n) {
			d.fail(v, ptr, "must be a whole number, not %s", describe(v))
			return
		}
		rv.SetInt(n)
	case reflect.Float64:
		if v.Type != gjson.Number || math.IsInf(v.Num, 0) {
			d.fail(v, ptr, "must be a number, not %s", describe(v))
			return
		}
		rv.SetFloat(v.Num)
	case reflect.Slice:
		if !v.IsArray() {
			d.fail(v, ptr, "must be an array, not %s", jsonkind.OfResult(v))
			return
		}
		items := v.Array()
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			d.value(item, s.Index(i), Pointer(ptr, i))
		}
		rv.Set(s)
	case reflect.Map:
		if !v.IsObject() || t.Key().Kind() != reflect.String {
			d.fail(v, ptr, "must be an object, not %s", jsonkind.OfResult(v))
			return
		}
		m := reflect.MakeMap(t)
		seen := map[string]bool{}
		v.ForEach(func(k, item gjson.Result) bool {
			p := Pointer(ptr, k.Str)
			if seen[k.Str] {
				d.fail(k, p, "the key %q is written twice", k.Str)
				return true
			}
			seen[k.Str] = true
			e := reflect.New(t.Elem()).Elem()
			d.value(item, e, p)
			m.SetMapIndex(reflect.ValueOf(k.Str).Convert(t.Key()), e)
			return true
		})
		rv.Set(m)
	case reflect.Struct:
		d.object(v, rv, ptr)
	default:
		d.fail(v, ptr, "strictjson: unsupported field type %s", t)
	}
}

func describe(v gjson.Result) string {
	if v.Type == gjson.Number {
		return v.Raw
	}
	return jsonkind.OfResult(v)
}

// field is one struct field as a JSON member.
type field struct {
	name     string
	index    int
	required bool
}

func fields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name: name, index: i, required: f.Tag.Get("strict") == "required"})
	}
	return out
}

func (d *decoder) object(v gjson.Result, rv reflect.Value, ptr string) {
	if !v.IsObject() {
		d.fail(v, ptr, "must be an object, not %s", jsonkind.OfResult(v))
		return
	}
	fs := fields(rv.Type())
	byName := map[string]field{}
	names := make([]string, len(fs))
	for i, f := range fs {
		byName[f.name] = f
		names[i] = f.name
	}
	seen := map[string]bool{}
	v.ForEach(func(k, item gjson.Result) bool {
		p := Pointer(ptr, k.Str)
		f, ok := byName[k.Str]
		switch {
		case !ok:
			d.fail(k, p, "unknown key %q (%s)", k.Str, suggest(k.Str, names))
		case seen[k.Str]:
			d.fail(k, p, "the key %q is written twice", k.Str)
		default:
			seen[k.Str] = true
			d.value(item, rv.Field(f.index), p)
		}
		return true
	})
	for _, f := range fs {
		if f.required && !seen[f.name] {
			d.fail(v, Pointer(ptr, f.name), "is required")
		}
	}
}

// suggest names the closest known key, or lists them.
func suggest(key string, names []string) string {
	if best := suggestpkg.Nearest(key, names); best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	return "the keys are " + strings.Join(names, ", ")
}

// Locate returns the 1-based line and column of the value at the JSON
// pointer ptr in data; ok is false when data holds no such value. A key
// written twice resolves to its first value.
func Locate(data []byte, ptr string) (line, column int, ok bool) {
	cur := gjson.ParseBytes(data)
	if !cur.Exists() {
		return 0, 0, false
	}
	if ptr != "" {
		if ptr[0] != '/' {
			return 0, 0, false
		}
		for _, seg := range strings.Split(ptr[1:], "/") {
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
			var next gjson.Result
			i := 0
			cur.ForEach(func(k, val gjson.Result) bool {
				if (cur.IsObject() && k.Str == seg) || (cur.IsArray() && strconv.Itoa(i) == seg) {
					next = val
					return false
				}
				i++
				return true
			})
			if !next.Exists() {
				return 0, 0, false
			}
			cur = next
		}
	}
	line, column = textpos.LineColumn(data, cur.Index)
	return line, column, true
}

// At returns the Error at ptr with a message, located in data by Locate.
// A check that runs after Decode reports its problems with it, so they
// read as Decode's do.
func At(data []byte, ptr, format string, args ...any) *Error {
	e := &Error{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
	e.Line, e.Column, _ = Locate(data, ptr)
	return e
}

// Covers reports whether one of es is at ptr or at a value holding it: a
// check after Decode skips such a pointer, whose value Decode left unset
// or zero, so one mistake is not reported twice.
func (es Errors) Covers(ptr string) bool {
	for _, e := range es {
		if e.Pointer == "" || e.Pointer == ptr || strings.HasPrefix(ptr, e.Pointer+"/") {
			return true
		}
	}
	return false
}

// Sort orders es by line and column, keeping the order of errors at the
// same place; errors without a place come last.
func (es Errors) Sort() {
	slices.SortStableFunc(es, func(a, b *Error) int {
		switch {
		case (a.Line == 0) != (b.Line == 0):
			if a.Line == 0 {
				return 1
			}
			return -1
		case a.Line != b.Line:
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}
