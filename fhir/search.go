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
// neither indexes nor compiles the 277 of R4 (building that index was a
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
	switch p.Type {
	case "composite", "special":
		p.err = fmt.Errorf("%s parameters are not supported", p.Type)
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

// Result parameters the store understands; _count and _offset page, the
// others are accepted with their R4 meaning.
var controlParams = map[string]bool{"_count": true, "_offset": true, "_sort": true, "_total": true, "_format": true}

// matcher decides one value of a clause against a resource's values.
type matcher func(vals []ival) bool

// clause is one parameter occurrence: its OR values.
type clause struct {
	code string
	ors  []matcher
	not  bool // token :not: no value may match
	// tokens, when set, are the codes one of which a matching resource
	// must hold (every OR value names a code); the token index narrows
	// the candidates to them.
	tokens []string
	// dateLo and dateHi, when dateIx is set, bound the start of a
	// matching value's range: lo in [dateLo, dateHi).
	dateIx         bool
	dateLo, dateHi int64
}

func (c clause) match(vals []ival) bool {
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

// query is a parsed search.
type query struct {
	clauses []clause
	sorts   []sortKey
	count   int // -1: no _count
	offset  int
	codes   []string // parameters whose columns the search reads
}

// parseQuery compiles params for resource type typ.
func parseQuery(typ string, params url.Values, now time.Time) (*query, error) {
	q := &query{count: -1}
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	need := map[string]bool{}
	for _, name := range names {
		values := params[name]
		if controlParams[name] {
			if err := q.control(typ, name, values, need); err != nil {
				return nil, err
			}
			continue
		}
		code, mod, _ := strings.Cut(name, ":")
		p := lookupParam(typ, code)
		if p == nil {
			return nil, &SearchError{Param: name, Err: fmt.Errorf("%w: R4 defines no %q for %s", ErrUnknownParameter, code, typ)}
		}
		if p.err != nil {
			return nil, &SearchError{Param: name, Err: fmt.Errorf("%w: %v", ErrUnknownParameter, p.err)}
		}
		for _, v := range values {
			c, err := compileClause(p, name, mod, v, now)
			if err != nil {
				return nil, err
			}
			q.clauses = append(q.clauses, c)
		}
		need[code] = true
	}
	for c := range need {
		q.codes = append(q.codes, c)
	}
	sort.Strings(q.codes)
	return q, nil
}

func (q *query) control(typ, name string, values []string, need map[string]bool) error {
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
				need[key.code] = true
			}
		}
	}
	return nil
}

