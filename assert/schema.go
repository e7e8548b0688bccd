package assert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
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
// schema. Its messages are reworded in the words a person uses, not the
// schema's:
//
//   - A wrong type says what the value must be and what it is: "must be a
//     string, not a number"; a missing key is `missing required key "intent"`;
//     an empty string, list or object is "must not be empty", other lengths
//     and bounds "must be at least 3 characters long (it has 2)", "must be at
//     most 1.5, not 2"; a failed "pattern" is "must be " and the schema's
//     "description" (so a schema says in words what its pattern means), else
//     "must match the regular expression ...".
//   - A oneOf or anyOf none of whose branches fit is one message, not each
//     branch's complaint as if all applied: "must be a string or a non-empty
//     list of strings" when no branch's type fits, `needs "path" or
//     "path_pattern"` when the branches that fit each miss only required
//     keys, else the complaints of the closest branch (its type fits, with
//     the fewest violations).
//   - A key refused by "propertyNames" is "a key ...", and the empty key ""
//     (whose token jsonschema/v5 drops) is located at its own pointer,
//     "/search/".
//   - A failed "additionalProperties": false is one violation per key, at
//     the key, `unknown key "expect"`, so that a typo is reported where it
//     was typed.
//   - A failed enum lists its values as they are: jsonschema/v5 formats the
//     message with the values as the format string, so a '%' in one
//     garbles it ("%!"(MISSING)).
//   - Pointers are RFC 6901: jsonschema/v5 also percent-encodes each token
//     as a URL path ("a b" reads "a%20b"). It locates a violation inside a
//     member named "" at the member's parent, and so does Validate (but for
//     the key itself, above).
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
		if keyword := lastToken(ve.KeywordLocation); (keyword == "oneOf" || keyword == "anyOf") && strings.HasSuffix(ve.Message, " failed") {
			return v.alternatives(ve, out)
		}
		for _, c := range ve.Causes {
			out = v.collect(c, out)
		}
		return out
	}
	loc := unescapeLocation(ve.InstanceLocation)
	keyword := lastToken(ve.KeywordLocation)
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
	case keyword == "enum":
		if items, ok := v.keywordValue(ve.AbsoluteKeywordLocation).([]any); ok {
			return append(out, Violation{Pointer: loc, Message: enumMessage(items)})
		}
	}
	msg := v.word(ve, keyword)
	if strings.Contains(ve.KeywordLocation, "/propertyNames/") {
		// The value checked is a key of the object at loc's parent, or, for
		// the key "" (whose token jsonschema/v5 drops), of the object at loc.
		if keyword == "minLength" && strings.HasSuffix(ve.Message, "but got 0") {
			loc += "/"
		}
		msg = "a key " + msg
	}
	return append(out, Violation{Pointer: loc, Message: msg})
}

func lastToken(ptr string) string { return ptr[strings.LastIndexByte(ptr, '/')+1:] }

