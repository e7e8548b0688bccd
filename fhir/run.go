package fhir

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// hit is one resource a search matched, and where it is: its layer and
// position there, and its position in its table, which orders results.
type hit struct {
	e   *entry
	l   *layer
	pos int32
	g   int32
}

// searchResult is what a search found, in order, and, for the page that
// [start, end) selects, the resources _include and _revinclude add.
type searchResult struct {
	entries    []*entry
	q          *query
	start, end int
	included   []*entry
}

// search runs params over typ's resources with the store's lock held
// for reading.
func (s *Store) search(typ string, params url.Values) (searchResult, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.searchLocked(typ, params, "")
}

// searchLocked is search for a caller holding the store's lock (read or
// write); base is the server's base URL ("" for a store searched
// directly).
func (s *Store) searchLocked(typ string, params url.Values, base string) (searchResult, error) {
	if !validType(typ) {
		return searchResult{}, &SearchError{Param: "resource type", Value: typ, Err: fmt.Errorf("%w: not a resource type", ErrBadValue)}
	}
	cc := &compiler{s: s, base: base, now: s.now()}
	q, err := cc.query(typ, params)
	if err != nil {
		return searchResult{}, err
	}
	hits := s.searchTable(q)
	if len(q.sorts) > 0 {
		sortHits(hits, q.sorts)
	}
	return searchResult{entries: entriesOf(hits), q: q}, nil
}

