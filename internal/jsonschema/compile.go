package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// metaSchema2020 is the only $schema a schema may name.
const metaSchema2020 = "https://json-schema.org/draft/2020-12/schema"

// CompileError is a schema that cannot be compiled: not JSON, a keyword with
// a value of the wrong shape, a keyword this package does not implement, a
// $ref it cannot resolve, or references that loop without consuming input.
type CompileError struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending schema object
	// within the schema document; "" is the root.
	Pointer string
	// Keyword is the keyword at fault, "" when the fault is the whole
	// schema (not JSON, not an object or boolean).
	Keyword string
	// Message says what is wrong.
	Message string
}

func (e *CompileError) Error() string {
	loc := e.Pointer
	if e.Keyword != "" {
		loc += "/" + escapeToken(e.Keyword)
	}
	if loc == "" {
		loc = "/"
	}
	return "jsonschema: " + loc + ": " + e.Message
}

// Schema is a compiled JSON Schema (draft 2020-12). It is immutable and safe
// for concurrent use.
type Schema struct {
	root *node
}

// unsupported returns why a keyword of some JSON Schema draft that this
// package does not implement cannot be compiled: ignoring it would change
// verdicts. (Functions rather than maps: package variables with map or
// regexp values cost start-up time, which this package exists to save.)
func unsupported(kw string) (string, bool) {
	switch kw {
	case "$dynamicRef":
		return "dynamic references are not supported", true
	case "$dynamicAnchor":
		return "dynamic anchors are not supported", true
	case "$recursiveRef":
		return "$recursiveRef (draft 2019-09) is not supported", true
	case "$recursiveAnchor":
		return "$recursiveAnchor (draft 2019-09) is not supported", true
	case "$vocabulary":
		return "custom vocabularies are not supported", true
	case "dependencies":
		return "dependencies (draft 7) is not a 2020-12 keyword: use dependentRequired or dependentSchemas", true
	case "additionalItems":
		return "additionalItems (draft 2019-09) is not a 2020-12 keyword: use prefixItems and items", true
	}
	return "", false
}

// annotation reports whether kw is a 2020-12 keyword that never affects
// validation, and the JSON type its value must have ("" for any, "schema"
// for a subschema).
func annotation(kw string) (string, bool) {
	switch kw {
	case "title", "description", "$comment", "format", "contentEncoding", "contentMediaType":
		return "string", true
	case "contentSchema":
		return "schema", true
	case "deprecated", "readOnly", "writeOnly":
		return "boolean", true
	case "examples":
		return "array", true
	case "default":
		return "", true
	}
	return "", false
}

type propSchema struct {
	name string
	node *node
}

type patternSchema struct {
	re   *regexp.Regexp
	node *node
}

type dependent struct {
	name     string
	required []string
	node     *node
}

// node is one compiled schema object (or boolean schema).
type node struct {
	loc    string // JSON pointer of the schema in its document
	always *bool  // boolean schema

	types    []string
	hasConst bool
	constV   any
	constErr string
	enum     []any
	enumErr  string

	minProps, maxProps int
	required           []string
	props              []propSchema
	propNames          *node
	patternProps       []patternSchema
	hasAddProps        bool
	addPropsFalse      bool
	addProps           *node
	depRequired        []dependent
	depSchemas         []dependent

	minItems, maxItems       int
	unique                   bool
	prefixItems              []*node
	items                    *node
	contains                 *node
	minContains, maxContains int

	minLength, maxLength int
	pattern              *regexp.Regexp

	minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf *big.Rat
	// the bounds again, for comparisons without arithmetic
	minimumD, exclusiveMinimumD, maximumD, exclusiveMaximumD decimal

	ref     *node
	refText string
	not     *node
	allOf   []*node
	anyOf   []*node
	oneOf   []*node
	ifS     *node
	thenS   *node
	elseS   *node

	unevalProps *node
	unevalItems *node
}

type pendingRef struct {
	from *node
	ref  string
}

