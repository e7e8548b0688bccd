package assert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/assaykit/assay/internal/suggest"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Position is a place in a YAML document, 1-based.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Positions maps a JSON pointer into a document converted from YAML to the
// place in the YAML text it came from. An object member's pointer maps to its
// key, so an unknown key is reported where it is written.
type Positions map[string]Position

// Violation is one way a document breaks its schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value; "" is
	// the whole document.
	Pointer string `json:"pointer"`
	// Line and Column locate it in YAML input; 0 when the input was JSON.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Message says what is wrong, e.g. `unknown key "expect"`.
	Message string `json:"message"`
}

// String renders the violation as "line:col: /pointer: message", leaving out
// what is unknown.
func (v Violation) String() string {
	var b strings.Builder
	if v.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", v.Line, v.Column)
	}
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	b.WriteString(p)
	b.WriteString(": ")
	b.WriteString(v.Message)
	return b.String()
}

// Validator checks JSON documents against one compiled JSON Schema (draft
// 2020-12). It is safe for concurrent use.
//
// Schemas are compiled and documents validated by
// github.com/santhosh-tekuri/jsonschema/v5 as draft 2020-12 (a schema
// without $schema is read as one that names it, so "format" is an
// annotation, never asserted), with no loader: a $ref must point inside the
// schema. Its messages are kept, and reworded where they serve a reader
// poorly:
//
//   - A failed "additionalProperties": false is one violation per key, at
//     the key, `unknown key "expect"`, so that a typo is reported where it
//     was typed.
//   - A failed enum lists its values as they are: jsonschema/v5 formats the
//     message with the values as the format string, so a '%' in one
//     garbles it ("%!"(MISSING)).
//   - Pointers are RFC 6901: jsonschema/v5 also percent-encodes each token
//     as a URL path ("a b" reads "a%20b"). It locates a violation inside a
//     member named "" at the member's parent, and so does Validate.
//   - A number whose exponent math/big cannot read (beyond a million, after
//     its fractional digits) is a violation at its pointer; jsonschema/v5
//     would crash comparing it.
//
// Violations come out sorted by pointer, those of one value in the order
// the validator found them, each once.
type Validator struct {
	schema *jsonschema.Schema
	source json.RawMessage
	doc    any // the schema as compiled, decoded with UseNumber
}

// schemaBase is the base URL the schemas are compiled under; it appears in
// no message.
const schemaBase = "https://schemas.assaykit.dev/"

// NewValidator compiles schema. With lenient set, every
// "additionalProperties": false and "unevaluatedProperties": false is dropped
// first, so unknown keys pass (the forward-compatible mode of
// AllowUnknownKeys).
func NewValidator(name string, schema []byte, lenient bool) (*Validator, error) {
	doc, err := decodeNumbers(schema)
	if err != nil {
		return nil, fmt.Errorf("assert: schema %q is not JSON: %w", name, err)
	}
	compiled := schema
	root, isObject := doc.(map[string]any)
	if _, named := root["$schema"]; lenient || isObject && !named {
		if lenient {
			doc = openObjects(doc)
		}
		if isObject && !named {
			// jsonschema/v5 reads a schema without $schema with every
			// vocabulary on, "format" asserted: name the draft it is read as.
			root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		}
		if compiled, err = json.Marshal(doc); err != nil {
			return nil, fmt.Errorf("assert: schema %q: %w", name, err)
		}
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%s: a schema's references must point inside it", s)
	}
	u := schemaBase + url.PathEscape(name) + ".json"
	if err := c.AddResource(u, bytes.NewReader(compiled)); err != nil {
		return nil, fmt.Errorf("assert: schema %q: %w", name, err)
	}
	s, err := c.Compile(u)
	if err != nil {
		return nil, fmt.Errorf("assert: schema %q: %w", name, err)
	}
	return &Validator{schema: s, source: bytes.Clone(schema), doc: doc}, nil
}

