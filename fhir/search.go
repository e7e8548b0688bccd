package fhir

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// searchParam is a search parameter with its FHIRPath expression
// compiled. Parameters are found by binary search in the generated table
// and compiled on first use: a program that searches by three parameters
// neither indexes nor compiles the R4 table's (building that index was a
// tenth of the command's work on the bundled example).
type searchParam struct {
	paramDef
	expr fpExpr
	err  error // why the parameter cannot be searched
}

// compiledParams holds r4Params compiled, by table index, each set on its
// first lookup. Lookups run once per resource while an index column is
// built, so they take no lock.
var compiledParams = sync.OnceValue(func() []atomic.Pointer[searchParam] {
	return make([]atomic.Pointer[searchParam], len(r4Params))
})

// paramAt returns r4Params[i], compiled. Two goroutines may compile the
// same parameter at once; both results are equal and one is kept.
func paramAt(i int) *searchParam {
	slot := &compiledParams()[i]
	if p := slot.Load(); p != nil {
		return p
	}
	p := &searchParam{paramDef: r4Params[i]}
	switch {
	case p.Type == "composite" || p.Type == "special":
		p.err = fmt.Errorf("%s parameters are not supported", p.Type)
	case p.Expr == "":
		p.err = fmt.Errorf("%s needs a text index, which the store does not keep", p.Code)
	default:
		p.expr, p.err = compileFHIRPath(p.Base, p.Expr)
	}
	if !slot.CompareAndSwap(nil, p) {
		return slot.Load()
	}
	return p
}

// paramIndex returns where (base, code) is in r4Params, which the
// generator writes in (base, code) order.
func paramIndex(base, code string) (int, bool) {
	return slices.BinarySearchFunc(r4Params, [2]string{base, code}, func(d paramDef, key [2]string) int {
		if c := strings.Compare(d.Base, key[0]); c != 0 {
			return c
		}
		return strings.Compare(d.Code, key[1])
	})
}

// lookupParam finds the parameter code of resource type typ (its own, or
// one every resource has); nil when R4 defines none.
func lookupParam(typ, code string) *searchParam {
	i, ok := paramIndex(typ, code)
	if !ok {
		i, ok = paramIndex("Resource", code)
	}
	if !ok {
		return nil
	}
	return paramAt(i)
}

// isR4Type reports whether t is a resource type of FHIR R4.
func isR4Type(t string) bool {
	_, ok := slices.BinarySearch(r4Types, t)
	return ok
}

// SearchError reports a search the store cannot run: an unknown or
// unsupported parameter or modifier, or a value that does not parse. Over
// HTTP it is a 400 OperationOutcome: a search is never run with a
// parameter ignored.
type SearchError struct {
	// Param is the parameter as written (name:modifier), Value the value
	// at fault ("" when the parameter itself is).
	Param, Value string
	Err          error
}

func (e *SearchError) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("search parameter %s=%s: %v", e.Param, e.Value, e.Err)
	}
	return fmt.Sprintf("search parameter %s: %v", e.Param, e.Err)
}

// Unwrap returns the cause.
func (e *SearchError) Unwrap() error { return e.Err }

// ErrUnknownParameter is wrapped by the SearchError of a parameter R4 does
// not define for the resource type, or that the store does not support.
var ErrUnknownParameter = errors.New("unknown or unsupported search parameter")

// ErrBadValue is wrapped by the SearchError of a search value that does
// not parse (a bad date, prefix or number).
var ErrBadValue = errors.New("bad search value")

// Result parameters the store understands; _count and _offset page, the
// others are accepted with their R4 meaning.
var controlParams = map[string]bool{"_count": true, "_offset": true, "_sort": true, "_total": true, "_format": true}

