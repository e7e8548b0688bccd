package jsonschema

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Violation is one way an instance breaks its schema: a leaf of
// jsonschema/v5's error tree, with the same message.
type Violation struct {
	// InstanceLocation is the JSON pointer (RFC 6901) of the offending
	// value; "" is the whole document.
	InstanceLocation string
	// KeywordLocation is the evaluation path of the failing keyword: the
	// keywords walked from the root schema, "$ref" included, e.g.
	// "/properties/fields/items/$ref/required".
	KeywordLocation string
	// Message says what is wrong, worded as jsonschema/v5 words it, e.g.
	// "missing properties: 'path'".
	Message string
	// Properties lists, for a failed "additionalProperties": false, the
	// names that are not allowed, sorted; nil otherwise.
	Properties []string
}

// token is one step of a location, escaped only when a location is built.
type token struct {
	s   string
	i   int
	idx bool
}

type state struct {
	inst []token
	kw   []token
	out  []Violation
	// failures counts every failure, recorded or not; quiet > 0 while
	// only verdicts are wanted (inside not and if, and the first pass of
	// anyOf, oneOf and contains), when failures are counted but no
	// violation is built.
	failures int
	quiet    int
	buf      [32]token // backs inst and kw while they are short
}

// mark is a point to roll back to.
type mark struct{ out, failures int }

func (st *state) mark() mark { return mark{len(st.out), st.failures} }

// reset forgets the failures since m.
func (st *state) reset(m mark) { st.out, st.failures = st.out[:m.out], m.failures }

// passed reports whether nothing failed since m.
func (st *state) passed(m mark) bool { return st.failures == m.failures }

func joinTokens(toks []token, extra string) string {
	if len(toks) == 0 && extra == "" {
		return ""
	}
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		if t.idx {
			b.WriteString(strconv.Itoa(t.i))
		} else {
			b.WriteString(escapeToken(t.s))
		}
	}
	if extra != "" {
		b.WriteByte('/')
		b.WriteString(extra)
	}
	return b.String()
}

// fail records a violation of keyword at the current location.
func (st *state) fail(keyword, msg string) {
	st.failures++
	if st.quiet > 0 {
		return
	}
	st.out = append(st.out, Violation{
		InstanceLocation: joinTokens(st.inst, ""),
		KeywordLocation:  joinTokens(st.kw, keyword),
		Message:          msg,
	})
}

// failf is fail with a message built only when it is recorded.
func (st *state) failf(keyword string, msg func() string) {
	if st.quiet > 0 {
		st.failures++
		return
	}
	st.fail(keyword, msg())
}

// Validate checks doc, a value as encoding/json with UseNumber decodes it
// (map[string]any, []any, string, json.Number, bool, nil; float64 and the
// Go integer types are read as numbers too), and returns every violation,
// ordered by instance location (stable: violations of one value keep the
// order of the keywords that found them). A valid document gives nil.
func (s *Schema) Validate(doc any) []Violation {
	st := states.Get().(*state)
	st.inst, st.kw = st.buf[:0:16], st.buf[16:16:32]
	st.validate(s.root, doc, nil)
	out := st.out
	*st = state{}
	states.Put(st)
	if len(out) == 0 {
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].InstanceLocation < out[j].InstanceLocation })
	return out
}

// states holds validation states for reuse: one is a kilobyte, and a
// criteria file validates a spec per criterion.
var states = sync.Pool{New: func() any { return new(state) }}

// evaluated records which members or items of the instance a schema
// evaluated, for unevaluatedProperties and unevaluatedItems.
type evaluated struct {
	all   bool
	props map[string]struct{}
	items map[int]struct{}
}

func (e *evaluated) prop(name string) {
	if e.props == nil {
		e.props = map[string]struct{}{}
	}
	e.props[name] = struct{}{}
}

func (e *evaluated) item(i int) {
	if e.items == nil {
		e.items = map[int]struct{}{}
	}
	e.items[i] = struct{}{}
}

