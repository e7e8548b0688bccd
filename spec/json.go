package spec

import (
	"slices"
	"unicode/utf8"
)

// writer appends the members of one JSON object in order. Nothing it
// writes can fail: every value it is given has a JSON form.
type writer struct {
	buf []byte
	n   int // members written at the current level
}

// object starts an object with its "assert" member.
func object(kind string, size int) *writer {
	w := &writer{buf: make([]byte, 0, size)}
	w.buf = append(w.buf, '{')
	w.str("assert", kind)
	return w
}

func (w *writer) done() []byte { return append(w.buf, '}') }

func (w *writer) key(k string) {
	if w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = appendString(w.buf, k)
	w.buf = append(w.buf, ':')
}

func (w *writer) str(k, v string) {
	w.key(k)
	w.buf = appendString(w.buf, v)
}

func (w *writer) value(k string, v Value) {
	w.key(k)
	w.buf = v.appendJSON(w.buf)
}

// open writes the key of a nested object and starts it; close ends it.
// The returned count is the outer level's, restored by close.
func (w *writer) open(k string) int {
	w.key(k)
	w.buf = append(w.buf, '{')
	n := w.n
	w.n = 0
	return n
}

func (w *writer) close(outer int) {
	w.buf = append(w.buf, '}')
	w.n = outer
}

func (w *writer) strings(k string, list []string) {
	w.key(k)
	w.buf = append(w.buf, '[')
	for i, s := range list {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendString(w.buf, s)
	}
	w.buf = append(w.buf, ']')
}

// values writes a map of scalars with its keys sorted.
func (w *writer) values(k string, m map[string]Value) {
	outer := w.open(k)
	for _, key := range sortedKeys(m) {
		w.value(key, m[key])
	}
	w.close(outer)
}

// fields writes a list of field assertions.
func (w *writer) fields(k string, fields []Field) {
	w.key(k)
	w.buf = append(w.buf, '[')
	for i, f := range fields {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = f.appendJSON(w.buf)
	}
	w.buf = append(w.buf, ']')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendString appends s as a JSON string exactly as encoding/json writes it
// with SetEscapeHTML(false): "<", ">" and "&" as written, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, \b and \f short.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