// refused are the R4 parameters and modifiers the store answers with a
// 400 that says why.
var refused = map[string]string{
	"_text":          "_text needs a text index of the narrative, which the store does not keep",
	"_content":       "_content needs a text index of the whole resource, which the store does not keep",
	"_query":         "named queries are not supported",
	"_filter":        "_filter is not supported",
	"_list":          "_list is not supported",
	"_contained":     "searching contained resources is not supported",
	"_containedType": "searching contained resources is not supported",
	"in":             "needs a terminology server to expand the value set",
	"not-in":         "needs a terminology server to expand the value set",
	"below":          "needs a terminology server (subsumption) or a hierarchy, which the store does not keep",
	"above":          "needs a terminology server (subsumption) or a hierarchy, which the store does not keep",
}

// maxDepth bounds how deep chains and _has nest.
const maxDepth = 8

// MaxIncluded bounds the resources _include and _revinclude add to one
// page of a search: past it the search is a SearchError (HTTP 400) that
// says to ask for smaller pages.
const MaxIncluded = 10000

// matcher decides one value of a clause against a resource's values.
type matcher func(vals []ival) bool

// clause is one parameter occurrence: its OR values.
type clause struct {
	code string // the column it reads ("" for an id clause)
	ors  []matcher
	not  bool // token :not: no value may match
	// keyed: a matching resource is listed under one of keys in the
	// parameter's key index (a token's code, a reference's id), which
	// narrows the candidates.
	keyed bool
	keys  []string
	// dateLo and dateHi, when dateIx is set, bound the start of a
	// matching value's range: lo in [dateLo, dateHi).
	dateIx         bool
	dateLo, dateHi int64
	// ids, when set, is the clause: the resource's id is one of them
	// (_id, _has).
	ids map[string]bool
}

func (c *clause) match(e *entry, col [][]ival, pos int32) bool {
	if c.ids != nil {
		return c.ids[e.id]
	}
	vals := col[pos]
	any := false
	for _, m := range c.ors {
		if m(vals) {
			any = true
			break
		}
	}
	return any != c.not
}

// sortKey is one _sort key.
type sortKey struct {
	code string
	desc bool
	typ  string
}

// include is one _include or _revinclude.
type include struct {
	rev, iterate bool
	// src is the type whose references are followed ("" with code "*":
	// any type's), code the reference parameter ("*": every one), target
	// the type followed to ("": any).
	src, code, target string
}

// query is a parsed search of one resource type.
type query struct {
	typ      string
	clauses  []clause
	sorts    []sortKey
	count    int // -1: no _count
	offset   int
	need     need
	includes []include
	// summary is _summary's value ("" when absent); elements _elements'.
	summary  string
	elements []string
}

// compiler compiles searches for a store whose lock its caller holds:
// chained parameters and _has run searches of their own while they
// compile. base is the server's base URL as references name it ("" for a
// store searched directly), now the clock of ap.
type compiler struct {
	s     *Store
	base  string
	now   time.Time
	depth int
}

// query compiles params for resource type typ.
func (cc *compiler) query(typ string, params url.Values) (*query, error) {
	q := &query{typ: typ, count: -1}
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		values := params[name]
		switch {
		case controlParams[name]:
			if err := q.control(typ, name, values); err != nil {
				return nil, err
			}
		case name == "_include" || name == "_revinclude" || strings.HasPrefix(name, "_include:") || strings.HasPrefix(name, "_revinclude:"):
			for _, v := range values {
				inc, err := parseInclude(name, v)
				if err != nil {
					return nil, err
				}
				q.includes = append(q.includes, inc)
			}
		case name == "_summary" || name == "_elements":
			if err := q.result(typ, name, values); err != nil {
				return nil, err
			}
		case name == "_type":
			return nil, &SearchError{Param: name, Err: fmt.Errorf("%w: _type selects the types of a system search (GET [base]?_type=%s), not of a search of %s", ErrUnknownParameter, typ, typ)}
		default:
			for _, v := range values {
				c, err := cc.clause(typ, name, v)
				if err != nil {
					return nil, err
				}
				q.clauses = append(q.clauses, c)
			}
		}
	}
	if q.summary != "" && q.elements != nil {
		return nil, &SearchError{Param: "_elements", Err: fmt.Errorf("%w: _summary and _elements together (choose one)", ErrBadValue)}
	}
	q.need = q.needs()
	return q, nil
}