// decodeNumbers decodes one JSON value, numbers as json.Number.
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// openObjects drops every "additionalProperties": false and
// "unevaluatedProperties": false from a decoded schema.
func openObjects(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if (k == "additionalProperties" || k == "unevaluatedProperties") && child == false {
				delete(t, k)
				continue
			}
			t[k] = openObjects(child)
		}
	case []any:
		for i := range t {
			t[i] = openObjects(t[i])
		}
	}
	return v
}

// Schema returns the schema document as it was given.
func (v *Validator) Schema() json.RawMessage { return v.source }

// Validate checks doc, a value decoded from JSON with json.Decoder.UseNumber
// (or the Value of a YAMLDocument), and returns every violation,
// sorted by pointer. pos, when not nil, supplies line and column.
func (v *Validator) Validate(doc any, pos Positions) []Violation {
	var out []Violation
	if out = unreadableNumbers(doc, "", out); len(out) == 0 {
		err := v.schema.Validate(doc)
		var ve *jsonschema.ValidationError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ve):
			out = v.collect(ve, out)
		default:
			out = append(out, Violation{Message: err.Error()})
		}
	}
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, x := range out {
		key := x.Pointer + "\x00" + x.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		if p, ok := pos.find(x.Pointer); ok {
			x.Line, x.Column = p.Line, p.Column
		}
		uniq = append(uniq, x)
	}
	sort.SliceStable(uniq, func(i, j int) bool { return uniq[i].Pointer < uniq[j].Pointer })
	return uniq
}

// collect appends the leaves of ve's tree, worded for assert.
func (v *Validator) collect(ve *jsonschema.ValidationError, out []Violation) []Violation {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			out = v.collect(c, out)
		}
		return out
	}
	loc := unescapeLocation(ve.InstanceLocation)
	keyword := ve.KeywordLocation[strings.LastIndexByte(ve.KeywordLocation, '/')+1:]
	switch {
	case keyword == "additionalProperties" && strings.HasPrefix(ve.Message, "additionalProperties '"):
		if names, ok := quotedNames(strings.TrimSuffix(strings.TrimPrefix(ve.Message, "additionalProperties "), " not allowed")); ok {
			var known []string
			if props, ok := v.keywordValue(strings.TrimSuffix(ve.AbsoluteKeywordLocation, "additionalProperties") + "properties").(map[string]any); ok {
				for k := range props {
					known = append(known, k)
				}
				sort.Strings(known)
			}
			for _, name := range names {
				msg := fmt.Sprintf("unknown key %q", name)
				if near := suggest.Nearest(name, known); near != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", near)
				}
				out = append(out, Violation{Pointer: loc + "/" + EscapePointer(name), Message: msg})
			}
			return out
		}
	case keyword == "oneOf" && strings.HasPrefix(ve.Message, "valid against schemas at indexes"):
		// Two branches fit: for a schema whose branches each require one
		// key, that is two keys where one belongs.
		msg := "fits more than one of the forms it may take; it must fit exactly one"
		if branches, ok := v.keywordValue(ve.AbsoluteKeywordLocation).([]any); ok {
			var keys []string
			for _, b := range branches {
				if m, ok := b.(map[string]any); ok {
					if req, ok := m["required"].([]any); ok && len(req) == 1 {
						if k, ok := req[0].(string); ok {
							keys = append(keys, strconv.Quote(k))
						}
					}
				}
			}
			if len(keys) == len(branches) && len(keys) > 1 {
				msg = "give exactly one of " + strings.Join(keys, ", ") + ", not several"
			}
		}
		return append(out, Violation{Pointer: loc, Message: msg})
	case keyword == "const" && strings.Contains(ve.Message, "<nil>"):
		return append(out, Violation{Pointer: loc, Message: strings.ReplaceAll(ve.Message, "<nil>", "null")})
	case keyword == "enum":
		if items, ok := v.keywordValue(ve.AbsoluteKeywordLocation).([]any); ok {
			return append(out, Violation{Pointer: loc, Message: enumMessage(items)})
		}
	}
	return append(out, Violation{Pointer: loc, Message: ve.Message})
}

