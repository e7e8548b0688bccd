package jsonvalue

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Decode reads data, exactly one JSON value with white space around it,
// into the value encoding/json with UseNumber decodes it to: objects as
// map[string]any (a repeated name keeps its last value), arrays as []any,
// numbers as json.Number, strings with their escapes resolved and bytes
// that are not UTF-8 replaced by U+FFFD, and true, false and nil. It
// accepts exactly what json.Valid accepts (nesting at most 10,000 deep).
//
// It is one pass over one copy of data, without reflection.
func Decode(data []byte) (any, bool) {
	d := jsonDecoder{s: string(data)}
	d.skipSpace()
	v, ok := d.value()
	if !ok {
		return nil, false
	}
	d.skipSpace()
	return v, d.i == len(d.s)
}

// maxJSONDepth is encoding/json's limit on nesting.
const maxJSONDepth = 10000

type jsonDecoder struct {
	s     string
	i     int
	depth int
}

func (d *jsonDecoder) skipSpace() { d.i = skipSpace(d.s, d.i) }

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// next reports whether the byte at the decoder is c, and steps over it if so.
func (d *jsonDecoder) next(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *jsonDecoder) value() (any, bool) {
	if d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, false
}

func (d *jsonDecoder) literal(word string) bool {
	if strings.HasPrefix(d.s[d.i:], word) {
		d.i += len(word)
		return true
	}
	return false
}

func (d *jsonDecoder) object() (any, bool) {
	if d.depth++; d.depth > maxJSONDepth {
		return nil, false
	}
	d.i++
	out := make(map[string]any, 8)
	d.skipSpace()
	if d.next('}') {
		d.depth--
		return out, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.skipSpace()
		if !d.next(':') {
			return nil, false
		}
		d.skipSpace()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		out[k] = v
		d.skipSpace()
		switch {
		case d.next(','):
			d.skipSpace()
		case d.next('}'):
			d.depth--
			return out, true
		default:
			return nil, false
		}
	}
}

func (d *jsonDecoder) array() (any, bool) {
	if d.depth++; d.depth > maxJSONDepth {
		return nil, false
	}
	d.i++
	out := make([]any, 0, 4)
	d.skipSpace()
	if d.next(']') {
		d.depth--
		return out, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		d.skipSpace()
		switch {
		case d.next(','):
			d.skipSpace()
		case d.next(']'):
			d.depth--
			return out, true
		default:
			return nil, false
		}
	}
}

func (d *jsonDecoder) number() (any, bool) {
	end, ok := number(d.s, d.i)
	if !ok {
		return nil, false
	}
	n := json.Number(d.s[d.i:end])
	d.i = end
	return n, true
}

// number reads the JSON number that starts at s[i],
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns the index
// just after it; false when none starts there.
func number(s string, i int) (end int, ok bool) {
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	return i, true
}

// str reads a string: a substring of the copy when it needs no change.
func (d *jsonDecoder) str() (string, bool) {
	end, verbatim, ok := readString(d.s, d.i)
	if !ok {
		return "", false
	}
	text := d.s[d.i+1 : end]
	d.i = end + 1
	if verbatim {
		return text, true
	}
	return unquote(text), true
}

// readString reads the JSON string whose opening quote is s[i]: end is the
// index of its closing quote, and verbatim reports that its text,
// s[i+1:end], is its value (no escape, valid UTF-8); otherwise unquote
// gives the value. ok is false when no valid string starts at i.
func readString(s string, i int) (end int, verbatim, ok bool) {
	escaped, high := false, false
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j, !escaped && (!high || utf8.ValidString(s[i+1:j])), true
		case c < ' ':
			return 0, false, false
		case c >= utf8.RuneSelf:
			high = true
		case c == '\\':
			escaped = true
			if j+1 >= len(s) {
				return 0, false, false
			}
			j++
			switch s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := hex4(s, j+1); !ok {
					return 0, false, false
				}
				j += 4
			default:
				return 0, false, false
			}
		}
	}
	return 0, false, false
}

// unquote returns the value of text, the inside of a string that
// readString read, as encoding/json unquotes it: escapes resolved, a surrogate pair
// joined, any other surrogate and each byte that is not UTF-8 U+FFFD.
func unquote(text string) string {
	b := make([]byte, 0, len(text)+utf8.UTFMax)
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\\':
			i++
			switch e := text[i]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, _ := hex4(text, i+1)
				i += 4
				if utf16.IsSurrogate(r) {
					// A pair only when the next escape completes it.
					hi := r
					r = utf8.RuneError
					if i+2 < len(text) && text[i+1] == '\\' && text[i+2] == 'u' {
						if lo, ok := hex4(text, i+3); ok {
							if pair := utf16.DecodeRune(hi, lo); pair != utf8.RuneError {
								r = pair
								i += 6
							}
						}
					}
				}
				b = utf8.AppendRune(b, r)
			default: // ", \ and /
				b = append(b, e)
			}
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			b = utf8.AppendRune(b, r) // RuneError for a byte that is not UTF-8
			i += size
		}
	}
	return string(b)
}

// hex4 reads the four hex digits at s[i:] as a rune; false if they are not.
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// MaxDepth is the deepest nesting of arrays and objects assay reads in
// JSON from outside: encoding/json's own limit.
const MaxDepth = maxJSONDepth

// Depth returns how deeply data's arrays and objects nest, counting both,
// without recursion and without validating data (brackets inside strings
// do not count).
func Depth(data []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

// Valid reports whether data is exactly one JSON value that nests at most
// MaxDepth deep. It is gjson.ValidBytes made safe for input from outside:
// gjson's validator recurses once per level, so a file of a few million
// '[' overflows the goroutine stack, which ends the process (no recover
// catches it). encoding/json refuses such input too.
func Valid(data []byte) bool {
	return Depth(data) <= MaxDepth && gjson.ValidBytes(data)
}