// needs lists the columns and indexes q reads.
func (q *query) needs() need {
	var n need
	add := func(list []string, c string) []string {
		if !slices.Contains(list, c) {
			list = append(list, c)
		}
		return list
	}
	for _, c := range q.clauses {
		if c.code == "" {
			continue
		}
		n.codes = add(n.codes, c.code)
		if c.keyed {
			n.keyed = add(n.keyed, c.code)
		}
		if c.dateIx {
			n.dated = add(n.dated, c.code)
		}
	}
	for _, k := range q.sorts {
		n.codes = add(n.codes, k.code)
	}
	return n
}

func (q *query) control(typ, name string, values []string) error {
	if len(values) != 1 && name != "_sort" {
		return &SearchError{Param: name, Err: fmt.Errorf("%w: given %d times", ErrBadValue, len(values))}
	}
	v := values[0]
	switch name {
	case "_count", "_offset":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: not a non-negative integer", ErrBadValue)}
		}
		if name == "_count" {
			q.count = n
		} else {
			q.offset = n
		}
	case "_total":
		if v != "none" && v != "estimate" && v != "accurate" {
			return &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: none, estimate or accurate", ErrBadValue)}
		}
	case "_format":
		switch v {
		case "json", "application/json", "application/fhir+json":
		default:
			return &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: only JSON is served", ErrBadValue)}
		}
	case "_sort":
		for _, list := range values {
			for _, k := range strings.Split(list, ",") {
				key := sortKey{code: k}
				if strings.HasPrefix(k, "-") {
					key.code, key.desc = k[1:], true
				}
				p := lookupParam(typ, key.code)
				if p == nil || p.err != nil {
					return &SearchError{Param: name, Value: k, Err: fmt.Errorf("%w: cannot sort %s by %q", ErrUnknownParameter, typ, key.code)}
				}
				key.typ = p.Type
				q.sorts = append(q.sorts, key)
			}
		}
	}
	return nil
}

// result reads _summary and _elements.
func (q *query) result(typ, name string, values []string) error {
	if len(values) != 1 {
		return &SearchError{Param: name, Err: fmt.Errorf("%w: given %d times", ErrBadValue, len(values))}
	}
	v := values[0]
	if name == "_summary" {
		switch v {
		case "true", "text", "data", "count", "false":
			q.summary = v
			return nil
		}
		return &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: true, text, data, count or false", ErrBadValue)}
	}
	q.elements = []string{}
	for _, el := range strings.Split(v, ",") {
		el = strings.TrimSpace(el)
		if t, rest, ok := strings.Cut(el, "."); ok && t == typ {
			el = rest // R4 writes names; Patient.name is accepted too
		}
		if !isName(el) {
			return &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: %q is not an element name", ErrBadValue, el)}
		}
		q.elements = append(q.elements, el)
	}
	return nil
}

// parseInclude reads one _include or _revinclude value: Type:param,
// Type:param:target, Type:* or *.
func parseInclude(name, v string) (include, error) {
	kind, mod, _ := strings.Cut(name, ":")
	inc := include{rev: kind == "_revinclude"}
	switch mod {
	case "":
	case "iterate", "recurse":
		inc.iterate = true
	default:
		return inc, &SearchError{Param: name, Err: fmt.Errorf("%w: %s takes :iterate only", ErrUnknownParameter, kind)}
	}
	bad := func(format string, args ...any) (include, error) {
		return inc, &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: "+format, append([]any{ErrBadValue}, args...)...)}
	}
	if v == "*" {
		inc.code = "*"
		return inc, nil
	}
	parts := strings.Split(v, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return bad("%s is SourceType:parameter or SourceType:parameter:TargetType (or *)", kind)
	}
	inc.src, inc.code = parts[0], parts[1]
	if !isR4Type(inc.src) {
		return bad("%q is not a resource type", inc.src)
	}
	if len(parts) == 3 {
		inc.target = parts[2]
		if !isR4Type(inc.target) {
			return bad("%q is not a resource type", inc.target)
		}
	}
	if inc.code == "*" {
		return inc, nil
	}
	p := lookupParam(inc.src, inc.code)
	switch {
	case p == nil:
		return inc, &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: R4 defines no %q for %s", ErrUnknownParameter, inc.code, inc.src)}
	case p.Type != "reference":
		return bad("%s:%s is a %s parameter, not a reference", inc.src, inc.code, p.Type)
	case p.err != nil:
		return inc, &SearchError{Param: name, Value: v, Err: fmt.Errorf("%w: %v", ErrUnknownParameter, p.err)}
	}
	return inc, nil
}

