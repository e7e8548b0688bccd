package jsonschema

// The compiler as it was before it read a tree (commit 94c0830), kept as
// the reference that FuzzCompileErrorsAsBefore holds the compile errors
// of Compile, CompileOpen and CompileValue to: same pointer, keyword and
// message, for any schema.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type oldPropSchema struct {
	name    string
	oldNode *oldNode
}

type oldPatternSchema struct {
	re      *regexp.Regexp
	oldNode *oldNode
}

type oldDependent struct {
	name     string
	required []string
	oldNode  *oldNode
}

// oldNode is one compiled schema object (or boolean schema).
type oldNode struct {
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
	props              []oldPropSchema
	propNames          *oldNode
	patternProps       []oldPatternSchema
	hasAddProps        bool
	addPropsFalse      bool
	addProps           *oldNode
	depRequired        []oldDependent
	depSchemas         []oldDependent

	minItems, maxItems       int
	unique                   bool
	prefixItems              []*oldNode
	items                    *oldNode
	contains                 *oldNode
	minContains, maxContains int

	minLength, maxLength int
	pattern              *regexp.Regexp

	minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf *big.Rat
	// the bounds again, for comparisons without arithmetic
	minimumD, exclusiveMinimumD, maximumD, exclusiveMaximumD decimal

	ref     *oldNode
	refText string
	not     *oldNode
	allOf   []*oldNode
	anyOf   []*oldNode
	oneOf   []*oldNode
	ifS     *oldNode
	thenS   *oldNode
	elseS   *oldNode

	unevalProps *oldNode
	unevalItems *oldNode
}

type oldPendingRef struct {
	from *oldNode
	ref  string
}

type oldCompiler struct {
	doc     any
	nodes   map[string]*oldNode // by pointer
	anchors map[string]*oldNode
	pending []oldPendingRef
}

// oldCompileValue compiles a schema already decoded by encoding/json with
// UseNumber (map[string]any, []any, string, json.Number, bool, nil).
func oldCompileValue(doc any) (*oldNode, error) {
	c := &oldCompiler{doc: doc, nodes: map[string]*oldNode{}, anchors: map[string]*oldNode{}}
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
	if err := oldCheckLoops(root); err != nil {
		return nil, err
	}
	return root, nil
}

// resolve finds the target of a same-document $ref, compiling it when it is
// not a subschema compiled already (a pointer into $defs of an unknown
// keyword, for instance).
func (c *oldCompiler) resolve(ref string, from *oldNode) (*oldNode, error) {
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
	v, ok := oldLookupPointer(c.doc, ptr)
	if !ok {
		return nil, errAt(from.loc, "$ref", "%q points at nothing in the schema", ref)
	}
	return c.compile(ptr, v)
}

func oldLookupPointer(doc any, ptr string) (any, bool) {
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

func (c *oldCompiler) compile(ptr string, v any) (*oldNode, error) {
	if n, ok := c.nodes[ptr]; ok {
		return n, nil
	}
	n := &oldNode{loc: ptr, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minContains: 1, maxContains: -1, minLength: -1, maxLength: -1}
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

func (c *oldCompiler) compileObject(n *oldNode, m map[string]any) error {
	ptr := n.loc
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sub := func(kw string, v any, extra ...string) (*oldNode, error) {
		p := ptr + "/" + escapeToken(kw)
		for _, e := range extra {
			p += "/" + escapeToken(e)
		}
		return c.compile(p, v)
	}
	subList := func(kw string, v any) ([]*oldNode, error) {
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return nil, errAt(ptr, kw, "must be a non-empty array of schemas")
		}
		out := make([]*oldNode, len(arr))
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
			c.pending = append(c.pending, oldPendingRef{from: n, ref: s})
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
				n.props = append(n.props, oldPropSchema{name, s})
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
				n.patternProps = append(n.patternProps, oldPatternSchema{re, s})
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
				n.depRequired = append(n.depRequired, oldDependent{name: name, required: req})
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
				n.depSchemas = append(n.depSchemas, oldDependent{name: name, oldNode: s})
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

// oldCheckLoops rejects schemas whose in-place applicators ($ref, allOf, anyOf,
// oneOf, not, if/then/else, dependentSchemas) lead back to a schema without
// moving into the instance: validating with them would never end.
func oldCheckLoops(root *oldNode) error {
	const (
		unvisited = iota
		active
		done
	)
	state := map[*oldNode]int{}
	var visit func(n *oldNode) error
	var children func(n *oldNode) []*oldNode
	inPlace := func(n *oldNode) []*oldNode {
		var out []*oldNode
		if n.ref != nil {
			out = append(out, n.ref)
		}
		out = append(out, n.allOf...)
		out = append(out, n.anyOf...)
		out = append(out, n.oneOf...)
		for _, x := range []*oldNode{n.not, n.ifS, n.thenS, n.elseS} {
			if x != nil {
				out = append(out, x)
			}
		}
		for _, d := range n.depSchemas {
			out = append(out, d.oldNode)
		}
		return out
	}
	children = func(n *oldNode) []*oldNode {
		var out []*oldNode
		for _, p := range n.props {
			out = append(out, p.oldNode)
		}
		for _, p := range n.patternProps {
			out = append(out, p.oldNode)
		}
		out = append(out, n.prefixItems...)
		for _, x := range []*oldNode{n.propNames, n.addProps, n.items, n.contains, n.unevalProps, n.unevalItems} {
			if x != nil {
				out = append(out, x)
			}
		}
		return out
	}
	// Loops through in-place edges only; child edges start a fresh walk.
	var stack []*oldNode
	visit = func(n *oldNode) error {
		switch state[n] {
		case active:
			return errAt(n.loc, "", "references loop without consuming any of the instance (%s)", oldLoopPath(stack, n))
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
	// Every compiled oldNode reachable from the root, through any edge.
	seen := map[*oldNode]bool{root: true}
	queue := []*oldNode{root}
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

func oldLoopPath(stack []*oldNode, n *oldNode) string {
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