// searchSystem runs a search of several types (GET [base]?_type=...):
// those _type names, in its order, or, without it, every type the store
// holds, in byte order, where only the parameters of every resource
// (_id, _lastUpdated, ...) apply. The caller holds the store's lock.
func (s *Store) searchSystem(params url.Values, base string) (searchResult, error) {
	var types []string
	rest := url.Values{}
	for k, v := range params {
		if k != "_type" {
			rest[k] = v
		}
	}
	if list, ok := params["_type"]; ok {
		for _, v := range list {
			for _, t := range strings.Split(v, ",") {
				if !isR4Type(t) {
					return searchResult{}, &SearchError{Param: "_type", Value: t, Err: fmt.Errorf("%w: not a resource type of R4", ErrBadValue)}
				}
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
		}
	} else {
		for name := range rest {
			code, _, _ := strings.Cut(name, ":")
			code, _, _ = strings.Cut(code, ".")
			if controlParams[name] || name == "_summary" || name == "_elements" || strings.HasPrefix(name, "_include") || strings.HasPrefix(name, "_revinclude") {
				continue
			}
			if _, ok := paramIndex("Resource", code); !ok {
				return searchResult{}, &SearchError{Param: name, Err: fmt.Errorf("%w: a search of every type takes the parameters every resource has (_id, _lastUpdated, _tag, _profile, _security, _source); name the types with _type", ErrUnknownParameter)}
			}
		}
		for t := range s.types {
			types = append(types, t)
		}
		sort.Strings(types)
	}
	cc := &compiler{s: s, base: base, now: s.now()}
	var all []hit
	var first *query
	for _, t := range types {
		q, err := cc.query(t, rest)
		if err != nil {
			return searchResult{}, err
		}
		if first == nil {
			first = q
		}
		all = append(all, s.searchTable(q)...)
	}
	if first == nil {
		q, err := cc.query("Resource", rest)
		if err != nil {
			return searchResult{}, err
		}
		first = q
	}
	if len(first.sorts) > 0 {
		sortHits(all, first.sorts)
	}
	return searchResult{entries: entriesOf(all), q: first}, nil
}

func entriesOf(hits []hit) []*entry {
	out := make([]*entry, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out
}

// searchTable runs q over its type's table, in table order; the caller
// holds the store's lock.
func (s *Store) searchTable(q *query) []hit {
	t := s.types[q.typ]
	if t == nil {
		return nil
	}
	var hits []hit
	if t.base != nil {
		hits = q.scan(t.base.view(q.need), t, true, hits)
	}
	n := len(hits)
	hits = q.scan(t.own.view(q.need), t, false, hits)
	if t.base == nil || n == len(hits) {
		return hits
	}
	// Merge the own layer's hits (by table position) into the base's.
	own := slices.Clone(hits[n:])
	slices.SortFunc(own, func(a, b hit) int { return int(a.g) - int(b.g) })
	out := make([]hit, 0, len(hits))
	i, j := 0, 0
	for i < n || j < len(own) {
		if j == len(own) || i < n && hits[i].g < own[j].g {
			out = append(out, hits[i])
			i++
		} else {
			out = append(out, own[j])
			j++
		}
	}
	return out
}

// scan appends the resources of v's layer that match q; base says the
// layer is t's base (whose shadowed positions own holds).
func (q *query) scan(v view, t *typeTable, base bool, out []hit) []hit {
	l := v.l
	cols := make([][][]ival, len(q.clauses))
	for i, c := range q.clauses {
		if c.code != "" {
			cols[i] = v.col(c.code)
		}
	}
	cands, narrowed := q.candidates(v)
	n := len(l.entries)
	count := n
	if narrowed {
		count = len(cands)
		out = slices.Grow(out, count)
	}
next:
	for k := range count {
		pos := int32(k)
		if narrowed {
			pos = cands[k]
		}
		if int(pos) >= n || base && t.shadowed(pos) {
			continue
		}
		e := l.entries[pos]
		if e.deleted {
			continue
		}
		for i := range q.clauses {
			if !q.clauses[i].match(e, cols[i], pos) {
				continue next
			}
		}
		h := hit{e: e, l: l, pos: pos, g: pos}
		if !base && t.base != nil {
			h.g = t.gpos[pos]
		}
		out = append(out, h)
	}
	return out
}

// candidates returns the positions (ascending, unique) that the most
// selective narrowing clause allows, and whether any clause narrows.
func (q *query) candidates(v view) ([]int32, bool) {
	var best []int32
	found := false
	for _, c := range q.clauses {
		var list []int32
		switch {
		case c.ids != nil:
			for id := range c.ids {
				if pos, ok := v.l.byID[id]; ok {
					list = append(list, pos)
				}
			}
		case c.keyed:
			ix := v.key(c.code)
			for _, key := range c.keys {
				list = append(list, ix.m[key]...)
			}
		case c.dateIx:
			list = v.date(c.code).between(c.dateLo, c.dateHi, nil)
		default:
			continue
		}
		if !found || len(list) < len(best) {
			best, found = list, true
		}
	}
	if !found {
		return nil, false
	}
	slices.Sort(best)
	return slices.Compact(best), true
}

// sortHits orders hits by their _sort values: a resource's lowest value
// ascending, its highest descending, resources without a value last;
// ties keep the order they came in. The columns are those the search
// built.
func sortHits(hits []hit, keys []sortKey) {
	n := need{}
	for _, k := range keys {
		n.codes = append(n.codes, k.code)
	}
	var views []view
	vals := make([]sortVal, len(hits)*len(keys))
	for i, h := range hits {
		k := slices.IndexFunc(views, func(v view) bool { return v.l == h.l })
		if k < 0 {
			views = append(views, h.l.view(n))
			k = len(views) - 1
		}
		for j, key := range keys {
			vals[i*len(keys)+j] = sortValue(views[k].cols[j][h.pos], key)
		}
	}
	idx := make([]int, len(hits))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool {
		for k, key := range keys {
			a, b := vals[idx[x]*len(keys)+k], vals[idx[y]*len(keys)+k]
			switch {
			case !a.ok && !b.ok:
				continue
			case !a.ok:
				return false
			case !b.ok:
				return true
			}
			c := a.cmp(b)
			if c == 0 {
				continue
			}
			return (c < 0) != key.desc
		}
		return false
	})
	sorted := make([]hit, len(hits))
	for i, j := range idx {
		sorted[i] = hits[j]
	}
	copy(hits, sorted)
}

type sortVal struct {
	s  string
	n  float64
	ok bool // the resource has a value
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

func sortValue(vals []ival, k sortKey) sortVal {
	var best sortVal
	for _, x := range vals {
		if x.kind != kindValue {
			continue
		}
		v := sortVal{ok: true}
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
		if !best.ok || (v.cmp(best) < 0) != k.desc && v.cmp(best) != 0 {
			best = v
		}
	}
	return best
}

// resolve returns typ/id's current version, nil when the store does not
// hold it (or it is deleted).
func (s *Store) resolve(typ, id string) *entry {
	t := s.types[typ]
	if t == nil {
		return nil
	}
	l, pos, ok := t.find(id)
	if !ok || l.entries[pos].deleted {
		return nil
	}
	return l.entries[pos]
}

// refCodes lists the reference parameters code names for typ: code
// itself, or every one for "*".
func refCodes(typ, code string) []string {
	if code != "*" {
		return []string{code}
	}
	var out []string
	i, _ := paramIndex(typ, "")
	for ; i < len(r4Params) && r4Params[i].Base == typ; i++ {
		if d := r4Params[i]; d.Type == "reference" {
			if p := paramAt(i); p.err == nil {
				out = append(out, d.Code)
			}
		}
	}
	return out
}

// include returns the resources q's _include and _revinclude add to
// page, the matches of one page, in the order found: each once, none of
// the page's own. :iterate applies to what was included, until nothing
// new is. The caller holds the store's lock.
func (s *Store) include(q *query, page []*entry, base string) ([]*entry, error) {
	if len(q.includes) == 0 || q.summary == "count" {
		return nil, nil
	}
	seen := make(map[*entry]bool, len(page))
	for _, e := range page {
		seen[e] = true
	}
	var out []*entry
	add := func(e *entry) error {
		if seen[e] {
			return nil
		}
		if len(out) >= MaxIncluded {
			return &SearchError{Param: "_include", Err: fmt.Errorf("%w: a page includes at most %d resources; ask for smaller pages (_count)", ErrBadValue, MaxIncluded)}
		}
		seen[e] = true
		out = append(out, e)
		return nil
	}
	frontier := page
	for round := 0; len(frontier) > 0; round++ {
		start := len(out)
		for _, inc := range q.includes {
			if round > 0 && !inc.iterate {
				continue
			}
			var err error
			if inc.rev {
				err = s.revinclude(inc, frontier, base, add)
			} else {
				err = s.forward(inc, frontier, base, add)
			}
			if err != nil {
				return nil, err
			}
		}
		frontier = out[start:]
	}
	return out, nil
}

// forward adds what the resources of frontier refer to by inc.
func (s *Store) forward(inc include, frontier []*entry, base string, add func(*entry) error) error {
	for _, e := range frontier {
		if inc.src != "" && e.typ != inc.src {
			continue
		}
		res := gjson.Parse(e.raw)
		for _, code := range refCodes(e.typ, inc.code) {
			p := lookupParam(e.typ, code)
			var vals []ival
			for _, v := range p.expr.eval(res) {
				vals = extract(p.Type, v, vals)
			}
			for _, x := range vals {
				t, id, ok := localRef(x, base)
				if !ok || inc.target != "" && t != inc.target {
					continue
				}
				if r := s.resolve(t, id); r != nil {
					if err := add(r); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// revinclude adds the resources of inc.src that refer to one of frontier
// by inc.code.
func (s *Store) revinclude(inc include, frontier []*entry, base string, add func(*entry) error) error {
	targets := map[string]map[string]bool{}
	var keys []string
	for _, e := range frontier {
		if inc.target != "" && e.typ != inc.target {
			continue
		}
		if targets[e.typ] == nil {
			targets[e.typ] = map[string]bool{}
		}
		targets[e.typ][e.id] = true
		keys = append(keys, e.id)
	}
	if len(keys) == 0 {
		return nil
	}
	srcs := []string{inc.src}
	if inc.src == "" {
		srcs = srcs[:0]
		for t := range s.types {
			srcs = append(srcs, t)
		}
		sort.Strings(srcs)
	}
	for _, src := range srcs {
		for _, code := range refCodes(src, inc.code) {
			c := clause{code: code, keyed: true, keys: keys, ors: []matcher{func(vals []ival) bool {
				for _, x := range vals {
					if t, id, ok := localRef(x, base); ok && targets[t][id] {
						return true
					}
				}
				return false
			}}}
			q := &query{typ: src, count: -1, clauses: []clause{c}}
			q.need = q.needs()
			for _, h := range s.searchTable(q) {
				if err := add(h.e); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Index builds, ahead of the first search, the indexes of the parameters
// params of resource type typ (names as in a search, without modifiers):
// their values, and the code or id map of a token or reference or the
// sorted ranges of a date. A search builds what it needs on first use
// anyway (a token over 100,000 resources takes about a quarter of a
// second); Index moves that cost to load time. Unknown parameters are a
// SearchError.
func (s *Store) Index(typ string, params ...string) error {
	var n need
	for _, code := range params {
		p := lookupParam(typ, code)
		if p == nil || p.err != nil {
			return &SearchError{Param: code, Err: fmt.Errorf("%w: cannot index %s by %q", ErrUnknownParameter, typ, code)}
		}
		n.codes = append(n.codes, code)
		switch p.Type {
		case "token", "reference":
			n.keyed = append(n.keyed, code)
		case "date":
			n.dated = append(n.dated, code)
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.types[typ]; t != nil {
		if t.base != nil {
			t.base.ensure(n)
		}
		t.own.ensure(n)
	}
	return nil
}

// shape returns e's JSON as q's _summary or _elements shape it: the
// elements they keep (and id, meta and the mandatory ones), meta marked
// SUBSETTED (R4 search.html#summary); e's own JSON when neither applies.
func (q *query) shape(e *entry) string {
	var keep func(name string) bool
	switch q.summary {
	case "true":
		els := elementsOf(e.typ)
		keep = func(n string) bool { return hasElement(els.Summary, n) || hasElement(els.Mandatory, n) }
	case "text":
		els := elementsOf(e.typ)
		keep = func(n string) bool { return n == "text" || hasElement(els.Mandatory, n) }
	case "data":
		keep = func(n string) bool { return n != "text" }
	default:
		if q.elements == nil {
			return e.raw
		}
		els := elementsOf(e.typ)
		keep = func(n string) bool { return slices.Contains(q.elements, n) || hasElement(els.Mandatory, n) }
	}
	return subset(e.raw, keep)
}

// elementsOf returns the summary and mandatory elements of typ.
func elementsOf(typ string) typeElements {
	i, ok := slices.BinarySearchFunc(r4Elements, typ, func(t typeElements, name string) int { return strings.Compare(t.Type, name) })
	if !ok {
		return typeElements{Type: typ}
	}
	return r4Elements[i]
}

// hasElement reports whether the JSON member name is one of els (a
// choice element name[x] is any name followed by a type: valueQuantity).
func hasElement(els []string, name string) bool {
	for _, el := range els {
		if el == name {
			return true
		}
		if p, ok := strings.CutSuffix(el, "[x]"); ok && len(name) > len(p) && strings.HasPrefix(name, p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// subsetted is the tag R4 puts on a resource a search returned in part.
const subsetted = `{"system":"http://terminology.hl7.org/CodeSystem/v3-ObservationValue","code":"SUBSETTED"}`

// subset keeps the members of the resource raw that keep accepts (and a
// primitive's extension member _name with name), resourceType and id,
// and meta with the SUBSETTED tag.
func subset(raw string, keep func(name string) bool) string {
	var b strings.Builder
	b.Grow(len(raw))
	b.WriteByte('{')
	n := 0
	member := func(k, v string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(v)
	}
	hasMeta := false
	gjson.Parse(raw).ForEach(func(k, v gjson.Result) bool {
		name := k.Str
		switch {
		case name == "meta":
			hasMeta = true
			member(k.Raw, tagSubsetted(v))
		case name == "resourceType" || name == "id" || keep(strings.TrimPrefix(name, "_")):
			member(k.Raw, v.Raw)
		}
		return true
	})
	if !hasMeta {
		member(`"meta"`, `{"tag":[`+subsetted+`]}`)
	}
	b.WriteByte('}')
	return b.String()
}

// tagSubsetted adds the SUBSETTED tag to the meta object meta.
func tagSubsetted(meta gjson.Result) string {
	if !meta.IsObject() {
		return meta.Raw
	}
	meta = gjson.Parse(meta.Raw)
	tag := meta.Get("tag")
	switch {
	case tag.IsArray():
		inner := strings.TrimSpace(tag.Raw[1 : len(tag.Raw)-1])
		sep := ","
		if inner == "" {
			sep = ""
		}
		return meta.Raw[:tag.Index] + "[" + inner + sep + subsetted + "]" + meta.Raw[tag.Index+len(tag.Raw):]
	case tag.Exists():
		return meta.Raw
	}
	inner := strings.TrimSpace(meta.Raw[1 : len(meta.Raw)-1])
	if inner == "" {
		return `{"tag":[` + subsetted + `]}`
	}
	return `{` + inner + `,"tag":[` + subsetted + `]}`
}