// clause compiles one occurrence of parameter name (a comma-separated OR
// list in value) for resource type typ.
func (cc *compiler) clause(typ, name, value string) (clause, error) {
	if spec, ok := strings.CutPrefix(name, "_has:"); ok {
		return cc.has(typ, name, spec, value)
	}
	head, rest, chained := strings.Cut(name, ".")
	code, mod, _ := strings.Cut(head, ":")
	if why, ok := refused[code]; ok && strings.HasPrefix(code, "_") {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: %s", ErrUnknownParameter, why)}
	}
	p := lookupParam(typ, code)
	if p == nil {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: R4 defines no %q for %s", ErrUnknownParameter, code, typ)}
	}
	if p.err != nil {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: %v", ErrUnknownParameter, p.err)}
	}
	if chained {
		return cc.chain(typ, name, p, mod, rest, value)
	}
	return cc.compileClause(p, name, mod, value)
}

// sub returns a compiler one level deeper, or an error past maxDepth.
func (cc *compiler) sub(name string) (*compiler, error) {
	if cc.depth >= maxDepth {
		return nil, &SearchError{Param: name, Err: fmt.Errorf("%w: chains and _has nest at most %d levels deep", ErrUnknownParameter, maxDepth)}
	}
	c := *cc
	c.depth++
	return &c, nil
}

// single runs the one-parameter search typ?name=value and returns what
// it matched.
func (cc *compiler) single(typ, name, value string) ([]hit, error) {
	c, err := cc.clause(typ, name, value)
	if err != nil {
		return nil, err
	}
	q := &query{typ: typ, count: -1, clauses: []clause{c}}
	q.need = q.needs()
	return cc.s.searchTable(q), nil
}

