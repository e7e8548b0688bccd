package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// Syntax is, for text that is not JSON, what encoding/json's Unmarshal
	// says of it (a *json.SyntaxError, for one); nil otherwise.
	Syntax error
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

// Unwrap returns Syntax.
func (e *CompileError) Unwrap() error { return e.Syntax }

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

const (
	boolTrue = 1 + iota
	boolFalse
)

// node is one compiled schema object (or boolean schema). The keywords
// most schemas use are fields of it; the others are in rare and bounds,
// each allocated only for a schema that uses one of them, so that the
// common node stays small.
type node struct {
	loc     string // JSON pointer of the schema in its document, when it has references
	boolean uint8  // boolTrue or boolFalse for a boolean schema, 0 for an object
	mark    uint8  // checkLoops' state

	hasConst      bool
	hasAddProps   bool
	addPropsFalse bool
	unique        bool
	types         typeList

	constV any
	enum   []any

	required []string
	props    []propSchema
	addProps *node

	minItems, maxItems   int
	items                *node
	minLength, maxLength int
	pattern              *lazyRegexp

	ref   *node
	allOf []*node
	anyOf []*node
	oneOf []*node

	x   *rare
	num *bounds
}

// rare holds the keywords few schemas use.
type rare struct {
	minProps, maxProps int
	propNames          *node
	patternProps       []patternSchema
	depRequired        []dependent
	depSchemas         []dependent

	prefixItems              []*node
	contains                 *node
	minContains, maxContains int

	not   *node
	ifS   *node
	thenS *node
	elseS *node

	unevalProps *node
	unevalItems *node
}

// bounds holds the numeric keywords.
type bounds struct {
	minimum, exclusiveMinimum, maximum, exclusiveMaximum limit
	multipleOf                                           *big.Rat
}

// limit is a minimum or a maximum: its exact value, compared without
// arithmetic, and the float64 a message prints. (No *big.Rat: a
// precompiled schema is static data.)
type limit struct {
	set bool
	d   decimal
	f   float64
}

// lazyRegexp is a pattern, compiled on first use: a precompiled schema
// holds only its source (a *regexp.Regexp cannot be static data); a schema
// compiled from text holds it compiled already, which proved it valid.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() {
		if l.re == nil {
			l.re = regexp.MustCompile(l.src)
		}
	})
	return l.re
}

// bounds returns n's numeric keywords, allocated on first use.
func (n *node) bounds() *bounds {
	if n.num == nil {
		n.num = &bounds{}
	}
	return n.num
}

// more returns n's rare keywords, allocated on first use.
func (n *node) more() *rare {
	if n.x == nil {
		n.x = &rare{minProps: -1, maxProps: -1, minContains: 1, maxContains: -1}
	}
	return n.x
}

// typeList is the value of "type": up to seven type codes (indexes into
// typeNames, from 1) of four bits each, in the order written.
type typeList uint32

var typeNames = [...]string{"", "array", "boolean", "integer", "null", "number", "object", "string"}

// typeCode returns the code of a type name, 0 when it is none.
func typeCode(s string) typeList {
	for i := 1; i < len(typeNames); i++ {
		if typeNames[i] == s {
			return typeList(i)
		}
	}
	return 0
}

// add appends the type named s, false when s names no type or is there
// already.
func (l *typeList) add(s string) bool {
	c := typeCode(s)
	if c == 0 {
		return false
	}
	shift := 0
	for ; *l>>shift != 0; shift += 4 {
		if (*l>>shift)&15 == c {
			return false
		}
	}
	*l |= c << shift
	return true
}

// matches reports whether v, of JSON type vType, is of one of the types.
func (l typeList) matches(vType string, v any) bool {
	for ; l != 0; l >>= 4 {
		t := typeNames[l&15]
		if t == vType || (t == "integer" && vType == "number" && isInteger(v)) {
			return true
		}
	}
	return false
}

// String lists the types as jsonschema/v5's message does: "a or b".
func (l typeList) String() string {
	var b strings.Builder
	for ; l != 0; l >>= 4 {
		if b.Len() > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(typeNames[l&15])
	}
	return b.String()
}

type pendingRef struct {
	from *node
	ref  string
}