// word rewords a leaf of jsonschema/v5 (one keyword's failure) in the words
// a person uses: "must not be empty" for "length must be >= 1, but got 0".
// A message it does not recognise is kept.
func (v *Validator) word(ve *jsonschema.ValidationError, keyword string) string {
	msg := ve.Message
	var a, b int
	if strings.Contains(ve.KeywordLocation, "/dependentRequired/") || strings.Contains(ve.KeywordLocation, "/dependencies/") {
		// "property 'b' is required, if 'a' property exists"
		need, given, _ := strings.Cut(strings.TrimPrefix(msg, "property "), " is required, if ")
		n, ok1 := quotedNames(need)
		g, ok2 := quotedNames(strings.TrimSuffix(given, " property exists"))
		if ok1 && ok2 && len(n) == 1 && len(g) == 1 {
			return fmt.Sprintf("missing required key %q (needed when %q is given)", n[0], g[0])
		}
	}
	switch keyword {
	case "type":
		if want, got, ok := strings.Cut(strings.TrimPrefix(msg, "expected "), ", but got "); ok {
			names := strings.Split(want, " or ")
			for i, n := range names {
				names[i] = typeName(n, true)
			}
			if len(names) == 1 {
				// "a non-empty list of strings", not just "a list"
				if d := v.describe(v.keywordValue(strings.TrimSuffix(ve.AbsoluteKeywordLocation, "/type"))); d != "" {
					names[0] = d
				}
			}
			what := typeName(got, false)
			if want == "integer" && got == "number" {
				what = "a fraction"
			}
			return "must be " + strings.Join(names, " or ") + ", not " + what
		}
	case "required":
		if names, ok := quotedNames(strings.TrimPrefix(msg, "missing properties: ")); ok {
			return "missing required " + keysPhrase(names, " and ")
		}
	case "minLength":
		if n, _ := fmt.Sscanf(msg, "length must be >= %d, but got %d", &a, &b); n == 2 {
			if a == 1 {
				return "must not be empty"
			}
			return fmt.Sprintf("must be at least %s long (it has %d)", plural(a, "character"), b)
		}
	case "maxLength":
		if n, _ := fmt.Sscanf(msg, "length must be <= %d, but got %d", &a, &b); n == 2 {
			return fmt.Sprintf("must be at most %s long (it has %d)", plural(a, "character"), b)
		}
	case "minItems":
		if n, _ := fmt.Sscanf(msg, "minimum %d items required, but found %d items", &a, &b); n == 2 {
			if a == 1 {
				return "must not be empty"
			}
			return fmt.Sprintf("needs at least %s (it has %d)", plural(a, "item"), b)
		}
	case "maxItems":
		if n, _ := fmt.Sscanf(msg, "maximum %d items required, but found %d items", &a, &b); n == 2 {
			return fmt.Sprintf("may hold at most %s (it has %d)", plural(a, "item"), b)
		}
	case "minProperties":
		if n, _ := fmt.Sscanf(msg, "minimum %d properties allowed, but found %d properties", &a, &b); n == 2 {
			if a == 1 {
				return "must not be empty"
			}
			return fmt.Sprintf("needs at least %s (it has %d)", plural(a, "key"), b)
		}
	case "maxProperties":
		if n, _ := fmt.Sscanf(msg, "maximum %d properties allowed, but found %d properties", &a, &b); n == 2 {
			return fmt.Sprintf("may hold at most %s (it has %d)", plural(a, "key"), b)
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		words := map[string]string{"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}
		if i := strings.Index(msg, " but found "); i >= 0 && strings.HasPrefix(msg, "must be ") {
			limit := msg[len("must be "):i]
			limit = limit[strings.IndexByte(limit, ' ')+1:] // after >=, <=, > or <
			return "must be " + words[keyword] + " " + limit + ", not " + msg[i+len(" but found "):]
		}
	case "multipleOf":
		if value, of, ok := strings.Cut(msg, " not multipleOf "); ok {
			return "must be a multiple of " + of + ", not " + value
		}
	case "pattern":
		schema, _ := v.keywordValue(strings.TrimSuffix(ve.AbsoluteKeywordLocation, "/pattern")).(map[string]any)
		pattern, _ := schema["pattern"].(string)
		if desc, ok := schema["description"].(string); ok && desc != "" {
			return "must be " + desc
		}
		if pattern != "" {
			return "must match the regular expression " + pattern
		}
	case "uniqueItems":
		if n, _ := fmt.Sscanf(msg, "items at index %d and %d are equal", &a, &b); n == 2 {
			return fmt.Sprintf("items %d and %d are the same: each item must be different", a, b)
		}
	case "minContains", "contains":
		if n, _ := fmt.Sscanf(msg, "valid must be >= %d, but got %d", &a, &b); n == 2 {
			return fmt.Sprintf("needs at least %s of the form it must contain (it has %d)", plural(a, "item"), b)
		}
	case "maxContains":
		if n, _ := fmt.Sscanf(msg, "valid must be <= %d, but got %d", &a, &b); n == 2 {
			return fmt.Sprintf("may hold at most %s of that form (it has %d)", plural(a, "item"), b)
		}
	case "not":
		return "has a form that is not allowed here"
	case "const":
		return strings.ReplaceAll(msg, "<nil>", "null")
	case "unevaluatedProperties":
		if msg == "not allowed" {
			if name := lastToken(ve.InstanceLocation); name != "" {
				if u, err := url.PathUnescape(name); err == nil {
					return fmt.Sprintf("unknown key %q", strings.NewReplacer("~1", "/", "~0", "~").Replace(u))
				}
			}
		}
	}
	return msg
}

// typeName words a JSON Schema type: what a value must be (want) or what it
// was.
func typeName(t string, want bool) string {
	switch t {
	case "string":
		return "a string"
	case "integer":
		if want {
			return "a whole number"
		}
		return "a number"
	case "number":
		return "a number"
	case "boolean":
		if want {
			return "true or false"
		}
		return "a boolean"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return t // null
}

// keysPhrase words names as `key "a"` or `keys "a", "b"`, the last two
// joined by last (" and ", " or ").
func keysPhrase(names []string, last string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return "key " + q[0]
	}
	return "keys " + strings.Join(q[:len(q)-1], ", ") + last + q[len(q)-1]
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// alternatives words the failure of a oneOf or anyOf none of whose
// branches fit as one message where the branches say how the value may
// be, rather than each branch's complaint as if all applied:
//
//   - when every branch wants another type: "must be a string or a list of
//     strings";
//   - when the branches whose type fits each miss only required keys:
//     `needs "path" or "path_pattern"`;
//   - otherwise the complaints of the branch that comes closest (its type
//     fits, with the fewest violations), so that a list of strings with one
//     number in it is told about the number.
func (v *Validator) alternatives(ve *jsonschema.ValidationError, out []Violation) []Violation {
	loc := unescapeLocation(ve.InstanceLocation)
	branches, _ := v.keywordValue(ve.AbsoluteKeywordLocation).([]any)
	type branch struct {
		schema     any
		violations []Violation
		required   [][]string // the keys each required failure names, when that is all that failed
		typeMiss   bool
	}
	var fits []branch
	var wants []string
	for _, c := range ve.Causes {
		b := branch{violations: v.collect(c, nil)}
		if i, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(c.KeywordLocation, ve.KeywordLocation+"/"), "/", 2)[0]); err == nil && i < len(branches) {
			b.schema = branches[i]
		}
		onlyRequired := true
		for _, l := range leaves(c, nil) {
			at := l.InstanceLocation == ve.InstanceLocation
			switch keyword := lastToken(l.KeywordLocation); {
			case keyword == "type" && at:
				b.typeMiss = true
			case keyword == "required" && at:
				if names, ok := quotedNames(strings.TrimPrefix(l.Message, "missing properties: ")); ok {
					b.required = append(b.required, names)
					continue
				}
				onlyRequired = false
			default:
				onlyRequired = false
			}
		}
		if !onlyRequired {
			b.required = nil
		}
		if b.typeMiss {
			wants = append(wants, v.describe(b.schema)) // "" when it cannot be worded
			continue
		}
		fits = append(fits, b)
	}
	if len(fits) == 0 {
		if !slices.Contains(wants, "") && len(wants) > 0 {
			return append(out, Violation{Pointer: loc, Message: "must be " + strings.Join(wants, " or ")})
		}
		for _, c := range ve.Causes {
			out = v.collect(c, out)
		}
		return out
	}
	var alts []string
	for _, b := range fits {
		if len(b.required) != 1 {
			alts = nil
			break
		}
		alts = append(alts, quotedList(b.required[0]))
	}
	if alts != nil {
		return append(out, Violation{Pointer: loc, Message: "needs " + strings.Join(alts, " or ")})
	}
	best := fits[0]
	for _, b := range fits[1:] {
		if len(b.violations) < len(best.violations) {
			best = b
		}
	}
	return append(out, best.violations...)
}

// quotedList quotes names, joined by " and ".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, " and ")
}