type compiler struct {
	doc     any
	nodes   map[string]*node // by pointer
	anchors map[string]*node
	pending []pendingRef
}

// Compile compiles a draft 2020-12 schema given as JSON text. Numbers are
// read exactly (as json.Number). See the package documentation for what is
// supported; anything else is a *CompileError.
func Compile(schema []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, &CompileError{Message: "schema is not JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &CompileError{Message: "schema is not JSON: data after the top-level value"}
	}
	return CompileValue(doc)
}

// CompileValue compiles a schema already decoded by encoding/json with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil).
func CompileValue(doc any) (*Schema, error) {
	c := &compiler{doc: doc, nodes: map[string]*node{}, anchors: map[string]*node{}}
	root, err := c.compile("", doc)
	if err != nil {
		return nil, err
	}
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		target, err := c.resolve(p.ref, p.from)
		if err != nil {
			return nil, err
		}
		p.from.ref = target
	}
	if err := checkLoops(root); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

func errAt(ptr, kw, format string, a ...any) error {
	return &CompileError{Pointer: ptr, Keyword: kw, Message: fmt.Sprintf(format, a...)}
}

// resolve finds the target of a same-document $ref, compiling it when it is
// not a subschema compiled already (a pointer into $defs of an unknown
// keyword, for instance).
func (c *compiler) resolve(ref string, from *node) (*node, error) {
	frag := ref[1:]
	if frag != "" && frag[0] != '/' {
		if n, ok := c.anchors[frag]; ok {
			return n, nil
		}
		return nil, errAt(from.loc, "$ref", "no $anchor %q in the schema", frag)
	}
	ptr, err := url.PathUnescape(frag)
	if err != nil {
		return nil, errAt(from.loc, "$ref", "%q is not a valid URI fragment", ref)
	}
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	v, ok := lookupPointer(c.doc, ptr)
	if !ok {
		return nil, errAt(from.loc, "$ref", "%q points at nothing in the schema", ref)
	}
	return c.compile(ptr, v)
}