// chain compiles a chained parameter, name = p[:Type].rest: the
// resources p refers to (of Type, or of any of p's target types that
// define rest's parameter) must match rest=value, itself a parameter of
// theirs, chained or not.
func (cc *compiler) chain(typ, name string, p *searchParam, mod, rest, value string) (clause, error) {
	if p.Type != "reference" {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: a chain follows a reference parameter; %s is a %s parameter", ErrUnknownParameter, p.Code, p.Type)}
	}
	sub, err := cc.sub(name)
	if err != nil {
		return clause{}, err
	}
	targets := p.Targets
	if mod != "" {
		if !slices.Contains(p.Targets, mod) {
			return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: %s.%s refers to %s, not %s", ErrUnknownParameter, typ, p.Code, strings.Join(shortList(p.Targets), ", "), mod)}
		}
		targets = []string{mod}
	}
	next, _, _ := strings.Cut(rest, ".")
	next, _, _ = strings.Cut(next, ":")
	var types []string
	for _, t := range targets {
		if next == "_has" || lookupParam(t, next) != nil {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: no type %s.%s refers to (%s) has a search parameter %q", ErrUnknownParameter, typ, p.Code, strings.Join(shortList(targets), ", "), next)}
	}
	set := map[string]map[string]bool{}
	c := clause{code: p.Code, keyed: true, keys: []string{}}
	for _, t := range types {
		hits, err := sub.single(t, rest, value)
		if err != nil {
			return clause{}, err
		}
		for _, h := range hits {
			if set[t] == nil {
				set[t] = map[string]bool{}
			}
			set[t][h.e.id] = true
			c.keys = append(c.keys, h.e.id)
		}
	}
	slices.Sort(c.keys)
	c.keys = slices.Compact(c.keys)
	base := cc.base
	c.ors = []matcher{func(vals []ival) bool {
		for _, x := range vals {
			if t, id, ok := localRef(x, base); ok && set[t][id] {
				return true
			}
		}
		return false
	}}
	return c, nil
}

// shortList names at most five types of a list (an "any resource" target
// list names 145).
func shortList(types []string) []string {
	if len(types) > 5 {
		return append(slices.Clone(types[:5]), fmt.Sprintf("and %d more", len(types)-5))
	}
	return types
}

// has compiles a reverse chain, name = _has:Src:ref:rest: the resources
// some Src refers to by its parameter ref, where that Src matches
// rest=value (rest may be a _has itself).
func (cc *compiler) has(typ, name, spec, value string) (clause, error) {
	parts := strings.SplitN(spec, ":", 3)
	if len(parts) != 3 || parts[2] == "" {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: _has is _has:Type:reference:parameter", ErrUnknownParameter)}
	}
	src, refCode, rest := parts[0], parts[1], parts[2]
	if !isR4Type(src) {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: %q is not a resource type", ErrUnknownParameter, src)}
	}
	ref := lookupParam(src, refCode)
	if ref == nil || ref.Type != "reference" || ref.err != nil {
		return clause{}, &SearchError{Param: name, Err: fmt.Errorf("%w: %s has no reference parameter %q", ErrUnknownParameter, src, refCode)}
	}
	sub, err := cc.sub(name)
	if err != nil {
		return clause{}, err
	}
	hits, err := sub.single(src, rest, value)
	if err != nil {
		return clause{}, err
	}
	c := clause{ids: map[string]bool{}}
	views := map[*layer][][]ival{}
	for _, h := range hits {
		col, ok := views[h.l]
		if !ok {
			col = h.l.view(need{codes: []string{refCode}}).cols[0]
			views[h.l] = col
		}
		for _, x := range col[h.pos] {
			if t, id, ok := localRef(x, cc.base); ok && t == typ {
				c.ids[id] = true
			}
		}
	}
	return c, nil
}

// localRef returns the type and id of the resource of this server an
// indexed reference names: a relative reference's (Type/id), or an
// absolute one's whose URL is base/Type/id; ok is false for any other
// (another server's, a urn, a contained #id).
func localRef(x ival, base string) (typ, id string, ok bool) {
	if x.kind != kindValue || x.a == "" {
		return "", "", false
	}
	if !strings.Contains(x.c, "://") {
		return x.a, x.b, true
	}
	if base == "" {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(x.c, base+"/")
	if !ok {
		return "", "", false
	}
	if i := strings.Index(rest, "/_history/"); i >= 0 {
		rest = rest[:i]
	}
	if rest != x.a+"/"+x.b {
		return "", "", false
	}
	return x.a, x.b, true
}

// compileClause compiles one value (a comma-separated OR list) of p.
func (cc *compiler) compileClause(p *searchParam, name, mod, value string) (clause, error) {
	c := clause{code: p.Code}
	bad := func(v string, err error) (clause, error) {
		return clause{}, &SearchError{Param: name, Value: v, Err: err}
	}
	if mod == "missing" {
		switch value {
		case "true":
			c.ors = []matcher{func(vals []ival) bool { return len(vals) == 0 }}
		case "false":
			c.ors = []matcher{func(vals []ival) bool { return len(vals) > 0 }}
		default:
			return bad(value, fmt.Errorf("%w: :missing takes true or false", ErrBadValue))
		}
		return c, nil
	}
	if why, ok := refused[mod]; ok && mod != "" && (p.Type == "token" || p.Type == "uri" || p.Type == "reference" && mod != "in" && mod != "not-in") {
		// R4's modifiers that need terminology or a hierarchy.
		return bad("", fmt.Errorf("%w: :%s %s", ErrUnknownParameter, mod, why))
	}
	allowed := map[string][]string{
		"string":    {"", "exact", "contains"},
		"token":     {"", "not", "text", "of-type"},
		"reference": {"", "identifier"},
		"date":      {""},
		"number":    {""},
		"quantity":  {""},
		"uri":       {""},
	}[p.Type]
	if p.Type == "reference" && mod != "" && isR4Type(mod) {
		// subject:Patient=1 is subject=Patient/1.
		if !slices.Contains(p.Targets, mod) {
			return bad("", fmt.Errorf("%w: %s refers to %s, not %s", ErrUnknownParameter, p.Code, strings.Join(shortList(p.Targets), ", "), mod))
		}
	} else if !slices.Contains(allowed, mod) {
		return bad("", fmt.Errorf("%w: modifier :%s on a %s parameter", ErrUnknownParameter, mod, p.Type))
	}
	if p.Type == "token" && mod == "not" {
		c.not = true
	}
	ors := splitOr(value)
	for _, v := range ors {
		if v == "" {
			return bad(value, fmt.Errorf("%w: an empty value (a search never ignores a parameter)", ErrBadValue))
		}
		m, key, err := cc.compileValue(p, mod, v)
		if err != nil {
			return bad(v, err)
		}
		c.ors = append(c.ors, m)
		c.keys = append(c.keys, key)
	}
	// The key index narrows when every OR value names a key.
	c.keyed = (p.Type == "token" && (mod == "" || mod == "of-type") || p.Type == "reference" && mod != "identifier") && !slices.Contains(c.keys, "")
	if !c.keyed {
		c.keys = nil
	}
	if p.Code == "_id" && mod == "" {
		// _id: the ids themselves.
		c = clause{ids: map[string]bool{}}
		for _, v := range ors {
			c.ids[unescape(v)] = true
		}
		return c, nil
	}
	if p.Type == "date" && len(ors) == 1 {
		prefix, rest := splitPrefix(ors[0])
		if slo, shi, err := parseDateRange(rest); err == nil {
			switch prefix {
			case "eq":
				c.dateIx, c.dateLo, c.dateHi = true, slo, shi
			case "sa":
				c.dateIx, c.dateLo, c.dateHi = true, shi, maxTime
			case "lt", "eb":
				c.dateIx, c.dateLo, c.dateHi = true, minTime, slo
			case "le":
				c.dateIx, c.dateLo, c.dateHi = true, minTime, shi
			}
		}
	}
	return c, nil
}

// splitOr splits a value at the commas that are not escaped (\,), and
// unescapes \, \$ \\ (an escaped | stays escaped: tokens split at the
// unescaped one).
func splitOr(v string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && strings.IndexByte(`,$\`, v[i+1]) >= 0:
			b.WriteByte(v[i+1])
			i++
		case v[i] == ',':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(v[i])
		}
	}
	return append(out, b.String())
}

// compileValue compiles one OR value of p with modifier mod, and returns
// the index key a matching resource is listed under ("" when none is
// implied).
func (cc *compiler) compileValue(p *searchParam, mod, v string) (matcher, string, error) {
	switch p.Type {
	case "string":
		f := fold(v)
		switch mod {
		case "exact":
			return func(vals []ival) bool {
				for _, x := range vals {
					if x.b == v {
						return true
					}
				}
				return false
			}, "", nil
		case "contains":
			return func(vals []ival) bool {
				for _, x := range vals {
					if strings.Contains(x.a, f) {
						return true
					}
				}
				return false
			}, "", nil
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if strings.HasPrefix(x.a, f) {
					return true
				}
			}
			return false
		}, "", nil
	case "token":
		return compileToken(p, mod, v)
	case "reference":
		return cc.compileReference(p, mod, v)
	case "date":
		prefix, rest := splitPrefix(v)
		slo, shi, err := parseDateRange(rest)
		if err != nil {
			if strings.Contains(rest, " ") {
				return nil, "", fmt.Errorf("%w: %v (a + in a query string is a space: send a zone offset's + as %%2B)", ErrBadValue, err)
			}
			return nil, "", fmt.Errorf("%w: %v", ErrBadValue, err)
		}
		cmp := dateCompare(prefix, slo, shi, cc.now)
		return func(vals []ival) bool {
			for _, x := range vals {
				if cmp(x.lo, x.hi) {
					return true
				}
			}
			return false
		}, "", nil
	case "number":
		prefix, rest := splitPrefix(v)
		cmp, err := numberCompare(prefix, rest)
		if err != nil {
			return nil, "", err
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if cmp(x.f) {
					return true
				}
			}
			return false
		}, "", nil
	case "quantity":
		prefix, rest := splitPrefix(v)
		num, unitPart, _ := strings.Cut(rest, "|")
		sys, code, hasCode := strings.Cut(unitPart, "|")
		if !hasCode && unitPart != "" {
			return nil, "", fmt.Errorf("%w: a quantity is number|system|code or number||code", ErrBadValue)
		}
		cmp, err := numberCompare(prefix, num)
		if err != nil {
			return nil, "", err
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if !cmp(x.f) {
					continue
				}
				if sys != "" && x.a != sys {
					continue
				}
				if code != "" && x.b != code && (sys != "" || x.c != code) {
					continue
				}
				return true
			}
			return false
		}, "", nil
	case "uri":
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.a == v {
					return true
				}
			}
			return false
		}, "", nil
	}
	return nil, "", fmt.Errorf("%w: %s parameters are not supported", ErrUnknownParameter, p.Type)
}

// compileToken compiles a token value: code, system|code, |code, system|;
// with :text, the start of a display text; with :of-type,
// system|code|value of an Identifier's type and value. A token over
// strings (p.Fold) compares codes ignoring case.
func compileToken(p *searchParam, mod, v string) (matcher, string, error) {
	switch mod {
	case "text":
		f := fold(v)
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind != kindValue {
					continue
				}
				for _, t := range strings.Split(x.c, "\x00") {
					if t != "" && strings.HasPrefix(t, f) {
						return true
					}
				}
			}
			return false
		}, "", nil
	case "of-type":
		parts := splitUnescaped(v, 3)
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			return nil, "", fmt.Errorf("%w: :of-type takes system|code|value (the identifier's type and its value)", ErrBadValue)
		}
		sys, code, value := parts[0], parts[1], parts[2]
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind == kindOfType && x.a == sys && x.b == code && x.c == value {
					return true
				}
			}
			return false
		}, value, nil
	}
	sys, code, hasBar := cutUnescaped(v)
	eq := func(a, b string) bool { return a == b }
	key := code
	if p.Fold {
		key = strings.ToLower(code)
		eq = func(a, b string) bool { return a == b || strings.ToLower(a) == key }
	}
	switch {
	case !hasBar:
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind == kindValue && eq(x.b, code) {
					return true
				}
			}
			return false
		}, key, nil
	case sys == "":
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind == kindValue && !x.sys && eq(x.b, code) {
					return true
				}
			}
			return false
		}, key, nil
	case code == "":
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind == kindValue && x.sys && x.a == sys {
					return true
				}
			}
			return false
		}, "", nil
	}
	return func(vals []ival) bool {
		for _, x := range vals {
			if x.kind == kindValue && x.sys && x.a == sys && eq(x.b, code) {
				return true
			}
		}
		return false
	}, key, nil
}

// compileReference compiles a reference value: Type/id, a bare id (any
// type), an absolute URL (the reference as written; and, when it is this
// server's base joined with Type/id, a reference to that resource), or
// with :Type an id of that type; with :identifier a token matched against
// Reference.identifier. Type/id and ids match references to this
// server's resources (relative, or absolute under its base).
func (cc *compiler) compileReference(p *searchParam, mod, v string) (matcher, string, error) {
	if mod == "identifier" {
		sys, value, hasBar := cutUnescaped(v)
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.kind != kindRefIdent || value != "" && x.b != value {
					continue
				}
				if hasBar && (sys == "" && x.sys || sys != "" && (!x.sys || x.a != sys)) {
					continue
				}
				if value == "" && !x.sys {
					continue
				}
				return true
			}
			return false
		}, value, nil
	}
	base := cc.base
	wantType, wantID, asWritten := "", v, v
	switch {
	case strings.Contains(v, "://"):
		t, id, ok := parseReference(v)
		rest, under := strings.CutPrefix(v, base+"/")
		if i := strings.Index(rest, "/_history/"); i >= 0 {
			rest = rest[:i]
		}
		if base == "" || !under || !ok || strings.TrimSuffix(rest, "/") != t+"/"+id {
			// Another server's resource: the reference as written.
			return func(vals []ival) bool {
				for _, x := range vals {
					if x.kind == kindValue && x.c == v {
						return true
					}
				}
				return false
			}, id, nil
		}
		wantType, wantID = t, id
	case strings.Contains(v, "/"):
		t, id, ok := parseReference(v)
		if !ok || id == "" {
			return nil, "", fmt.Errorf("%w: %q is not Type/id", ErrBadValue, v)
		}
		wantType, wantID = t, id
	}
	if mod != "" {
		if wantType != "" && wantType != mod {
			return nil, "", fmt.Errorf("%w: %q is not a %s", ErrBadValue, v, mod)
		}
		wantType = mod
	}
	if wantID == "" {
		return nil, "", fmt.Errorf("%w: empty reference", ErrBadValue)
	}
	return func(vals []ival) bool {
		for _, x := range vals {
			if x.kind != kindValue {
				continue
			}
			if x.c == asWritten {
				return true
			}
			if t, id, ok := localRef(x, base); ok && id == wantID && (wantType == "" || t == wantType) {
				return true
			}
		}
		return false
	}, wantID, nil
}

// cutUnescaped splits a token at its first unescaped '|'.
func cutUnescaped(v string) (string, string, bool) {
	parts := splitUnescaped(v, 2)
	if len(parts) == 1 {
		return "", parts[0], false
	}
	return parts[0], parts[1], true
}

// splitUnescaped splits v at its unescaped '|' into at most n parts,
// unescaped.
func splitUnescaped(v string, n int) []string {
	var out []string
	start := 0
	for i := 0; i < len(v) && len(out) < n-1; i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		if v[i] == '|' {
			out = append(out, unescape(v[start:i]))
			start = i + 1
		}
	}
	return append(out, unescape(v[start:]))
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dateCompare returns the R4 comparison of a target range [lo, hi) with
// the search range [slo, shi) for prefix.
func dateCompare(prefix string, slo, shi int64, now time.Time) func(lo, hi int64) bool {
	eq := func(lo, hi int64) bool { return slo <= lo && hi <= shi }
	switch prefix {
	case "ne":
		return func(lo, hi int64) bool { return !eq(lo, hi) }
	case "gt":
		return func(lo, hi int64) bool { return hi > shi }
	case "lt":
		return func(lo, hi int64) bool { return lo < slo }
	case "ge":
		return func(lo, hi int64) bool { return hi > shi || eq(lo, hi) }
	case "le":
		return func(lo, hi int64) bool { return lo < slo || eq(lo, hi) }
	case "sa":
		return func(lo, hi int64) bool { return lo >= shi }
	case "eb":
		return func(lo, hi int64) bool { return hi <= slo }
	case "ap":
		// Within 10% of the distance between now and the value, on both
		// sides (R4 leaves the amount to the server).
		d := now.UnixMicro() - slo
		if d < 0 {
			d = -d
		}
		d /= 10
		a, b := satSub(slo, d), satAdd(shi, d)
		return func(lo, hi int64) bool { return lo < b && hi > a }
	}
	return eq
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satSub(a, b int64) int64 {
	if a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}

// numberCompare returns the R4 comparison of a number with the search
// number s (eq and ne use s's implicit precision range).
func numberCompare(prefix, s string) (func(float64) bool, error) {
	v, lo, hi, err := parseNumber(s)
	if err != nil {
		return nil, err
	}
	switch prefix {
	case "ne":
		return func(f float64) bool { return f < lo || f >= hi }, nil
	case "gt", "sa":
		return func(f float64) bool { return f > v }, nil
	case "lt", "eb":
		return func(f float64) bool { return f < v }, nil
	case "ge":
		return func(f float64) bool { return f >= v }, nil
	case "le":
		return func(f float64) bool { return f <= v }, nil
	case "ap":
		d := math.Abs(v) / 10
		return func(f float64) bool { return f >= v-d && f <= v+d }, nil
	}
	return func(f float64) bool { return f >= lo && f < hi }, nil
}
