package jsonschema

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/assaykit/assay/internal/jsonvalue"
)

// The schema compiler reads a schema from a tree: one slice of values in
// document order, read straight from the JSON text (no map per object, and
// every string that needs no unescaping a substring of one copy of the
// text), or converted from a value decoded by encoding/json for
// CompileValue.

// jkind is the kind of a value in a tree.
type jkind uint8

const (
	jNull jkind = iota
	jFalse
	jTrue
	jNum
	jStr
	jArr
	jObj
	jForeign // a Go value of CompileValue's input that is no JSON value
)

// jnode is one value of a tree. The values of an array or object follow it,
// each followed by its own; end is the index after the last.
type jnode struct {
	kind jkind
	// hidden marks an object member that the decoded value would not have:
	// one whose name a later member repeats (encoding/json keeps the last),
	// or, in open mode, an "additionalProperties" or
	// "unevaluatedProperties" that is false (OpenObjects drops them).
	hidden bool
	parent int32
	end    int32
	// n is the number of visible members or items of an object or array,
	// the index in tree.vals of a jForeign.
	n int32
	k span // the member name, when the parent is an object
	v span // the text of a string or number
}

// span is a string of a tree: text[off:off+n], or unq[-1-off] when off is
// negative (a string that needed unescaping, or one of CompileValue's). A
// jnode holds no pointer, so that the slice of them costs the garbage
// collector nothing.
type span struct{ off, n int32 }