func (e *evaluated) merge(o *evaluated) {
	if e.all {
		return
	}
	if o.all {
		e.all = true
		return
	}
	for k := range o.props {
		e.prop(k)
	}
	for i := range o.items {
		e.item(i)
	}
}

func (e *evaluated) hasProp(name string) bool {
	if e.all {
		return true
	}
	_, ok := e.props[name]
	return ok
}

func (e *evaluated) hasItem(i int) bool {
	if e.all {
		return true
	}
	_, ok := e.items[i]
	return ok
}

// jsonType is the JSON type of v, false when v is no JSON value.
func jsonType(v any) (string, bool) {
	switch v.(type) {
	case nil:
		return "null", true
	case bool:
		return "boolean", true
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number", true
	case string:
		return "string", true
	case []any:
		return "array", true
	case map[string]any:
		return "object", true
	}
	return "", false
}

// rat reads a number exactly; false when it cannot (an invalid json.Number,
// an exponent too large for math/big, a NaN or an infinity).
func rat(v any) (*big.Rat, bool) {
	switch t := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(t))
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(t), true
	case float32:
		return rat(float64(t))
	}
	return new(big.Rat).SetString(fmt.Sprint(v))
}

// isInteger reports whether number v has no fractional part, from its
// decimal text, so that no exponent is too large.
func isInteger(v any) bool {
	d, ok := decimalOf(v)
	return ok && (d.digits == "" || d.exp >= int64(len(d.digits)))
}

// equals is JSON equality: numbers by value, objects by members.
func equals(a, b any) bool {
	ta, oka := jsonType(a)
	tb, okb := jsonType(b)
	if !oka || !okb || ta != tb {
		return false
	}
	switch ta {
	case "array":
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equals(x[i], y[i]) {
				return false
			}
		}
		return true
	case "object":
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equals(xv, yv) {
				return false
			}
		}
		return true
	case "number":
		if x, ok := a.(json.Number); ok {
			if y, ok := b.(json.Number); ok && x == y {
				return true
			}
		}
		if x, ok := decimalOf(a); ok {
			if y, ok := decimalOf(b); ok {
				return x == y
			}
		}
		x, ok1 := rat(a)
		y, ok2 := rat(b)
		return ok1 && ok2 && x.Cmp(y) == 0
	default:
		return a == b
	}
}