// leaves appends the leaves of ve's tree, as jsonschema/v5 words them.
func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out)
	}
	return out
}

// describe words what a schema takes by its type, "a string" or "a list of
// strings", following a $ref inside the schema; "" when it has no single
// type to tell.
func (v *Validator) describe(schema any) string {
	m, ok := v.resolve(schema).(map[string]any)
	if !ok {
		return ""
	}
	t, ok := m["type"].(string)
	if !ok {
		return ""
	}
	if t != "array" {
		return typeName(t, true)
	}
	list := "a list"
	if n, ok := m["minItems"].(json.Number); ok && n.String() != "0" {
		list = "a non-empty list"
	}
	if item, ok := v.resolve(m["items"]).(map[string]any); ok {
		plurals := map[string]string{"string": "strings", "integer": "whole numbers", "number": "numbers",
			"boolean": "booleans", "object": "objects", "array": "lists"}
		if t, ok := item["type"].(string); ok && plurals[t] != "" {
			return list + " of " + plurals[t]
		}
	}
	return list
}

// resolve follows a schema's "$ref" to a place inside the schema ("#/...").
func (v *Validator) resolve(schema any) any {
	for range 10 {
		m, ok := schema.(map[string]any)
		if !ok {
			return schema
		}
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return schema
		}
		schema = v.keywordValue(schemaBase + "x.json" + ref)
	}
	return schema
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