// compileClause compiles one value (a comma-separated OR list) of p.
func compileClause(p *searchParam, name, mod, value string, now time.Time) (clause, error) {
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
	allowed := map[string][]string{
		"string":    {"", "exact", "contains"},
		"token":     {"", "not", "text"},
		"reference": {""},
		"date":      {""},
		"number":    {""},
		"quantity":  {""},
		"uri":       {""},
	}[p.Type]
	if p.Type == "reference" && mod != "" && slices.Contains(p.Targets, mod) {
		// subject:Patient=1 is subject=Patient/1.
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
		m, err := compileValue(p, mod, v, now)
		if err != nil {
			return bad(v, err)
		}
		c.ors = append(c.ors, m)
	}
	if p.Type == "token" && mod == "" {
		for _, v := range ors {
			_, code, _ := cutUnescaped(v)
			if code == "" {
				c.tokens = nil
				break
			}
			c.tokens = append(c.tokens, code)
		}
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
// unescapes \, \| \$ \\.
func splitOr(v string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && strings.IndexByte(`,|$\`, v[i+1]) >= 0 && v[i+1] != '|':
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

func compileValue(p *searchParam, mod, v string, now time.Time) (matcher, error) {
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
			}, nil
		case "contains":
			return func(vals []ival) bool {
				for _, x := range vals {
					if strings.Contains(x.a, f) {
						return true
					}
				}
				return false
			}, nil
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if strings.HasPrefix(x.a, f) {
					return true
				}
			}
			return false
		}, nil
	case "token":
		if mod == "text" {
			f := fold(v)
			return func(vals []ival) bool {
				for _, x := range vals {
					for _, t := range strings.Split(x.c, "\x00") {
						if t != "" && strings.HasPrefix(t, f) {
							return true
						}
					}
				}
				return false
			}, nil
		}
		sys, code, hasBar := cutUnescaped(v)
		switch {
		case !hasBar:
			return func(vals []ival) bool {
				for _, x := range vals {
					if x.b == code {
						return true
					}
				}
				return false
			}, nil
		case sys == "":
			return func(vals []ival) bool {
				for _, x := range vals {
					if x.b == code && x.a == "" {
						return true
					}
				}
				return false
			}, nil
		case code == "":
			return func(vals []ival) bool {
				for _, x := range vals {
					if x.sys && x.a == sys {
						return true
					}
				}
				return false
			}, nil
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.sys && x.a == sys && x.b == code {
					return true
				}
			}
			return false
		}, nil
	case "reference":
		wantType, wantID, wantURL := "", v, ""
		switch {
		case mod != "":
			wantType = mod
		case strings.Contains(v, "://"):
			wantURL = v
			wantType, wantID, _ = parseReference(v)
		case strings.Contains(v, "/"):
			t, id, ok := parseReference(v)
			if !ok {
				return nil, fmt.Errorf("%w: %q is not Type/id", ErrBadValue, v)
			}
			wantType, wantID = t, id
		}
		if wantID == "" {
			return nil, fmt.Errorf("%w: empty reference", ErrBadValue)
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if wantURL != "" {
					if x.c == wantURL || (!strings.Contains(x.c, "://") && x.a == wantType && x.b == wantID && wantType != "") {
						return true
					}
					continue
				}
				if x.b == wantID && (wantType == "" || x.a == wantType) {
					return true
				}
			}
			return false
		}, nil
	case "date":
		prefix, rest := splitPrefix(v)
		slo, shi, err := parseDateRange(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadValue, err)
		}
		cmp := dateCompare(prefix, slo, shi, now)
		return func(vals []ival) bool {
			for _, x := range vals {
				if cmp(x.lo, x.hi) {
					return true
				}
			}
			return false
		}, nil
	case "number":
		prefix, rest := splitPrefix(v)
		cmp, err := numberCompare(prefix, rest)
		if err != nil {
			return nil, err
		}
		return func(vals []ival) bool {
			for _, x := range vals {
				if cmp(x.f) {
					return true
				}
			}
			return false
		}, nil
	case "quantity":
		prefix, rest := splitPrefix(v)
		num, unitPart, _ := strings.Cut(rest, "|")
		sys, code, hasCode := strings.Cut(unitPart, "|")
		if !hasCode && unitPart != "" {
			return nil, fmt.Errorf("%w: a quantity is number|system|code or number||code", ErrBadValue)
		}
		cmp, err := numberCompare(prefix, num)
		if err != nil {
			return nil, err
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
		}, nil
	case "uri":
		return func(vals []ival) bool {
			for _, x := range vals {
				if x.a == v {
					return true
				}
			}
			return false
		}, nil
	}
	return nil, fmt.Errorf("%w: %s parameters are not supported", ErrUnknownParameter, p.Type)
}

// cutUnescaped splits a token at its first unescaped '|'.
func cutUnescaped(v string) (string, string, bool) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			i++
			continue
		}
		if v[i] == '|' {
			return unescape(v[:i]), unescape(v[i+1:]), true
		}
	}
	return "", unescape(v), false
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

// searchResult is what a search found, in order.
type searchResult struct {
	entries []*entry
	q       *query
}

// search runs params over typ's resources.
func (s *Store) search(typ string, params url.Values) (searchResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.searchLocked(typ, params)
}

// searchLocked is search for a caller holding the store's lock (read or
// write).
func (s *Store) searchLocked(typ string, params url.Values) (searchResult, error) {
	if !validType(typ) {
		return searchResult{}, &SearchError{Param: "resource type", Value: typ, Err: fmt.Errorf("%w: not a resource type", ErrBadValue)}
	}
	q, err := parseQuery(typ, params, s.now())
	if err != nil {
		return searchResult{}, err
	}
	return s.run(typ, q), nil
}

// Index builds, ahead of the first search, the indexes of the parameters
// params of resource type typ (names as in a search, without modifiers):
// their values, and the code map of a token or the sorted ranges of a
// date. A search builds what it needs on first use anyway (a token over
// 100,000 resources takes about a quarter of a second); Index moves that
// cost to load time. Unknown parameters are a SearchError.
func (s *Store) Index(typ string, params ...string) error {
	q := &query{count: -1}
	for _, code := range params {
		p := lookupParam(typ, code)
		if p == nil || p.err != nil {
			return &SearchError{Param: code, Err: fmt.Errorf("%w: cannot index %s by %q", ErrUnknownParameter, typ, code)}
		}
		q.codes = append(q.codes, code)
		c := clause{code: code}
		switch p.Type {
		case "token":
			c.tokens = []string{}
		case "date":
			c.dateIx = true
		}
		q.clauses = append(q.clauses, c)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.types[typ]; t != nil {
		t.ensure(q)
	}
	return nil
}

// missing reports whether a column or index q reads is not built; the
// caller holds t.ix.mu.
func (t *typeTable) missing(q *query) bool {
	for _, c := range q.codes {
		if _, ok := t.ix.columns[c]; !ok {
			return true
		}
	}
	for _, c := range q.clauses {
		if _, ok := t.ix.tokenIx[c.code]; c.tokens != nil && !ok {
			return true
		}
		if _, ok := t.ix.dateIx[c.code]; c.dateIx && !ok {
			return true
		}
	}
	return false
}

// ensure builds the columns and indexes q reads. The caller holds the
// store's lock, so t's resources do not change; stores sharing t may
// build at once, hence t.ix.mu.
func (t *typeTable) ensure(q *query) {
	t.ix.mu.RLock()
	missing := t.missing(q)
	t.ix.mu.RUnlock()
	if !missing {
		return
	}
	t.ix.mu.Lock()
	defer t.ix.mu.Unlock()
	for _, c := range q.codes {
		if _, ok := t.ix.columns[c]; !ok {
			col := make([][]ival, len(t.entries))
			for i, e := range t.entries {
				col[i] = t.values(c, e)
			}
			t.ix.columns[c] = col
		}
	}
	for _, c := range q.clauses {
		if _, ok := t.ix.tokenIx[c.code]; c.tokens != nil && !ok {
			t.ix.tokenIx[c.code] = buildTokenIndex(t.ix.columns[c.code])
		}
		if _, ok := t.ix.dateIx[c.code]; c.dateIx && !ok {
			t.ix.dateIx[c.code] = buildDateIndex(t.ix.columns[c.code])
		}
	}
}

// run evaluates a parsed query; the caller holds the store's lock.
func (s *Store) run(typ string, q *query) searchResult {
	t := s.types[typ]
	if t == nil {
		return searchResult{q: q}
	}
	t.ensure(q)
	t.ix.mu.RLock()
	defer t.ix.mu.RUnlock()
	cols := make([][][]ival, len(q.clauses))
	for i, c := range q.clauses {
		cols[i] = t.ix.columns[c.code]
	}
	var out []*entry
	positions := []int{}
	cands := t.candidates(q.clauses)
	n := len(t.entries)
	if cands != nil {
		n = len(cands)
	}
next:
	for k := range n {
		pos := k
		if cands != nil {
			pos = int(cands[k])
		}
		e := t.entries[pos]
		if e.deleted {
			continue
		}
		for i, c := range q.clauses {
			if !c.match(cols[i][pos]) {
				continue next
			}
		}
		out = append(out, e)
		positions = append(positions, pos)
	}
	if len(q.sorts) > 0 {
		sortEntries(t, q.sorts, out, positions)
	}
	return searchResult{entries: out, q: q}
}

// sortEntries orders out (with their positions) by the _sort keys: a
// resource's lowest value ascending, its highest descending, resources
// without a value last.
func sortEntries(t *typeTable, keys []sortKey, out []*entry, positions []int) {
	type row struct {
		e   *entry
		pos int
	}
	rows := make([]row, len(out))
	for i := range out {
		rows[i] = row{out[i], positions[i]}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			a, aok := sortValue(t.ix.columns[k.code][rows[i].pos], k)
			b, bok := sortValue(t.ix.columns[k.code][rows[j].pos], k)
			switch {
			case !aok && !bok:
				continue
			case !aok:
				return false
			case !bok:
				return true
			}
			c := a.cmp(b)
			if c == 0 {
				continue
			}
			return (c < 0) != k.desc
		}
		return false
	})
	for i := range rows {
		out[i] = rows[i].e
	}
}

type sortVal struct {
	s string
	n float64
}

func (a sortVal) cmp(b sortVal) int {
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	return strings.Compare(a.s, b.s)
}

func sortValue(vals []ival, k sortKey) (sortVal, bool) {
	if len(vals) == 0 {
		return sortVal{}, false
	}
	var best sortVal
	for i, x := range vals {
		var v sortVal
		switch k.typ {
		case "date":
			if k.desc {
				v.n = float64(x.hi)
			} else {
				v.n = float64(x.lo)
			}
		case "number", "quantity":
			v.n = x.f
		case "string":
			v.s = x.a
		case "token":
			v.s = x.b
		case "reference":
			v.s = x.c
		default:
			v.s = x.a
		}
		if i == 0 || (v.cmp(best) < 0) != k.desc && v.cmp(best) != 0 {
			best = v
		}
	}
	return best, true
}

func buildTokenIndex(col [][]ival) map[string][]int32 {
	ix := map[string][]int32{}
	for pos, vals := range col {
		for i, v := range vals {
			if i > 0 && vals[i-1].b == v.b {
				continue
			}
			list := ix[v.b]
			if len(list) == 0 || list[len(list)-1] != int32(pos) {
				ix[v.b] = append(list, int32(pos))
			}
		}
	}
	return ix
}

func buildDateIndex(col [][]ival) []datePos {
	var ix []datePos
	for pos, vals := range col {
		for _, v := range vals {
			ix = append(ix, datePos{lo: v.lo, pos: int32(pos)})
		}
	}
	sort.Slice(ix, func(i, j int) bool { return ix[i].lo < ix[j].lo })
	return ix
}

// candidates returns the positions (ascending, unique) that the most
// selective indexed clause allows, or nil when no clause has an index.
func (t *typeTable) candidates(clauses []clause) []int32 {
	var best []int32
	found := false
	for _, c := range clauses {
		var list []int32
		switch {
		case c.tokens != nil:
			// An index a write dropped since the search built it does not
			// narrow (the columns themselves stay current).
			ix, ok := t.ix.tokenIx[c.code]
			if !ok {
				continue
			}
			for _, code := range c.tokens {
				list = append(list, ix[code]...)
			}
		case c.dateIx:
			ix, ok := t.ix.dateIx[c.code]
			if !ok {
				continue
			}
			i := sort.Search(len(ix), func(i int) bool { return ix[i].lo >= c.dateLo })
			j := sort.Search(len(ix), func(i int) bool { return ix[i].lo >= c.dateHi })
			for _, d := range ix[i:j] {
				list = append(list, d.pos)
			}
		default:
			continue
		}
		if !found || len(list) < len(best) {
			best, found = list, true
		}
	}
	if !found {
		return nil
	}
	slices.Sort(best)
	best = slices.Compact(best)
	if best == nil {
		best = []int32{}
	}
	return best
}