func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case map[string]any:
			v, ok := t[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			cur = t[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// isAnchorName reports whether s matches ^[A-Za-z_][-A-Za-z0-9._]*$.
func isAnchorName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

func isTypeName(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

func (c *compiler) compile(ptr string, v any) (*node, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	n := &node{loc: ptr, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minContains: 1, maxContains: -1, minLength: -1, maxLength: -1}
	c.nodes[ptr] = n
	switch t := v.(type) {
	case bool:
		n.always = &t
		return n, nil
	case map[string]any:
		if err := c.compileObject(n, t); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, errAt(ptr, "", "a schema must be an object or a boolean, not %s", typeOf(v))
}

func typeOf(v any) string {
	t, ok := jsonType(v)
	if !ok {
		return fmt.Sprintf("%T", v)
	}
	return t
}

func (c *compiler) compileObject(n *node, m map[string]any) error {
	ptr := n.loc
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sub := func(kw string, v any, extra ...string) (*node, error) {
		p := ptr + "/" + escapeToken(kw)
		for _, e := range extra {
			p += "/" + escapeToken(e)
		}
		return c.compile(p, v)
	}
	subList := func(kw string, v any) ([]*node, error) {
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return nil, errAt(ptr, kw, "must be a non-empty array of schemas")
		}
		out := make([]*node, len(arr))
		for i, x := range arr {
			s, err := sub(kw, x, strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	nonNeg := func(kw string, v any) (int, error) {
		num, ok := v.(json.Number)
		if !ok {
			return 0, errAt(ptr, kw, "must be a non-negative integer")
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return 0, errAt(ptr, kw, "must be a non-negative integer")
		}
		if !r.Num().IsInt64() || r.Num().Int64() > math.MaxInt {
			return math.MaxInt, nil // more than any count
		}
		return int(r.Num().Int64()), nil
	}
	number := func(kw string, v any, d *decimal) (*big.Rat, error) {
		num, ok := v.(json.Number)
		if !ok {
			return nil, errAt(ptr, kw, "must be a number")
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok {
			return nil, errAt(ptr, kw, "%s is not a number this package can compare", num)
		}
		if d != nil {
			if *d, ok = parseDecimal(string(num)); !ok {
				return nil, errAt(ptr, kw, "%s is not a number this package can compare", num)
			}
		}
		return r, nil
	}
	stringList := func(kw string, v any) ([]string, error) {
		arr, ok := v.([]any)
		if !ok {
			return nil, errAt(ptr, kw, "must be an array of unique strings")
		}
		out := make([]string, len(arr))
		seen := map[string]bool{}
		for i, x := range arr {
			s, ok := x.(string)
			if !ok || seen[s] {
				return nil, errAt(ptr, kw, "must be an array of unique strings")
			}
			seen[s] = true
			out[i] = s
		}
		return out, nil
	}
	schemaMap := func(kw string, v any) (map[string]any, error) {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, errAt(ptr, kw, "must be an object")
		}
		return obj, nil
	}
	sortedKeys := func(obj map[string]any) []string {
		ks := make([]string, 0, len(obj))
		for k := range obj {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}

	var err error
	for _, kw := range keys {
		v := m[kw]
		if msg, ok := unsupported(kw); ok {
			return errAt(ptr, kw, "%s", msg)
		}
		if want, ok := annotation(kw); ok {
			switch want {
			case "":
			case "schema":
				if _, err := sub(kw, v); err != nil {
					return err
				}
			default:
				if t, _ := jsonType(v); t != want {
					return errAt(ptr, kw, "must be a %s", want)
				}
			}
			continue
		}
		switch kw {
		case "$schema":
			s, ok := v.(string)
			if !ok || strings.TrimSuffix(s, "#") != metaSchema2020 {
				return errAt(ptr, kw, "only %q is supported", metaSchema2020)
			}
		case "$id":
			if ptr != "" {
				return errAt(ptr, kw, "embedded schema resources ($id below the root) are not supported")
			}
			if _, ok := v.(string); !ok {
				return errAt(ptr, kw, "must be a string")
			}
		case "$anchor":
			s, ok := v.(string)
			if !ok || !isAnchorName(s) {
				return errAt(ptr, kw, "must be a plain name (letters, digits, '-', '_', '.'; not starting with a digit)")
			}
			if other, dup := c.anchors[s]; dup && other != n {
				return errAt(ptr, kw, "anchor %q is defined twice", s)
			}
			c.anchors[s] = n
		case "$ref":
			s, ok := v.(string)
			if !ok {
				return errAt(ptr, kw, "must be a string")
			}
			if !strings.HasPrefix(s, "#") {
				return errAt(ptr, kw, "only references within the same document (starting with '#') are supported, not %q", s)
			}
			n.refText = s
			c.pending = append(c.pending, pendingRef{from: n, ref: s})
		case "$defs":
			obj, err := schemaMap(kw, v)
			if err != nil {
				return err
			}
			for _, name := range sortedKeys(obj) {
				if _, err := sub(kw, obj[name], name); err != nil {
					return err
				}
			}
		case "type":
			switch t := v.(type) {
			case string:
				if !isTypeName(t) {
					return errAt(ptr, kw, "unknown type %q", t)
				}
				n.types = []string{t}
			case []any:
				seen := map[string]bool{}
				for _, x := range t {
					s, ok := x.(string)
					if !ok || !isTypeName(s) || seen[s] {
						return errAt(ptr, kw, "must be a type name or an array of unique type names")
					}
					seen[s] = true
					n.types = append(n.types, s)
				}
			default:
				return errAt(ptr, kw, "must be a type name or an array of unique type names")
			}
		case "const":
			n.hasConst, n.constV = true, v
			switch t, _ := jsonType(v); t {
			case "object", "array":
				n.constErr = "const failed"
			default:
				n.constErr = fmt.Sprintf("value must be %#v", v)
			}
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return errAt(ptr, kw, "must be an array")
			}
			n.enum = arr
			n.enumErr = enumMessage(arr)
		case "minProperties":
			n.minProps, err = nonNeg(kw, v)
		case "maxProperties":
			n.maxProps, err = nonNeg(kw, v)
		case "minItems":
			n.minItems, err = nonNeg(kw, v)
		case "maxItems":
			n.maxItems, err = nonNeg(kw, v)
		case "minLength":
			n.minLength, err = nonNeg(kw, v)
		case "maxLength":
			n.maxLength, err = nonNeg(kw, v)
		case "minContains":
			n.minContains, err = nonNeg(kw, v)
		case "maxContains":
			n.maxContains, err = nonNeg(kw, v)
		case "required":
			n.required, err = stringList(kw, v)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return errAt(ptr, kw, "must be a boolean")
			}
			n.unique = b
		case "pattern":
			s, ok := v.(string)
			if !ok {
				return errAt(ptr, kw, "must be a string")
			}
			if n.pattern, err = regexp.Compile(s); err != nil {
				return errAt(ptr, kw, "%q is not a valid regular expression (Go RE2 syntax): %v", s, err)
			}
		case "minimum":
			n.minimum, err = number(kw, v, &n.minimumD)
		case "maximum":
			n.maximum, err = number(kw, v, &n.maximumD)
		case "exclusiveMinimum":
			n.exclusiveMinimum, err = number(kw, v, &n.exclusiveMinimumD)
		case "exclusiveMaximum":
			n.exclusiveMaximum, err = number(kw, v, &n.exclusiveMaximumD)
		case "multipleOf":
			n.multipleOf, err = number(kw, v, nil)
			if err == nil && n.multipleOf.Sign() <= 0 {
				return errAt(ptr, kw, "must be greater than 0")
			}
		case "properties":
			obj, err := schemaMap(kw, v)
			if err != nil {
				return err
			}
			for _, name := range sortedKeys(obj) {
				s, err := sub(kw, obj[name], name)
				if err != nil {
					return err
				}
				n.props = append(n.props, propSchema{name, s})
			}
		case "patternProperties":
			obj, err := schemaMap(kw, v)
			if err != nil {
				return err
			}
			for _, src := range sortedKeys(obj) {
				re, err := regexp.Compile(src)
				if err != nil {
					return errAt(ptr, kw, "%q is not a valid regular expression (Go RE2 syntax): %v", src, err)
				}
				s, err := sub(kw, obj[src], src)
				if err != nil {
					return err
				}
				n.patternProps = append(n.patternProps, patternSchema{re, s})
			}
		case "additionalProperties":
			n.hasAddProps = true
			if b, ok := v.(bool); ok && !b {
				n.addPropsFalse = true
				// still compiled, so that a $ref to it resolves
			}
			n.addProps, err = sub(kw, v)
		case "propertyNames":
			n.propNames, err = sub(kw, v)
		case "dependentRequired":
			obj, err := schemaMap(kw, v)
			if err != nil {
				return err
			}
			for _, name := range sortedKeys(obj) {
				req, err := stringList(kw, obj[name])
				if err != nil {
					return err
				}
				n.depRequired = append(n.depRequired, dependent{name: name, required: req})
			}
		case "dependentSchemas":
			obj, err := schemaMap(kw, v)
			if err != nil {
				return err
			}
			for _, name := range sortedKeys(obj) {
				s, err := sub(kw, obj[name], name)
				if err != nil {
					return err
				}
				n.depSchemas = append(n.depSchemas, dependent{name: name, node: s})
			}
		case "items":
			if _, ok := v.([]any); ok {
				return errAt(ptr, kw, "must be a schema (the array form is draft 2019-09: use prefixItems)")
			}
			n.items, err = sub(kw, v)
		case "prefixItems":
			n.prefixItems, err = subList(kw, v)
		case "contains":
			n.contains, err = sub(kw, v)
		case "allOf":
			n.allOf, err = subList(kw, v)
		case "anyOf":
			n.anyOf, err = subList(kw, v)
		case "oneOf":
			n.oneOf, err = subList(kw, v)
		case "not":
			n.not, err = sub(kw, v)
		case "if":
			n.ifS, err = sub(kw, v)
		case "then":
			n.thenS, err = sub(kw, v)
		case "else":
			n.elseS, err = sub(kw, v)
		case "unevaluatedProperties":
			n.unevalProps, err = sub(kw, v)
		case "unevaluatedItems":
			n.unevalItems, err = sub(kw, v)
		default:
			// Not a JSON Schema keyword: ignored, as 2020-12 says of
			// unknown keywords.
		}
		if err != nil {
			return err
		}
	}
	if n.ifS == nil {
		n.thenS, n.elseS = nil, nil
	}
	return nil
}

// enumMessage is jsonschema/v5's message for a failed enum.
func enumMessage(items []any) string {
	for _, item := range items {
		if t, _ := jsonType(item); t == "object" || t == "array" {
			return "enum failed"
		}
	}
	if len(items) == 1 {
		return fmt.Sprintf("value must be %#v", items[0])
	}
	parts := make([]string, len(items))
	for i, item := range items {
		parts[i] = fmt.Sprintf("%#v", item)
	}
	return "value must be one of " + strings.Join(parts, ", ")
}

// checkLoops rejects schemas whose in-place applicators ($ref, allOf, anyOf,
// oneOf, not, if/then/else, dependentSchemas) lead back to a schema without
// moving into the instance: validating with them would never end.
func checkLoops(root *node) error {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
	var children func(n *node) []*node
	inPlace := func(n *node) []*node {
		var out []*node
		if n.ref != nil {
			out = append(out, n.ref)
		}
		out = append(out, n.allOf...)
		out = append(out, n.anyOf...)
		out = append(out, n.oneOf...)
		for _, x := range []*node{n.not, n.ifS, n.thenS, n.elseS} {
			if x != nil {
				out = append(out, x)
			}
		}
		for _, d := range n.depSchemas {
			out = append(out, d.node)
		}
		return out
	}
	children = func(n *node) []*node {
		var out []*node
		for _, p := range n.props {
			out = append(out, p.node)
		}
		for _, p := range n.patternProps {
			out = append(out, p.node)
		}
		out = append(out, n.prefixItems...)
		for _, x := range []*node{n.propNames, n.addProps, n.items, n.contains, n.unevalProps, n.unevalItems} {
			if x != nil {
				out = append(out, x)
			}
		}
		return out
	}
	// Loops through in-place edges only; child edges start a fresh walk.
	var stack []*node
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return errAt(n.loc, "", "references loop without consuming any of the instance (%s)", loopPath(stack, n))
		case done:
			return nil
		}
		state[n] = active
		stack = append(stack, n)
		for _, x := range inPlace(n) {
			if err := visit(x); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	// Every compiled node reachable from the root, through any edge.
	seen := map[*node]bool{root: true}
	queue := []*node{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if err := visit(n); err != nil {
			return err
		}
		for _, x := range append(inPlace(n), children(n)...) {
			if !seen[x] {
				seen[x] = true
				queue = append(queue, x)
			}
		}
	}
	return nil
}

func loopPath(stack []*node, n *node) string {
	var parts []string
	start := 0
	for i, s := range stack {
		if s == n {
			start = i
		}
	}
	for _, s := range stack[start:] {
		parts = append(parts, "#"+s.loc)
	}
	parts = append(parts, "#"+n.loc)
	return strings.Join(parts, " -> ")
}

// OpenObjects removes every "additionalProperties": false and
// "unevaluatedProperties": false from a schema decoded as CompileValue takes
// it, in place, and returns it: the schema then accepts members it does not
// name (assert's forward-compatible mode for specs of a newer version).
func OpenObjects(schema any) any {
	switch t := schema.(type) {
	case map[string]any:
		for k, child := range t {
			if (k == "additionalProperties" || k == "unevaluatedProperties") && child == false {
				delete(t, k)
				continue
			}
			t[k] = OpenObjects(child)
		}
	case []any:
		for i := range t {
			t[i] = OpenObjects(t[i])
		}
	}
	return schema
}
