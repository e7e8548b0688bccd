package fhir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds how deeply the store lets JSON nest (objects and arrays
// together): deeper input is refused before it is parsed, since the
// parser recurses once per level. FHIR resources nest a few dozen levels
// at most (a Questionnaire's items within items).
const MaxDepth = 128

// jsonFrame is one open object or array of checkJSON.
type jsonFrame struct {
	obj     bool
	keys    [][]byte // the keys seen so far (decoded), for repeats
	set     map[string]bool
	key     []byte // the current member's key
	index   int    // the current element's index
	wantKey bool
}

// checkJSON checks what the JSON parser does not: that data nests at most
// MaxDepth levels and, with noRepeats, that no object repeats a key (keys
// compared as decoded: "a" and "\u0061" are one key). It does not
// otherwise validate data: call gjson.Valid as well. The error names the
// JSON pointer and the byte offset at fault.
func checkJSON(data []byte, noRepeats bool) *jsonError {
	var stack []jsonFrame
	depth := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '{', '[':
			if depth == MaxDepth {
				return &jsonError{Offset: i, Pointer: framePointer(stack[:depth]), Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
			}
			if depth == len(stack) {
				stack = append(stack, jsonFrame{})
			}
			f := &stack[depth]
			f.obj, f.wantKey, f.index, f.key = c == '{', c == '{', 0, nil
			f.keys = f.keys[:0]
			f.set = nil
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth > 0 {
				f := &stack[depth-1]
				if f.obj {
					f.wantKey = true
				} else {
					f.index++
				}
			}
		case '"':
			start := i
			esc := false
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					esc = true
					i++
				}
			}
			if i >= len(data) {
				return nil // unterminated: the parser reports it
			}
			if depth == 0 || !stack[depth-1].obj || !stack[depth-1].wantKey {
				continue
			}
			f := &stack[depth-1]
			f.wantKey = false
			key := data[start+1 : i]
			// Decode a key as the parsers that read it do: escapes
			// resolved and bytes that are not UTF-8 read as U+FFFD, so
			// "\x8d" and "\x95" are one key, as encoding/json reads them.
			if esc || !utf8.Valid(key) {
				var s string
				if json.Unmarshal(data[start:i+1], &s) != nil {
					return nil // a bad escape: the parser reports it
				}
				key = []byte(s)
			}
			f.key = key
			if !noRepeats {
				continue
			}
			if f.repeats(key) {
				return &jsonError{Offset: start, Pointer: framePointer(stack[:depth]), Msg: fmt.Sprintf("the key %s is repeated (a repeated key is read differently by different parsers)", strconv.Quote(string(key)))}
			}
		}
	}
	return nil
}

// repeats records key in f and reports whether f already held it.
func (f *jsonFrame) repeats(key []byte) bool {
	if f.set != nil {
		if f.set[string(key)] {
			return true
		}
		f.set[string(key)] = true
		return false
	}
	for _, k := range f.keys {
		if bytes.Equal(k, key) {
			return true
		}
	}
	f.keys = append(f.keys, key)
	if len(f.keys) > 16 {
		f.set = make(map[string]bool, 2*len(f.keys))
		for _, k := range f.keys {
			f.set[string(k)] = true
		}
	}
	return false
}

// framePointer is the JSON pointer of the innermost open value of stack.
func framePointer(stack []jsonFrame) string {
	var b strings.Builder
	for i := range stack {
		f := &stack[i]
		b.WriteByte('/')
		if f.obj {
			b.WriteString(pointerEscaper.Replace(string(f.key)))
		} else {
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonError is checkJSON's finding.
type jsonError struct {
	Offset  int
	Pointer string
	Msg     string
}