// compiler compiles the schema in a tree. Pointers (the loc of a node, the
// table of compiled nodes by pointer) and the loop check are needed only
// to resolve references: when the tree has no "$ref" (refs false) each
// subschema is compiled once, where it is, and the pointer of one is
// computed from the tree only for a compile error.
type compiler struct {
	t       *tree
	refs    bool
	nodes   map[string]*node // by pointer, when refs
	anchors map[string]*node
	pending []pendingRef
	order   []int32 // members being compiled, sorted by name: a stack
	// Nodes and the slices of nodes are carved from slabs, a few
	// allocations for the whole schema.
	slab     []node
	nodeSlab []*node
	strSlab  []string
	propSlab []propSchema
	orderBuf [64]int32
}

// slabOf returns a slice of length 0 and capacity n carved from *slab,
// which it refills (with room for more) when it is short.
func slabOf[T any](slab *[]T, n int) []T {
	if len(*slab) < n {
		*slab = make([]T, max(n, 16))
	}
	out := (*slab)[:0:n]
	*slab = (*slab)[n:]
	return out
}

// Compile compiles a draft 2020-12 schema given as JSON text. Numbers are
// read exactly (as json.Number). See the package documentation for what is
// supported; anything else is a *CompileError.
//
// The schemas of assay's own kinds were compiled when assay was built
// (static_gen.go, generated by go generate): for one of those texts,
// Compile returns that schema, which is data in the binary, and compiles
// nothing. A test holds each to what compiling its text gives.
//
//go:generate go test -run ^TestStaticSchemas$ -write-static
func Compile(schema []byte) (*Schema, error) {
	if s := precompiled(schema); s != nil {
		return s, nil
	}
	return compileText(schema, false)
}

// Precompiled reports whether schema is one of the texts Compile finds
// compiled already (assay's own kinds' schemas): text known to be JSON,
// and to compile.
func Precompiled(schema []byte) bool { return precompiled(schema) != nil }

// CompileOpen is Compile of the schema with every "additionalProperties":
// false and "unevaluatedProperties": false removed, wherever it is, as
// OpenObjects removes them from a decoded schema: the schema then accepts
// members it does not name. It is assert's forward-compatible mode for
// specs of a newer version, without decoding the text first.
func CompileOpen(schema []byte) (*Schema, error) {
	return compileText(schema, true)
}

func compileText(schema []byte, open bool) (*Schema, error) {
	if len(schema) > math.MaxInt32 {
		// The tree addresses the text with int32 offsets.
		return nil, &CompileError{Message: "schema is larger than 2 GiB"}
	}
	t, ok := parseText(schema, open)
	if !ok {
		return nil, notJSON(schema)
	}
	return compileTree(t)
}