// quote is jsonschema/v5's quoting of names in messages: Go quoting with
// single quotes.
func quote(s string) string {
	s = strconv.Quote(s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

func f64(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

func (st *state) pushKw(s string)           { st.kw = append(st.kw, token{s: s}) }
func (st *state) pushKw2(s string, t token) { st.kw = append(st.kw, token{s: s}, t) }
func (st *state) popKw(n int)               { st.kw = st.kw[:len(st.kw)-n] }
func (st *state) pushInst(t token)          { st.inst = append(st.inst, t) }
func (st *state) popInst()                  { st.inst = st.inst[:len(st.inst)-1] }
func nameTok(s string) token                { return token{s: s} }
func idxTok(i int) token                    { return token{i: i, idx: true} }
func (st *state) child(n *node, v any, t token) bool {
	st.pushInst(t)
	ok := st.validate(n, v, nil)
	st.popInst()
	return ok
}

// loudBranches records the violations of every branch of a failed anyOf
// or oneOf (all of them failed), once the quiet pass found the verdict.
func (st *state) loudBranches(kw string, branches []*node, v any) {
	if st.quiet > 0 {
		st.failures++ // the verdict is all that is wanted
		return
	}
	for i, s := range branches {
		st.pushKw2(kw, idxTok(i))
		st.validate(s, v, nil)
		st.popKw(2)
	}
}

// verdictOf evaluates sub in place under keyword kw for its verdict only
// (not's and if's subschemas): its violations are neither built nor kept.
func (st *state) verdictOf(kw string, sub *node, v any, ev *evaluated) bool {
	m := st.mark()
	st.pushKw(kw)
	st.quiet++
	ok := st.inPlace(sub, v, ev)
	st.quiet--
	st.popKw(1)
	st.reset(m)
	return ok
}

// inPlace validates v against n, a subschema applied to the same instance,
// and merges what n evaluated into ev when n passes.
func (st *state) inPlace(n *node, v any, ev *evaluated) bool {
	if ev == nil {
		return st.validate(n, v, nil)
	}
	sub := &evaluated{}
	ok := st.validate(n, v, sub)
	if ok {
		ev.merge(sub)
	}
	return ok
}

// validate appends v's violations of n to st.out and reports whether there
// were none. ev, when not nil, collects what n evaluated. It follows
// jsonschema/v5's order of keywords, so that violations of one value come
// out in the same order.
func (st *state) validate(n *node, v any, ev *evaluated) bool {
	start := st.mark()
	if n.boolean != 0 {
		if n.boolean == boolFalse {
			st.fail("", "not allowed")
			return false
		}
		return true
	}
	x := n.r()
	if ev == nil && (x.unevalProps != nil || x.unevalItems != nil) {
		ev = &evaluated{}
	}
	vType, ok := jsonType(v)
	if !ok {
		st.failf("", func() string { return fmt.Sprintf("invalid JSON value of Go type %T", v) })
		return false
	}
	if n.types != 0 && !n.types.matches(vType, v) {
		st.failf("type", func() string { return "expected " + n.types.String() + ", but got " + vType })
		return false
	}
	if n.hasConst && !equals(v, n.constV) {
		st.failf("const", func() string { return constMessage(n.constV) })
	}
	if len(n.enum) > 0 {
		matched := false
		for _, item := range n.enum {
			if equals(v, item) {
				matched = true
				break
			}
		}
		if !matched {
			st.failf("enum", func() string { return enumMessage(n.enum) })
		}
	}

	switch t := v.(type) {
	case map[string]any:
		st.validateObject(n, t, ev)
	case []any:
		st.validateArray(n, t, ev)
	case string:
		if n.minLength != -1 || n.maxLength != -1 {
			length := utf8.RuneCountInString(t)
			if n.minLength != -1 && length < n.minLength {
				st.failf("minLength", func() string { return fmt.Sprintf("length must be >= %d, but got %d", n.minLength, length) })
			}
			if n.maxLength != -1 && length > n.maxLength {
				st.failf("maxLength", func() string { return fmt.Sprintf("length must be <= %d, but got %d", n.maxLength, length) })
			}
		}
		if n.pattern != nil && !n.pattern.get().MatchString(t) {
			st.failf("pattern", func() string { return "does not match pattern " + quote(n.pattern.src) })
		}
	case bool, nil:
	default:
		st.validateNumber(n, v)
	}

	if n.ref != nil {
		st.pushKw("$ref")
		st.inPlace(n.ref, v, ev)
		st.popKw(1)
	}
	if st.quiet > 0 && !st.passed(start) {
		return false // only the verdict is wanted, and it is known
	}
	if x.not != nil {
		if st.verdictOf("not", x.not, v, ev) {
			st.fail("not", "not failed")
		}
	}
	for i, s := range n.allOf {
		st.pushKw2("allOf", idxTok(i))
		st.inPlace(s, v, ev)
		st.popKw(2)
	}
	if len(n.anyOf) > 0 {
		// Every branch is evaluated, for its annotations; the violations
		// are built only when none passes.
		matched := false
		st.quiet++
		for i, s := range n.anyOf {
			m := st.mark()
			st.pushKw2("anyOf", idxTok(i))
			if st.inPlace(s, v, ev) {
				matched = true
			}
			st.popKw(2)
			st.reset(m)
		}
		st.quiet--
		if !matched {
			st.loudBranches("anyOf", n.anyOf, v)
		}
	}
	if len(n.oneOf) > 0 {
		matched := -1
		st.quiet++
		for i, s := range n.oneOf {
			m := st.mark()
			st.pushKw2("oneOf", idxTok(i))
			ok := st.inPlace(s, v, ev)
			st.popKw(2)
			st.reset(m)
			if !ok {
				continue
			}
			if matched == -1 {
				matched = i
				continue
			}
			st.quiet--
			first := matched
			st.failf("oneOf", func() string { return fmt.Sprintf("valid against schemas at indexes %d and %d", first, i) })
			st.quiet++
			matched = -2
			break
		}
		st.quiet--
		if matched == -1 {
			st.loudBranches("oneOf", n.oneOf, v)
		}
	}
	if x.ifS != nil {
		ok := st.verdictOf("if", x.ifS, v, ev)
		if ok && x.thenS != nil {
			st.pushKw("then")
			st.inPlace(x.thenS, v, ev)
			st.popKw(1)
		} else if !ok && x.elseS != nil {
			st.pushKw("else")
			st.inPlace(x.elseS, v, ev)
			st.popKw(1)
		}
	}

	switch t := v.(type) {
	case map[string]any:
		if x.unevalProps != nil {
			var names []string
			for name := range t {
				if !ev.hasProp(name) {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			st.pushKw("unevaluatedProperties")
			for _, name := range names {
				st.child(x.unevalProps, t[name], nameTok(name))
			}
			st.popKw(1)
			ev.all = true
		}
	case []any:
		if x.unevalItems != nil {
			st.pushKw("unevaluatedItems")
			for i := range t {
				if !ev.hasItem(i) {
					st.child(x.unevalItems, t[i], idxTok(i))
				}
			}
			st.popKw(1)
			ev.all = true
		}
	}
	return st.passed(start)
}

func (st *state) validateObject(n *node, v map[string]any, ev *evaluated) {
	x := n.r()
	if x.minProps != -1 && len(v) < x.minProps {
		st.failf("minProperties", func() string {
			return fmt.Sprintf("minimum %d properties allowed, but found %d properties", x.minProps, len(v))
		})
	}
	if x.maxProps != -1 && len(v) > x.maxProps {
		st.failf("maxProperties", func() string {
			return fmt.Sprintf("maximum %d properties allowed, but found %d properties", x.maxProps, len(v))
		})
	}
	for _, name := range n.required {
		if _, ok := v[name]; !ok {
			st.failf("required", func() string {
				var missing []string
				for _, name := range n.required {
					if _, ok := v[name]; !ok {
						missing = append(missing, quote(name))
					}
				}
				return "missing properties: " + strings.Join(missing, ", ")
			})
			break
		}
	}
	for _, p := range n.props {
		pv, ok := v[p.name]
		if !ok {
			continue
		}
		if ev != nil {
			ev.prop(p.name)
		}
		st.pushKw2("properties", nameTok(p.name))
		st.child(p.node, pv, nameTok(p.name))
		st.popKw(2)
	}
	// Members are visited in map order: Validate's final stable sort by
	// instance location makes the output deterministic, as every member
	// has a location of its own.
	if x.propNames != nil {
		st.pushKw("propertyNames")
		for name := range v {
			st.child(x.propNames, name, nameTok(name))
		}
		st.popKw(1)
	}
	for _, pp := range x.patternProps {
		for name := range v {
			if !pp.re.MatchString(name) {
				continue
			}
			if ev != nil {
				ev.prop(name)
			}
			st.pushKw2("patternProperties", nameTok(pp.re.String()))
			st.child(pp.node, v[name], nameTok(name))
			st.popKw(2)
		}
	}
	if n.hasAddProps {
		// Members that neither properties nor patternProperties evaluated.
		if n.addPropsFalse {
			var extra []string
			for name := range v {
				if !n.local(name) {
					if st.quiet > 0 {
						st.failures++
						break
					}
					extra = append(extra, name)
				}
			}
			if len(extra) > 0 {
				sort.Strings(extra)
				quoted := make([]string, len(extra))
				for i, name := range extra {
					quoted[i] = quote(name)
				}
				st.fail("additionalProperties", "additionalProperties "+strings.Join(quoted, ", ")+" not allowed")
				st.out[len(st.out)-1].Properties = extra
			}
		} else {
			st.pushKw("additionalProperties")
			for name, pv := range v {
				if !n.local(name) {
					st.child(n.addProps, pv, nameTok(name))
				}
			}
			st.popKw(1)
		}
		if ev != nil {
			ev.all = true
		}
	}
	for _, d := range x.depRequired {
		if _, ok := v[d.name]; !ok {
			continue
		}
		for i, name := range d.required {
			if _, ok := v[name]; !ok {
				st.failf("dependentRequired/"+escapeToken(d.name)+"/"+strconv.Itoa(i), func() string {
					return fmt.Sprintf("property %s is required, if %s property exists", quote(name), quote(d.name))
				})
			}
		}
	}
	for _, d := range x.depSchemas {
		if _, ok := v[d.name]; !ok {
			continue
		}
		st.pushKw2("dependentSchemas", nameTok(d.name))
		st.inPlace(d.node, v, ev)
		st.popKw(2)
	}
}

func (st *state) validateArray(n *node, v []any, ev *evaluated) {
	x := n.r()
	if n.minItems != -1 && len(v) < n.minItems {
		st.failf("minItems", func() string { return fmt.Sprintf("minimum %d items required, but found %d items", n.minItems, len(v)) })
	}
	if n.maxItems != -1 && len(v) > n.maxItems {
		st.failf("maxItems", func() string { return fmt.Sprintf("maximum %d items required, but found %d items", n.maxItems, len(v)) })
	}
	if n.unique {
		if j, i, dup := firstDuplicate(v); dup {
			st.failf("uniqueItems", func() string { return fmt.Sprintf("items at index %d and %d are equal", j, i) })
		}
	}
	for i, item := range v {
		if i < len(x.prefixItems) {
			if ev != nil {
				ev.item(i)
			}
			st.pushKw2("prefixItems", idxTok(i))
			st.child(x.prefixItems[i], item, idxTok(i))
			st.popKw(2)
		} else if n.items != nil {
			st.pushKw("items")
			st.child(n.items, item, idxTok(i))
			st.popKw(1)
		} else {
			break
		}
	}
	if n.items != nil && ev != nil {
		ev.all = true
	}
	if x.contains != nil {
		matched := 0
		st.pushKw("contains")
		st.quiet++
		for i, item := range v {
			m := st.mark()
			if st.child(x.contains, item, idxTok(i)) {
				matched++
				if ev != nil {
					ev.item(i)
				}
			}
			st.reset(m)
		}
		st.quiet--
		st.popKw(1)
		if x.minContains != -1 && matched < x.minContains {
			if matched == len(v) || st.quiet > 0 {
				st.failf("minContains", func() string { return fmt.Sprintf("valid must be >= %d, but got %d", x.minContains, matched) })
			} else {
				// the violations of the items that failed
				st.pushKw("contains")
				for i, item := range v {
					st.child(x.contains, item, idxTok(i))
				}
				st.popKw(1)
			}
		}
		if x.maxContains != -1 && matched > x.maxContains {
			st.failf("maxContains", func() string { return fmt.Sprintf("valid must be <= %d, but got %d", x.maxContains, matched) })
		}
	}
}

func (st *state) validateNumber(n *node, v any) {
	x := n.num
	if x == nil {
		return
	}
	d, ok := decimalOf(v)
	if !ok {
		st.failf("", func() string { return fmt.Sprintf("%v is not a number that can be compared exactly", v) })
		return
	}
	if x.minimum.set && d.cmp(x.minimum.d) < 0 {
		st.failf("minimum", func() string { return fmt.Sprintf("must be >= %v but found %v", x.minimum.f, v) })
	}
	if x.exclusiveMinimum.set && d.cmp(x.exclusiveMinimum.d) <= 0 {
		st.failf("exclusiveMinimum", func() string { return fmt.Sprintf("must be > %v but found %v", x.exclusiveMinimum.f, v) })
	}
	if x.maximum.set && d.cmp(x.maximum.d) > 0 {
		st.failf("maximum", func() string { return fmt.Sprintf("must be <= %v but found %v", x.maximum.f, v) })
	}
	if x.exclusiveMaximum.set && d.cmp(x.exclusiveMaximum.d) >= 0 {
		st.failf("exclusiveMaximum", func() string { return fmt.Sprintf("must be < %v but found %v", x.exclusiveMaximum.f, v) })
	}
	if x.multipleOf != nil {
		// math/big, bounded by its own limit on exponents (1e6).
		num, ok := rat(v)
		if !ok {
			st.failf("multipleOf", func() string { return fmt.Sprintf("%v is beyond what can be divided exactly", v) })
		} else if q := new(big.Rat).Quo(num, x.multipleOf); !q.IsInt() {
			st.failf("multipleOf", func() string { return fmt.Sprintf("%v not multipleOf %v", v, f64(x.multipleOf)) })
		}
	}
}

// firstDuplicate finds the first item equal to an earlier one: the smallest
// i, and the smallest j < i. Long arrays are bucketed by a hash of the
// value, so that a long array costs linear time, not quadratic.
func firstDuplicate(v []any) (j, i int, dup bool) {
	if len(v) <= 20 {
		for i := 1; i < len(v); i++ {
			for j := 0; j < i; j++ {
				if equals(v[i], v[j]) {
					return j, i, true
				}
			}
		}
		return 0, 0, false
	}
	seed := maphash.MakeSeed()
	buckets := make(map[uint64][]int, len(v))
	var h maphash.Hash
	h.SetSeed(seed)
	for i, item := range v {
		h.Reset()
		hashValue(&h, item)
		k := h.Sum64()
		for _, j := range buckets[k] {
			if equals(v[j], item) {
				return j, i, true
			}
		}
		buckets[k] = append(buckets[k], i)
	}
	return 0, 0, false
}

// hashValue hashes a JSON value so that equal values (by equals) hash
// alike: numbers by their exact value, objects whatever their key order.
func hashValue(h *maphash.Hash, v any) {
	switch t := v.(type) {
	case nil:
		h.WriteByte(0)
	case bool:
		if t {
			h.WriteByte(1)
		} else {
			h.WriteByte(2)
		}
	case string:
		h.WriteByte(3)
		h.WriteString(t)
	case []any:
		h.WriteByte(4)
		for _, x := range t {
			hashValue(h, x)
		}
	case map[string]any:
		// Order-independent: the sum of the members' hashes.
		h.WriteByte(5)
		var sum uint64
		var mh maphash.Hash
		mh.SetSeed(h.Seed())
		for k, x := range t {
			mh.Reset()
			mh.WriteString(k)
			hashValue(&mh, x)
			sum += mh.Sum64()
		}
		var b [8]byte
		for i := range b {
			b[i] = byte(sum >> (8 * i))
		}
		h.Write(b[:])
	default:
		h.WriteByte(6)
		if d, ok := decimalOf(v); ok {
			if d.neg {
				h.WriteByte('-')
			}
			h.WriteString(d.digits)
			h.WriteString(strconv.FormatInt(d.exp, 10))
		}
		// A number that does not parse lands in one bucket; equals still
		// decides.
	}
}

// local reports whether properties or patternProperties of n apply to the
// member name.
func (n *node) local(name string) bool {
	i := sort.Search(len(n.props), func(i int) bool { return n.props[i].name >= name })
	if i < len(n.props) && n.props[i].name == name {
		return true
	}
	for _, pp := range n.r().patternProps {
		if pp.re.MatchString(name) {
			return true
		}
	}
	return false
}

// noRare is the rare keywords of a node that uses none of them.
var noRare = rare{minProps: -1, maxProps: -1, minContains: 1, maxContains: -1}

// r returns n's rare keywords, for reading.
func (n *node) r() *rare {
	if n.x != nil {
		return n.x
	}
	return &noRare
}
