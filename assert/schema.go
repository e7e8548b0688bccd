package assert

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/assaykit/assay/internal/jsonschema"
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
// 2020-12). It is safe for concurrent use. The validator is assay's own
// (internal/jsonschema): it implements the validation vocabulary of 2020-12
// with references inside the one document, words its messages as
// github.com/santhosh-tekuri/jsonschema/v5 does, and rejects a schema that
// uses a keyword it does not implement ($dynamicRef, a remote $ref, ...)
// rather than ignore it. "format" is an annotation, never asserted.
type Validator struct {
	schema *jsonschema.Schema
	source json.RawMessage
}

// NewValidator compiles schema. With lenient set, every
// "additionalProperties": false and "unevaluatedProperties": false is dropped
// first, so unknown keys pass (the forward-compatible mode of
// AllowUnknownKeys).
func NewValidator(name string, schema []byte, lenient bool) (*Validator, error) {
	// Compiled from the text, not from a decoded value: decoding the text
	// with encoding/json was most of a schema's compilation, and kinds'
	// schemas compile once per process, often a short one.
	compile := jsonschema.Compile
	if lenient {
		compile = jsonschema.CompileOpen
	}
	s, err := compile(schema)
	if err != nil {
		var ce *jsonschema.CompileError
		if errors.As(err, &ce) && ce.Syntax != nil {
			return nil, fmt.Errorf("assert: schema %q is not JSON: %w", name, ce.Syntax)
		}
		return nil, fmt.Errorf("assert: schema %q: %w", name, err)
	}
	return &Validator{schema: s, source: append(json.RawMessage(nil), schema...)}, nil
}

// Schema returns the schema document as it was given.
func (v *Validator) Schema() json.RawMessage { return v.source }

// Validate checks doc, a value decoded from JSON with json.Decoder.UseNumber
// (or the Value of a YAMLDocument), and returns every violation,
// sorted by pointer. pos, when not nil, supplies line and column.
func (v *Validator) Validate(doc any, pos Positions) []Violation {
	found := v.schema.Validate(doc)
	if len(found) == 0 {
		return nil
	}
	out := make([]Violation, 0, len(found))
	for _, x := range found {
		collectViolation(x, &out)
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

// collectViolation turns one violation of the schema into assert's: a
// failed "additionalProperties": false, "additionalProperties 'expect', 'x'
// not allowed", becomes one violation per key, at the key, so that a typo is
// reported where it was typed.
func collectViolation(x jsonschema.Violation, out *[]Violation) {
	if len(x.Properties) > 0 {
		for _, name := range x.Properties {
			*out = append(*out, Violation{Pointer: x.InstanceLocation + "/" + EscapePointer(name), Message: fmt.Sprintf("unknown key %q", name)})
		}
		return
	}
	*out = append(*out, Violation{Pointer: x.InstanceLocation, Message: x.Message})
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