// notJSON is the CompileError of text that is not JSON, with the words of
// encoding/json.
func notJSON(schema []byte) error {
	e := &CompileError{}
	var doc any
	e.Syntax = json.Unmarshal(schema, &doc)
	if e.Syntax == nil { // cannot happen: the parser accepts what encoding/json accepts
		e.Syntax = errors.New("not JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		e.Message = "schema is not JSON: " + err.Error()
	} else {
		e.Message = "schema is not JSON: data after the top-level value"
	}
	return e
}

// CompileValue compiles a schema already decoded by encoding/json with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil).
func CompileValue(doc any) (*Schema, error) {
	return compileTree(fromValue(doc))
}

func compileTree(t *tree) (*Schema, error) {
	c := &compiler{t: t, refs: t.hasRef}
	c.order = c.orderBuf[:0]
	c.slab = make([]node, t.schemas)
	if c.refs {
		c.nodes = make(map[string]*node, t.schemas)
	}
	root, err := c.compile("", 0)
	if err != nil {
		return nil, err
	}
	if !c.refs {
		return &Schema{root: root}, nil
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
	at, ok := c.t.lookup(ptr)
	if !ok {
		return nil, errAt(from.loc, "$ref", "%q points at nothing in the schema", ref)
	}
	return c.compile(ptr, at)
}

// lookup finds the value a JSON pointer names.
func (t *tree) lookup(ptr string) (int32, bool) {
	if ptr == "" {
		return 0, true
	}
	if ptr[0] != '/' {
		return 0, false
	}
	cur := int32(0)
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := &t.nodes[cur]; n.kind {
		case jObj:
			m, ok := t.member(cur, tok)
			if !ok {
				return 0, false
			}
			cur = m
		case jArr:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= int(n.n) || (len(tok) > 1 && tok[0] == '0') {
				return 0, false
			}
			cur = t.item(cur, i)
		default:
			return 0, false
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

// newNode allocates a node, from a slab shared with its neighbours.
func (c *compiler) newNode() *node {
	if len(c.slab) == 0 {
		c.slab = make([]node, 8)
	}
	n := &c.slab[0]
	c.slab = c.slab[1:]
	n.minItems, n.maxItems, n.minLength, n.maxLength = -1, -1, -1, -1
	return n
}

// compile compiles the schema at index at of the tree, whose pointer is
// ptr when c.refs (and "" otherwise).
func (c *compiler) compile(ptr string, at int32) (*node, error) {
	if c.refs {
		if n, ok := c.nodes[ptr]; ok {
			return n, nil
		}
	}
	n := c.newNode()
	if c.refs {
		n.loc = ptr
		c.nodes[ptr] = n
	}
	switch c.t.nodes[at].kind {
	case jTrue:
		n.boolean = boolTrue
		return n, nil
	case jFalse:
		n.boolean = boolFalse
		return n, nil
	case jObj:
		if err := c.compileObject(n, ptr, at); err != nil {
			return nil, err
		}
		return n, nil
	}
	return nil, errAt(c.where(ptr, at), "", "a schema must be an object or a boolean, not %s", c.t.typeOf(at))
}

// where is the pointer of the value at index at, known as ptr when c.refs.
func (c *compiler) where(ptr string, at int32) string {
	if c.refs {
		return ptr
	}
	return c.t.pointer(at)
}

func typeOf(v any) string {
	t, ok := jsonType(v)
	if !ok {
		return fmt.Sprintf("%T", v)
	}
	return t
}

// sortedMembers pushes the visible members of the object at index at onto
// c.order, sorted by name, and returns their window; the caller pops them
// with c.order = c.order[:base].
func (c *compiler) sortedMembers(at int32) (members []int32, base int) {
	t := c.t
	base = len(c.order)
	for i := t.first(at); i < t.nodes[at].end; i = t.next(i) {
		if !t.nodes[i].hidden {
			c.order = append(c.order, i)
		}
	}
	members = c.order[base:]
	slices.SortFunc(members, func(a, b int32) int { return strings.Compare(t.key(a), t.key(b)) })
	return members, base
}

func (c *compiler) compileObject(n *node, ptr string, at int32) (err error) {
	t := c.t
	fail := func(kw, format string, a ...any) error {
		return errAt(c.where(ptr, at), kw, format, a...)
	}
	sub := func(kw string, v int32, extra ...string) (*node, error) {
		if !c.refs {
			return c.compile("", v)
		}
		p := ptr + "/" + escapeToken(kw)
		for _, e := range extra {
			p += "/" + escapeToken(e)
		}
		return c.compile(p, v)
	}
	subList := func(kw string, v int32) ([]*node, error) {
		if t.nodes[v].kind != jArr || t.nodes[v].n == 0 {
			return nil, fail(kw, "must be a non-empty array of schemas")
		}
		out := slabOf(&c.nodeSlab, int(t.nodes[v].n))
		for i := t.first(v); i < t.nodes[v].end; i = t.next(i) {
			var s *node
			var err error
			if c.refs {
				s, err = sub(kw, i, strconv.Itoa(len(out)))
			} else {
				s, err = c.compile("", i)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	nonNeg := func(kw string, v int32) (int, error) {
		if t.nodes[v].kind != jNum {
			return 0, fail(kw, "must be a non-negative integer")
		}
		if k, ok := smallCount(t.sval(v)); ok {
			return k, nil
		}
		r, ok := new(big.Rat).SetString(t.sval(v))
		if !ok || !r.IsInt() || r.Sign() < 0 {
			return 0, fail(kw, "must be a non-negative integer")
		}
		if !r.Num().IsInt64() || r.Num().Int64() > math.MaxInt {
			return math.MaxInt, nil // more than any count
		}
		return int(r.Num().Int64()), nil
	}
	number := func(kw string, v int32, d *decimal) (*big.Rat, error) {
		if t.nodes[v].kind != jNum {
			return nil, fail(kw, "must be a number")
		}
		num := t.sval(v)
		var r *big.Rat
		ok := true
		if k, small := smallCount(num); small {
			r = new(big.Rat).SetInt64(int64(k))
		} else {
			r, ok = new(big.Rat).SetString(num)
		}
		if !ok {
			return nil, fail(kw, "%s is not a number this package can compare", num)
		}
		if d != nil {
			if *d, ok = parseDecimal(num); !ok {
				return nil, fail(kw, "%s is not a number this package can compare", num)
			}
		}
		return r, nil
	}
	limitOf := func(kw string, v int32) (limit, error) {
		l := limit{set: true}
		r, err := number(kw, v, &l.d)
		if err != nil {
			return limit{}, err
		}
		l.f, _ = r.Float64()
		return l, nil
	}
	stringList := func(kw string, v int32) ([]string, error) {
		if t.nodes[v].kind != jArr {
			return nil, fail(kw, "must be an array of unique strings")
		}
		out := slabOf(&c.strSlab, int(t.nodes[v].n))
		for i := t.first(v); i < t.nodes[v].end; i = t.next(i) {
			if t.nodes[i].kind != jStr || slices.Contains(out, t.sval(i)) {
				return nil, fail(kw, "must be an array of unique strings")
			}
			out = append(out, t.sval(i))
		}
		return out, nil
	}
	isObject := func(kw string, v int32) error {
		if t.nodes[v].kind != jObj {
			return fail(kw, "must be an object")
		}
		return nil
	}

	// The members are popped on success only: an error ends the
	// compilation.
	keys, base := c.sortedMembers(at)
	for _, v := range keys {
		kw := t.key(v)
		if msg, ok := unsupported(kw); ok {
			return fail(kw, "%s", msg)
		}
		if want, ok := annotation(kw); ok {
			switch want {
			case "":
			case "schema":
				if _, err := sub(kw, v); err != nil {
					return err
				}
			default:
				if typ, _ := t.jsonType(v); typ != want {
					return fail(kw, "must be a %s", want)
				}
			}
			continue
		}
		vn := &t.nodes[v]
		switch kw {
		case "$schema":
			if vn.kind != jStr || strings.TrimSuffix(t.sval(v), "#") != metaSchema2020 {
				return fail(kw, "only %q is supported", metaSchema2020)
			}
		case "$id":
			if at != 0 {
				return fail(kw, "embedded schema resources ($id below the root) are not supported")
			}
			if vn.kind != jStr {
				return fail(kw, "must be a string")
			}
		case "$anchor":
			if vn.kind != jStr || !isAnchorName(t.sval(v)) {
				return fail(kw, "must be a plain name (letters, digits, '-', '_', '.'; not starting with a digit)")
			}
			if other, dup := c.anchors[t.sval(v)]; dup && other != n {
				return fail(kw, "anchor %q is defined twice", t.sval(v))
			}
			if c.anchors == nil {
				c.anchors = map[string]*node{}
			}
			c.anchors[t.sval(v)] = n
		case "$ref":
			if vn.kind != jStr {
				return fail(kw, "must be a string")
			}
			if !strings.HasPrefix(t.sval(v), "#") {
				return fail(kw, "only references within the same document (starting with '#') are supported, not %q", t.sval(v))
			}
			c.pending = append(c.pending, pendingRef{from: n, ref: t.sval(v)})
		case "$defs":
			if err := isObject(kw, v); err != nil {
				return err
			}
			defs, base := c.sortedMembers(v)
			for _, d := range defs {
				if _, err := sub(kw, d, t.key(d)); err != nil {
					return err
				}
			}
			c.order = c.order[:base]
		case "type":
			switch vn.kind {
			case jStr:
				if !isTypeName(t.sval(v)) {
					return fail(kw, "unknown type %q", t.sval(v))
				}
				n.types.add(t.sval(v))
			case jArr:
				for i := t.first(v); i < vn.end; i = t.next(i) {
					if t.nodes[i].kind != jStr || !n.types.add(t.sval(i)) {
						return fail(kw, "must be a type name or an array of unique type names")
					}
				}
			default:
				return fail(kw, "must be a type name or an array of unique type names")
			}
		case "const":
			n.hasConst, n.constV = true, t.value(v)
		case "enum":
			if vn.kind != jArr {
				return fail(kw, "must be an array")
			}
			n.enum = t.value(v).([]any)
		case "minProperties":
			n.more().minProps, err = nonNeg(kw, v)
		case "maxProperties":
			n.more().maxProps, err = nonNeg(kw, v)
		case "minItems":
			n.minItems, err = nonNeg(kw, v)
		case "maxItems":
			n.maxItems, err = nonNeg(kw, v)
		case "minLength":
			n.minLength, err = nonNeg(kw, v)
		case "maxLength":
			n.maxLength, err = nonNeg(kw, v)
		case "minContains":
			n.more().minContains, err = nonNeg(kw, v)
		case "maxContains":
			n.more().maxContains, err = nonNeg(kw, v)
		case "required":
			n.required, err = stringList(kw, v)
		case "uniqueItems":
			if vn.kind != jTrue && vn.kind != jFalse {
				return fail(kw, "must be a boolean")
			}
			n.unique = vn.kind == jTrue
		case "pattern":
			if vn.kind != jStr {
				return fail(kw, "must be a string")
			}
			re, err := regexp.Compile(t.sval(v))
			if err != nil {
				return fail(kw, "%q is not a valid regular expression (Go RE2 syntax): %v", t.sval(v), err)
			}
			n.pattern = &lazyRegexp{src: t.sval(v), re: re}
		case "minimum":
			n.bounds().minimum, err = limitOf(kw, v)
		case "maximum":
			n.bounds().maximum, err = limitOf(kw, v)
		case "exclusiveMinimum":
			n.bounds().exclusiveMinimum, err = limitOf(kw, v)
		case "exclusiveMaximum":
			n.bounds().exclusiveMaximum, err = limitOf(kw, v)
		case "multipleOf":
			n.bounds().multipleOf, err = number(kw, v, nil)
			if err == nil && n.bounds().multipleOf.Sign() <= 0 {
				return fail(kw, "must be greater than 0")
			}
		case "properties":
			if err := isObject(kw, v); err != nil {
				return err
			}
			props, base := c.sortedMembers(v)
			n.props = slabOf(&c.propSlab, len(props))
			for _, p := range props {
				name := t.key(p)
				s, err := sub(kw, p, name)
				if err != nil {
					return err
				}
				n.props = append(n.props, propSchema{name, s})
			}
			c.order = c.order[:base]
		case "patternProperties":
			if err := isObject(kw, v); err != nil {
				return err
			}
			pats, base := c.sortedMembers(v)
			for _, p := range pats {
				src := t.key(p)
				re, err := regexp.Compile(src)
				if err != nil {
					return fail(kw, "%q is not a valid regular expression (Go RE2 syntax): %v", src, err)
				}
				s, err := sub(kw, p, src)
				if err != nil {
					return err
				}
				n.more().patternProps = append(n.more().patternProps, patternSchema{re, s})
			}
			c.order = c.order[:base]
		case "additionalProperties":
			n.hasAddProps = true
			if vn.kind == jFalse {
				n.addPropsFalse = true
				// still compiled, so that a $ref to it resolves
			}
			n.addProps, err = sub(kw, v)
		case "propertyNames":
			n.more().propNames, err = sub(kw, v)
		case "dependentRequired":
			if err := isObject(kw, v); err != nil {
				return err
			}
			deps, base := c.sortedMembers(v)
			for _, d := range deps {
				req, err := stringList(kw, d)
				if err != nil {
					return err
				}
				n.more().depRequired = append(n.more().depRequired, dependent{name: t.key(d), required: req})
			}
			c.order = c.order[:base]
		case "dependentSchemas":
			if err := isObject(kw, v); err != nil {
				return err
			}
			deps, base := c.sortedMembers(v)
			for _, d := range deps {
				name := t.key(d)
				s, err := sub(kw, d, name)
				if err != nil {
					return err
				}
				n.more().depSchemas = append(n.more().depSchemas, dependent{name: name, node: s})
			}
			c.order = c.order[:base]
		case "items":
			if vn.kind == jArr {
				return fail(kw, "must be a schema (the array form is draft 2019-09: use prefixItems)")
			}
			n.items, err = sub(kw, v)
		case "prefixItems":
			n.more().prefixItems, err = subList(kw, v)
		case "contains":
			n.more().contains, err = sub(kw, v)
		case "allOf":
			n.allOf, err = subList(kw, v)
		case "anyOf":
			n.anyOf, err = subList(kw, v)
		case "oneOf":
			n.oneOf, err = subList(kw, v)
		case "not":
			n.more().not, err = sub(kw, v)
		case "if":
			n.more().ifS, err = sub(kw, v)
		case "then":
			n.more().thenS, err = sub(kw, v)
		case "else":
			n.more().elseS, err = sub(kw, v)
		case "unevaluatedProperties":
			n.more().unevalProps, err = sub(kw, v)
		case "unevaluatedItems":
			n.more().unevalItems, err = sub(kw, v)
		default:
			// Not a JSON Schema keyword: ignored, as 2020-12 says of
			// unknown keywords.
		}
		if err != nil {
			return err
		}
	}
	if x := n.x; x != nil && x.ifS == nil {
		x.thenS, x.elseS = nil, nil
	}
	c.order = c.order[:base]
	return nil
}

// smallCount reads a count written as plain digits (no sign, fraction or
// exponent) that fits an int without doubt; false for anything else, which
// big.Rat then reads.
func smallCount(s string) (int, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		k = k*10 + int(s[i]-'0')
	}
	return k, true
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

// constMessage is jsonschema/v5's message for a failed const.
func constMessage(v any) string {
	switch t, _ := jsonType(v); t {
	case "object", "array":
		return "const failed"
	}
	return fmt.Sprintf("value must be %#v", v)
}

// checkLoops rejects schemas whose in-place applicators ($ref, allOf, anyOf,
// oneOf, not, if/then/else, dependentSchemas) lead back to a schema without
// moving into the instance: validating with them would never end. It
// keeps its state in the nodes' mark (all nodes start unmarked).
func checkLoops(root *node) error {
	const (
		active = 1 << iota // on the current walk of in-place edges
		done               // its in-place edges are checked
		seen               // queued for the walk over every edge
	)
	var buf []*node
	// inPlace appends n's in-place subschemas to out.
	inPlace := func(out []*node, n *node) []*node {
		if n.ref != nil {
			out = append(out, n.ref)
		}
		out = append(out, n.allOf...)
		out = append(out, n.anyOf...)
		out = append(out, n.oneOf...)
		r := n.x
		if r == nil {
			return out
		}
		for _, x := range [...]*node{r.not, r.ifS, r.thenS, r.elseS} {
			if x != nil {
				out = append(out, x)
			}
		}
		for _, d := range r.depSchemas {
			out = append(out, d.node)
		}
		return out
	}
	// children appends the subschemas that apply to members or items.
	children := func(out []*node, n *node) []*node {
		for _, p := range n.props {
			out = append(out, p.node)
		}
		for _, x := range [...]*node{n.addProps, n.items} {
			if x != nil {
				out = append(out, x)
			}
		}
		r := n.x
		if r == nil {
			return out
		}
		for _, p := range r.patternProps {
			out = append(out, p.node)
		}
		out = append(out, r.prefixItems...)
		for _, x := range [...]*node{r.propNames, r.contains, r.unevalProps, r.unevalItems} {
			if x != nil {
				out = append(out, x)
			}
		}
		return out
	}
	// Loops through in-place edges only; child edges start a fresh walk.
	var stack []*node
	var visit func(n *node) error
	visit = func(n *node) error {
		switch {
		case n.mark&active != 0:
			return errAt(n.loc, "", "references loop without consuming any of the instance (%s)", loopPath(stack, n))
		case n.mark&done != 0:
			return nil
		}
		n.mark |= active
		stack = append(stack, n)
		base := len(buf)
		buf = inPlace(buf, n)
		for k := base; k < len(buf); k++ {
			if err := visit(buf[k]); err != nil {
				return err
			}
		}
		buf = buf[:base]
		stack = stack[:len(stack)-1]
		n.mark = n.mark&^active | done
		return nil
	}
	// Every compiled node reachable from the root, through any edge.
	root.mark |= seen
	queue := []*node{root}
	var next []*node
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if err := visit(n); err != nil {
			return err
		}
		next = children(inPlace(next[:0], n), n)
		for _, x := range next {
			if x.mark&seen == 0 {
				x.mark |= seen
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