// unescapeLocation turns jsonschema/v5's instance location, whose tokens
// are also percent-encoded as URL path segments, into an RFC 6901 pointer.
func unescapeLocation(ptr string) string {
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

// quotedNames reads jsonschema/v5's list of property names, each quoted as
// Go quotes a string but between single quotes (a ' escaped, a " not):
// 'a', 'it\'s'. ok is false for anything else.
func quotedNames(list string) (names []string, ok bool) {
	for list != "" {
		if list[0] != '\'' {
			return nil, false
		}
		var b strings.Builder
		b.WriteByte('"')
		i := 1
		for ; i < len(list) && list[i] != '\''; i++ {
			switch c := list[i]; {
			case c == '\\' && i+1 < len(list) && list[i+1] == '\'':
				b.WriteByte('\'')
				i++
			case c == '\\' && i+1 < len(list):
				b.WriteString(list[i : i+2])
				i++
			case c == '"':
				b.WriteString(`\"`)
			default:
				b.WriteByte(c)
			}
		}
		if i >= len(list) {
			return nil, false
		}
		b.WriteByte('"')
		name, err := strconv.Unquote(b.String())
		if err != nil {
			return nil, false
		}
		names = append(names, name)
		list = strings.TrimPrefix(list[i+1:], ", ")
	}
	return names, len(names) > 0
}

// keywordValue returns what the schema holds at jsonschema/v5's absolute
// keyword location (the schema's URL, then a fragment that is a JSON
// pointer), or nil when it is elsewhere (a subschema with its own $id).
func (v *Validator) keywordValue(loc string) any {
	base, frag, ok := strings.Cut(loc, "#")
	if !ok || !strings.HasPrefix(base, schemaBase) {
		return nil
	}
	cur := v.doc
	for _, tok := range strings.Split(frag, "/")[1:] {
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// enumMessage words a failed enum as jsonschema/v5 means to: the values
// as Go's %#v prints them, or "enum failed" when one is an object or an
// array.
func enumMessage(items []any) string {
	parts := make([]string, len(items))
	for i, item := range items {
		switch item.(type) {
		case map[string]any, []any:
			return "enum failed"
		}
		if b, err := json.Marshal(item); err == nil {
			parts[i] = string(b) // null, not Go's <nil>
		} else {
			parts[i] = fmt.Sprintf("%#v", item)
		}
	}
	if len(parts) == 1 {
		return "value must be " + parts[0]
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

// unreadableNumbers appends a violation for each number in doc (at ptr)
// whose value math/big cannot read: 10 to a power beyond a million either
// way, once the digits after its point are counted in.
func unreadableNumbers(doc any, ptr string, out []Violation) []Violation {
	switch t := doc.(type) {
	case map[string]any:
		for k, c := range t {
			out = unreadableNumbers(c, ptr+"/"+EscapePointer(k), out)
		}
	case []any:
		for i, c := range t {
			out = unreadableNumbers(c, IndexPointer(ptr, i), out)
		}
	case json.Number:
		if !readableNumber(string(t)) {
			return append(out, Violation{Pointer: ptr, Message: "the number " + preview(string(t)) + " is beyond what can be checked (a power of ten past a million)"})
		}
	}
	return out
}

// readableNumber reports whether math/big's Rat.SetString reads the JSON
// number s: the power of ten it scales by, its exponent less the digits
// after its point, is within a million.
func readableNumber(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	frac := 0
	if _, f, ok := strings.Cut(mant, "."); ok {
		frac = len(f)
	}
	e := 0
	if hasExp {
		var err error
		if e, err = strconv.Atoi(exp); err != nil {
			return false
		}
	}
	p := e - frac
	return p >= -1e6 && p <= 1e6
}

// preview shortens a long number for a message.
func preview(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-10:]
	}
	return s
}

// find returns the position of ptr, or of its nearest ancestor that has one.
func (p Positions) find(ptr string) (Position, bool) {
	if p == nil {
		return Position{}, false
	}
	for {
		if pos, ok := p[ptr]; ok {
			return pos, true
		}
		if ptr == "" {
			return Position{}, false
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

// EscapePointer escapes one JSON pointer reference token (RFC 6901).
func EscapePointer(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}

// IndexPointer returns the pointer of element i below base.
func IndexPointer(base string, i int) string { return base + "/" + strconv.Itoa(i) }