// tree is a schema document.
type tree struct {
	nodes []jnode
	text  string
	unq   []string
	vals  []any // jForeign values
	// hasRef is set when some object has a "$ref" member: only then does
	// the compiler need pointers, a table of compiled schemas and the loop
	// check.
	hasRef bool
	// schemas counts the objects and booleans: the schemas a compilation
	// can make, bar the rare pointer that names one in two ways.
	schemas int
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// parser reads JSON text into a tree. It accepts exactly what json.Valid
// accepts and reads the values encoding/json decodes.
type parser struct {
	text    string
	pos     int
	t       *tree
	open    bool    // drop "additionalProperties": false and "unevaluatedProperties": false
	scratch []int32 // member indexes of the objects being closed
	depth   int
	buf     [32]int32 // backs scratch while it is short
}

// parseText reads data, which must be exactly one JSON value (with
// whitespace around it), into a tree; false when it is not JSON.
func parseText(data []byte, open bool) (*tree, bool) {
	// Every value but the first follows a ',' or opens a container.
	size := 1
	for _, c := range data {
		if c == ',' || c == '{' || c == '[' {
			size++
		}
	}
	t := &tree{nodes: make([]jnode, 0, size)}
	t.text = string(data)
	p := parser{text: t.text, t: t, open: open}
	p.scratch = p.buf[:0]
	p.skipSpace()
	if !p.value(-1, span{}) {
		return nil, false
	}
	p.skipSpace()
	if p.pos != len(p.text) {
		return nil, false
	}
	return t, true
}

// afterItem reads what follows a member or item: a ',' (more is true) or
// closing (more is false); ok is false for anything else.
func (p *parser) afterItem(closing byte) (more, ok bool) {
	p.skipSpace()
	if p.pos >= len(p.text) {
		return false, false
	}
	switch p.text[p.pos] {
	case ',':
		p.pos++
		return true, true
	case closing:
		p.pos++
		return false, true
	}
	return false, false
}

func (p *parser) skipSpace() { p.pos = jsonvalue.SkipSpace(p.text, p.pos) }

// value reads one value at p.pos into the tree, as a member named key of
// parent (an item when parent is an array, the root when -1).
func (p *parser) value(parent int32, key span) bool {
	if p.pos >= len(p.text) {
		return false
	}
	idx := int32(len(p.t.nodes))
	p.t.nodes = append(p.t.nodes, jnode{parent: parent, k: key})
	switch c := p.text[p.pos]; {
	case c == '{':
		return p.object(idx)
	case c == '[':
		return p.array(idx)
	case c == '"':
		s, ok := p.str()
		if !ok {
			return false
		}
		p.t.nodes[idx].kind, p.t.nodes[idx].v = jStr, s
	case c == '-' || c >= '0' && c <= '9':
		s, ok := p.number()
		if !ok {
			return false
		}
		p.t.nodes[idx].kind, p.t.nodes[idx].v = jNum, s
	case strings.HasPrefix(p.text[p.pos:], "true"):
		p.t.nodes[idx].kind = jTrue
		p.t.schemas++
		p.pos += 4
	case strings.HasPrefix(p.text[p.pos:], "false"):
		p.t.nodes[idx].kind = jFalse
		p.t.schemas++
		p.pos += 5
	case strings.HasPrefix(p.text[p.pos:], "null"):
		p.t.nodes[idx].kind = jNull
		p.pos += 4
	default:
		return false
	}
	p.t.nodes[idx].end = int32(len(p.t.nodes))
	return true
}

func (p *parser) object(idx int32) bool {
	if p.depth++; p.depth > maxDepth {
		return false
	}
	p.pos++ // '{'
	p.t.nodes[idx].kind = jObj
	p.t.schemas++
	base := len(p.scratch)
	p.skipSpace()
	if p.pos < len(p.text) && p.text[p.pos] == '}' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			if p.pos >= len(p.text) || p.text[p.pos] != '"' {
				return false
			}
			key, ok := p.str()
			if !ok {
				return false
			}
			p.skipSpace()
			if p.pos >= len(p.text) || p.text[p.pos] != ':' {
				return false
			}
			p.pos++
			p.skipSpace()
			if p.t.str(key) == "$ref" {
				p.t.hasRef = true
			}
			p.scratch = append(p.scratch, int32(len(p.t.nodes)))
			if !p.value(idx, key) {
				return false
			}
			more, ok := p.afterItem('}')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	members := p.scratch[base:]
	p.t.nodes[idx].n = int32(p.t.hideMembers(members, p.open))
	p.scratch = p.scratch[:base]
	p.t.nodes[idx].end = int32(len(p.t.nodes))
	p.depth--
	return true
}

// hideMembers marks the members (indexes into nodes) that the decoded
// object would not have, and returns how many it has.
func (t *tree) hideMembers(members []int32, open bool) int {
	nodes := t.nodes
	visible := len(members)
	if len(members) <= 16 {
		for i, m := range members {
			for _, later := range members[i+1:] {
				if t.key(later) == t.key(m) {
					nodes[m].hidden = true
					visible--
					break
				}
			}
		}
	} else {
		last := make(map[string]int32, len(members))
		for _, m := range members {
			last[t.key(m)] = m
		}
		for _, m := range members {
			if last[t.key(m)] != m {
				nodes[m].hidden = true
				visible--
			}
		}
	}
	if open {
		for _, m := range members {
			if n := &nodes[m]; !n.hidden && n.kind == jFalse && (t.key(m) == "additionalProperties" || t.key(m) == "unevaluatedProperties") {
				n.hidden = true
				visible--
			}
		}
	}
	return visible
}

func (p *parser) array(idx int32) bool {
	if p.depth++; p.depth > maxDepth {
		return false
	}
	p.pos++ // '['
	p.t.nodes[idx].kind = jArr
	p.skipSpace()
	n := int32(0)
	if p.pos < len(p.text) && p.text[p.pos] == ']' {
		p.pos++
	} else {
		for {
			p.skipSpace()
			if !p.value(idx, span{}) {
				return false
			}
			n++
			more, ok := p.afterItem(']')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	p.t.nodes[idx].n = n
	p.t.nodes[idx].end = int32(len(p.t.nodes))
	p.depth--
	return true
}

// number reads a number in JSON's grammar and returns its text.
func (p *parser) number() (span, bool) {
	end, ok := jsonvalue.Number(p.text, p.pos)
	if !ok {
		return span{}, false
	}
	out := span{int32(p.pos), int32(end - p.pos)}
	p.pos = end
	return out, true
}

// str reads a string at p.pos (its opening quote) and returns its value:
// a substring of the text when it has no escape and is valid UTF-8,
// otherwise unescaped as encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD), both by package jsonvalue.
func (p *parser) str() (span, bool) {
	start := p.pos + 1
	end, verbatim, ok := jsonvalue.String(p.text, p.pos)
	if !ok {
		return span{}, false
	}
	p.pos = end + 1
	if verbatim {
		return span{int32(start), int32(end - start)}, true
	}
	return p.t.keep(jsonvalue.Unquote(p.text[start:end])), true
}

// keep stores a string that is not a substring of the text.
func (t *tree) keep(s string) span {
	t.unq = append(t.unq, s)
	return span{off: -int32(len(t.unq))}
}

// str returns the string sp names.
func (t *tree) str(sp span) string {
	if sp.off < 0 {
		return t.unq[-1-sp.off]
	}
	return t.text[sp.off : sp.off+sp.n]
}

// key returns the member name of the value at i; sval the text of the
// string or number at i.
func (t *tree) key(i int32) string  { return t.str(t.nodes[i].k) }
func (t *tree) sval(i int32) string { return t.str(t.nodes[i].v) }

// fromValue converts a value decoded by encoding/json (with UseNumber)
// into a tree; Go values that are no JSON value become jForeign.
func fromValue(v any) *tree {
	t := &tree{}
	t.add(-1, span{}, v)
	return t
}

func (t *tree) add(parent int32, key span, v any) {
	idx := int32(len(t.nodes))
	t.nodes = append(t.nodes, jnode{parent: parent, k: key})
	n := &t.nodes[idx]
	switch x := v.(type) {
	case nil:
		n.kind = jNull
	case bool:
		n.kind = jFalse
		if x {
			n.kind = jTrue
		}
		t.schemas++
	case json.Number:
		n.kind, n.v = jNum, t.keep(string(x))
	case string:
		n.kind, n.v = jStr, t.keep(x)
	case []any:
		n.kind, n.n = jArr, int32(len(x))
		for _, item := range x {
			t.add(idx, span{}, item)
		}
	case map[string]any:
		n.kind, n.n = jObj, int32(len(x))
		t.schemas++
		for k, item := range x {
			if k == "$ref" {
				t.hasRef = true
			}
			t.add(idx, t.keep(k), item)
		}
	default:
		n.kind, n.n = jForeign, int32(len(t.vals))
		t.vals = append(t.vals, v)
	}
	t.nodes[idx].end = int32(len(t.nodes))
}

// first returns the index of the first member or item of a container at
// idx (== end when it has none); next the index after the value at i.
func (t *tree) first(idx int32) int32 { return idx + 1 }
func (t *tree) next(i int32) int32    { return t.nodes[i].end }

// member returns the visible member of the object at idx named key.
func (t *tree) member(idx int32, key string) (int32, bool) {
	for i := t.first(idx); i < t.nodes[idx].end; i = t.next(i) {
		if !t.nodes[i].hidden && t.key(i) == key {
			return i, true
		}
	}
	return 0, false
}

// item returns the index of item k of the array at idx.
func (t *tree) item(idx int32, k int) int32 {
	i := t.first(idx)
	for ; k > 0; k-- {
		i = t.next(i)
	}
	return i
}

// jsonType is the JSON type of the value at i, false for a jForeign that
// is no JSON value.
func (t *tree) jsonType(i int32) (string, bool) {
	switch n := &t.nodes[i]; n.kind {
	case jNull:
		return "null", true
	case jFalse, jTrue:
		return "boolean", true
	case jNum:
		return "number", true
	case jStr:
		return "string", true
	case jArr:
		return "array", true
	case jObj:
		return "object", true
	default:
		return jsonType(t.vals[n.n])
	}
}

// typeOf names the type of the value at i for a message.
func (t *tree) typeOf(i int32) string {
	if n := &t.nodes[i]; n.kind == jForeign {
		return typeOf(t.vals[n.n])
	}
	s, _ := t.jsonType(i)
	return s
}

// value materializes the value at i as encoding/json decodes it (with
// UseNumber): for const and enum.
func (t *tree) value(i int32) any {
	n := &t.nodes[i]
	switch n.kind {
	case jNull:
		return nil
	case jFalse:
		return false
	case jTrue:
		return true
	case jNum:
		return json.Number(t.sval(i))
	case jStr:
		return t.sval(i)
	case jArr:
		out := make([]any, 0, n.n)
		for c := t.first(i); c < n.end; c = t.next(c) {
			out = append(out, t.value(c))
		}
		return out
	case jObj:
		out := make(map[string]any, n.n)
		for c := t.first(i); c < n.end; c = t.next(c) {
			if !t.nodes[c].hidden {
				out[t.key(c)] = t.value(c)
			}
		}
		return out
	default:
		return t.vals[n.n]
	}
}

// pointer is the JSON pointer of the value at i.
func (t *tree) pointer(i int32) string {
	if i <= 0 {
		return ""
	}
	parent := t.nodes[i].parent
	tok := ""
	if t.nodes[parent].kind == jArr {
		k := 0
		for c := t.first(parent); c != i; c = t.next(c) {
			k++
		}
		tok = strconv.Itoa(k)
	} else {
		tok = escapeToken(t.key(i))
	}
	return t.pointer(parent) + "/" + tok
}
