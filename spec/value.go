package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Value is the expected value of a field assertion (or of a correlate_by
// entry): a JSON string, number, boolean or null. It is sealed: the only
// values are those String, Number, ParseNumber, Bool, Null and Of return,
// so every Value has a JSON form and writing one cannot fail. The zero
// Value is null.
type Value struct {
	kind valueKind
	text string // the string, or the number's JSON literal
	b    bool
}

type valueKind uint8

const (
	kindNull valueKind = iota
	kindString
	kindNumber
	kindBool
)

// String returns the JSON string s. Invalid UTF-8 is written as U+FFFD, as
// encoding/json writes it.
func String(s string) Value { return Value{kind: kindString, text: s} }

// Bool returns the JSON boolean b.
func Bool(b bool) Value { return Value{kind: kindBool, b: b} }

// Null returns JSON null, the zero Value: a field expecting null passes when
// its path is missing or null (and, in HL7 and X12, empty).
func Null() Value { return Value{} }

// Numeric is the Go number types Number accepts.
type Numeric interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Number returns the JSON number n, written as encoding/json writes it
// (integers in full, floats in the shortest form that reads back exactly:
// 1.5, 1e+21).
//
// JSON has no NaN or infinity. Number writes a NaN as the string "NaN" and
// an infinity as "Infinity" or "-Infinity": a string never equals a JSON
// number, so the field fails against every number, as a comparison with NaN
// would, and the spec shows what was asked instead of silently expecting
// null (which would pass on a missing field). Use ParseNumber to keep a
// literal such as 30.0 or a 20-digit integer exactly as written.
func Number[T Numeric](n T) Value {
	one := T(1)
	if one/2 != 0 { // a float type
		return floatValue(float64(n), reflect.TypeFor[T]().Bits())
	}
	if T(0)-one < 0 { // signed
		return Value{kind: kindNumber, text: strconv.FormatInt(int64(n), 10)}
	}
	return Value{kind: kindNumber, text: strconv.FormatUint(uint64(n), 10)}
}

func floatValue(f float64, bits int) Value {
	switch {
	case math.IsNaN(f):
		return String("NaN")
	case math.IsInf(f, 1):
		return String("Infinity")
	case math.IsInf(f, -1):
		return String("-Infinity")
	}
	// encoding/json's format: %f between 1e-6 and 1e21, else %e with a
	// short exponent.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b := strconv.AppendFloat(make([]byte, 0, 24), f, format, -1, bits)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return Value{kind: kindNumber, text: string(b)}
}

// ParseNumber returns the JSON number written as s, kept exactly as
// written (30.0 stays 30.0, 1e3 stays 1e3, 12345678901234567890 keeps every
// digit). It fails when s is not one JSON number.
func ParseNumber(s string) (Value, error) {
	if !isJSONNumber(s) {
		return Value{}, fmt.Errorf("spec: %q is not a JSON number", s)
	}
	return Value{kind: kindNumber, text: s}, nil
}

// Of converts a Go scalar to a Value: nil, a string, a bool, any Go integer
// or float (as Number), a json.Number (as ParseNumber), or a Value. It is
// for values whose type is known only at run time (read from elsewhere);
// anything else (a map, a slice, a struct) is an error.
func Of(v any) (Value, error) {
	switch v := v.(type) {
	case nil:
		return Null(), nil
	case Value:
		return v, nil
	case string:
		return String(v), nil
	case bool:
		return Bool(v), nil
	case json.Number:
		return ParseNumber(string(v))
	case int:
		return Number(v), nil
	case int8:
		return Number(v), nil
	case int16:
		return Number(v), nil
	case int32:
		return Number(v), nil
	case int64:
		return Number(v), nil
	case uint:
		return Number(v), nil
	case uint8:
		return Number(v), nil
	case uint16:
		return Number(v), nil
	case uint32:
		return Number(v), nil
	case uint64:
		return Number(v), nil
	case float32:
		return Number(v), nil
	case float64:
		return Number(v), nil
	}
	return Value{}, fmt.Errorf("spec: %T is not a string, number, boolean or null", v)
}

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v.kind == kindNull }

// String returns v as JSON text: "booked" (with its quotes), 72148, true,
// null.
func (v Value) String() string { return string(v.appendJSON(nil)) }

// MarshalJSON returns v as JSON text; it never fails.
func (v Value) MarshalJSON() ([]byte, error) { return v.appendJSON(nil), nil }

func (v Value) appendJSON(dst []byte) []byte {
	switch v.kind {
	case kindString:
		return appendString(dst, v.text)
	case kindNumber:
		return append(dst, v.text...)
	case kindBool:
		return strconv.AppendBool(dst, v.b)
	}
	return append(dst, "null"...)
}

// isJSONNumber reports whether s is exactly one JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// Field is a field assertion, {path, expected}, shared by every kind that
// has fields: Path is a path in the grammar of the kind's documents (a
// dotted JSON path, an HL7 or X12 path). For sftp-file-present a field may
// instead name Key, a literal top-level member name (dots and all).
//
// Spec writes "key" when Key is set and "path" when Path is set or Key is
// not, then "expected". Setting both, or Key on a kind that has no keys, is
// written as given and rejected by the kind's schema when the spec is
// decoded.
type Field struct {
	Key      string
	Path     string
	Expected Value
}

func (f Field) appendJSON(dst []byte) []byte {
	w := writer{buf: append(dst, '{')}
	if f.Key != "" {
		w.str("key", f.Key)
	}
	if f.Path != "" || f.Key == "" {
		w.str("path", f.Path)
	}
	w.value("expected", f.Expected)
	return w.done()
}

// OptionalInt is an integer that may be left out, such as run_count's
// bounds. The zero value is unset; Int sets one.
type OptionalInt struct {
	n   int
	set bool
}

// Int returns the set OptionalInt n.
func Int(n int) OptionalInt { return OptionalInt{n: n, set: true} }

// Get returns the integer and whether it is set.
func (o OptionalInt) Get() (int, bool) { return o.n, o.set }

// OptionalString is a string that may be left out, such as verify's
// output checks (where "" is a real value: the output is empty). The zero
// value is unset; Text sets one.
type OptionalString struct {
	s   string
	set bool
}

// Text returns the set OptionalString s.
func Text(s string) OptionalString { return OptionalString{s: s, set: true} }

// Get returns the string and whether it is set.
func (o OptionalString) Get() (string, bool) { return o.s, o.set }
