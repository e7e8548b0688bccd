package fhir

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/gjson"
)

// A store keeps each resource type in a typeTable. A table is a layer (the
// resources at positions 0..n-1, their histories, and the search index
// built over them) or, once a clone has written to a type it shared, a
// layer of its own over the shared one:
//
//   - A layer that no other store can see is changed in place by writes,
//     which keep its index up to date (see tableIndex).
//   - Clone shares a store's tables and marks them shared: no store changes
//     a shared table again. The first write to a shared table makes the
//     writer a table of its own whose base is the shared table's layer
//     (immutable from then on, its index built once for every store that
//     shares it) and whose own layer holds what the writer changed: a
//     changed base resource moves to the own layer, and its base position
//     is marked shadowed. The cost of that first write does not depend on
//     what the base holds, and a store's memory grows with what it wrote.
//   - A table that already has an own layer, when shared and written
//     again, copies its own layer (what that store wrote) and keeps the
//     base: tables are never more than two layers deep.
//
// Positions order search results: a base resource keeps its base position
// when its own layer changes it; a new resource comes after every base
// position, in the order of creation.
type typeTable struct {
	name   string
	shared atomic.Bool
	live   int
	own    *layer
	// base is the shared layer own overlays; nil when own holds every
	// resource of the table.
	base *layer
	// gpos is, for each position of own, its position in the table (nil
	// without a base).
	gpos []int32
	// shadow marks the base positions whose resource own holds (a bit per
	// position, grown as needed).
	shadow []uint64
	// nextG is the table position of the next new resource.
	nextG int32
}

// layer is a list of resources of one type with their search index.
type layer struct {
	name    string
	byID    map[string]int32 // id -> position
	entries []*entry         // current version per position; deleted ones stay as tombstones
	hist    []history        // versions per position
	ix      tableIndex
}

func newLayer(typ string) *layer {
	l := &layer{name: typ, byID: map[string]int32{}}
	l.ix.columns = map[string][][]ival{}
	l.ix.keys = map[string]*keyIndex{}
	l.ix.dates = map[string]*dateIndex{}
	return l
}

func newTable(typ string) *typeTable {
	return &typeTable{name: typ, own: newLayer(typ)}
}

// find returns the layer and position of id's resource; ok is false when
// the table never held it.
func (t *typeTable) find(id string) (*layer, int32, bool) {
	if p, ok := t.own.byID[id]; ok {
		return t.own, p, true
	}
	if t.base != nil {
		if p, ok := t.base.byID[id]; ok {
			return t.base, p, true
		}
	}
	return nil, 0, false
}

// shadowed reports whether base position pos is held by own.
func (t *typeTable) shadowed(pos int32) bool {
	w := int(pos >> 6)
	return w < len(t.shadow) && t.shadow[w]&(1<<(pos&63)) != 0
}

func (t *typeTable) setShadow(pos int32, on bool) {
	w := int(pos >> 6)
	for len(t.shadow) <= w {
		t.shadow = append(t.shadow, 0)
	}
	if on {
		t.shadow[w] |= 1 << (pos & 63)
	} else {
		t.shadow[w] &^= 1 << (pos & 63)
	}
}

// each calls fn for every current version the table holds (deleted ones
// included), base first.
func (t *typeTable) each(fn func(e *entry)) {
	if b := t.base; b != nil {
		for pos, e := range b.entries {
			if !t.shadowed(int32(pos)) {
				fn(e)
			}
		}
	}
	for _, e := range t.own.entries {
		fn(e)
	}
}

// fork returns a table of the same resources for a store to write to (t
// is shared), and an estimate of the bytes it takes: a flat table's layer
// becomes the base of an empty own layer; a table with a base keeps it
// and copies its own layer.
func (t *typeTable) fork() (*typeTable, int64) {
	c := &typeTable{name: t.name, live: t.live}
	if t.base == nil {
		c.base, c.own, c.nextG = t.own, newLayer(t.name), int32(len(t.own.entries))
		return c, 256
	}
	c.base, c.nextG = t.base, t.nextG
	c.gpos = slices.Clone(t.gpos)
	c.shadow = slices.Clone(t.shadow)
	var cost int64
	c.own, cost = t.own.copy()
	return c, cost + int64(4*len(c.gpos)+8*len(c.shadow))
}

// copy returns a layer of the same resources that the caller owns, and an
// estimate of the bytes it takes (a map entry, an entry pointer and a
// history per resource, a slot per built column, and the index lists).
// Entries and histories are shared; the slices and maps writes change
// are copied, and index lists are capped so that appends reallocate.
func (l *layer) copy() (*layer, int64) {
	c := newLayer(l.name)
	c.entries = slices.Clone(l.entries)
	c.hist = slices.Clone(l.hist)
	c.byID = make(map[string]int32, len(l.byID)+1)
	for id, pos := range l.byID {
		c.byID[id] = pos
	}
	l.ix.mu.RLock()
	defer l.ix.mu.RUnlock()
	cost := int64(len(l.entries)) * int64(112+24*len(l.ix.columns))
	for code, col := range l.ix.columns {
		c.ix.columns[code] = slices.Clone(col)
	}
	for code, k := range l.ix.keys {
		m := make(map[string][]int32, len(k.m))
		for key, list := range k.m {
			m[key] = list[:len(list):len(list)]
			cost += 16 + int64(len(key))
		}
		c.ix.keys[code] = &keyIndex{m: m, fold: k.fold, typ: k.typ, built: k.built, added: k.added}
	}
	for code, d := range l.ix.dates {
		c.ix.dates[code] = &dateIndex{sorted: d.sorted, tail: d.tail[:len(d.tail):len(d.tail)]}
		cost += 16 * int64(len(d.tail))
	}
	return c, cost
}

// tableIndex is what searches derive from a layer: the values of each
// parameter searched so far (columns), and for token and reference
// parameters a map from code or id to positions (keys), for date
// parameters the positions sorted by the start of their ranges (dates).
// Searches build them on first use, under mu, since stores that share a
// layer search it at once; from then on writes keep them up to date. The
// key and date indexes may hold more positions than match (a position
// whose value a write changed stays listed under its old key until the
// index is next rebuilt, and a position a rolled-back write appended
// stays listed): a search checks every candidate against the columns,
// which are exact. Rebuilding when those extra positions pass the index's
// size keeps the cost of a write constant, amortised.
type tableIndex struct {
	mu      sync.RWMutex
	columns map[string][][]ival
	keys    map[string]*keyIndex
	dates   map[string]*dateIndex
}

// keyIndex maps the index keys of a token or reference parameter (the
// code, the referenced id) to the positions that hold them, in ascending
// order of their listing (not necessarily of position).
type keyIndex struct {
	m     map[string][]int32
	typ   string // the parameter's type
	fold  bool   // keys are lower-cased (a token over strings)
	built int    // positions listed when built
	added int    // positions listed since
}

// dateIndex lists (range start, position) pairs: sorted when built, and
// those added since in tail, unsorted.
type dateIndex struct {
	sorted, tail []datePos
}

type datePos struct {
	lo  int64
	pos int32
}

// Kinds of indexed values beyond a parameter's plain ones.
const (
	kindValue    = iota
	kindOfType   // token: an Identifier's type coding (a system, b code, c value)
	kindRefIdent // reference: a Reference.identifier (a system, b value)
)

// indexKey is the key x is listed under in a keyIndex, "" for none.
func indexKey(typ string, fold bool, x ival) string {
	switch {
	case typ == "reference":
		return x.b
	case x.kind == kindOfType:
		return x.c
	case fold:
		return strings.ToLower(x.b)
	}
	return x.b
}

func (k *keyIndex) add(pos int32, vals []ival) {
	for _, v := range vals {
		key := indexKey(k.typ, k.fold, v)
		list := k.m[key]
		if n := len(list); n > 0 && list[n-1] == pos {
			continue
		}
		k.m[key] = append(list, pos)
		k.added++
	}
}

func buildKeyIndex(p *searchParam, col [][]ival) *keyIndex {
	k := &keyIndex{m: map[string][]int32{}, typ: p.Type, fold: p.Fold}
	for pos, vals := range col {
		k.add(int32(pos), vals)
	}
	k.built, k.added = k.added, 0
	return k
}

func buildDateIndex(col [][]ival) *dateIndex {
	var ix []datePos
	for pos, vals := range col {
		for _, v := range vals {
			ix = append(ix, datePos{lo: v.lo, pos: int32(pos)})
		}
	}
	sort.Slice(ix, func(i, j int) bool { return ix[i].lo < ix[j].lo })
	return &dateIndex{sorted: ix}
}

// between appends the positions whose range starts in [lo, hi).
func (d *dateIndex) between(lo, hi int64, out []int32) []int32 {
	s := d.sorted
	i := sort.Search(len(s), func(i int) bool { return s[i].lo >= lo })
	j := sort.Search(len(s), func(i int) bool { return s[i].lo >= hi })
	for _, x := range s[i:j] {
		out = append(out, x.pos)
	}
	for _, x := range d.tail {
		if x.lo >= lo && x.lo < hi {
			out = append(out, x.pos)
		}
	}
	return out
}

// index keeps l's built columns and indexes up to date with e, the
// resource now at pos (pos == len of the columns: appended). The caller
// holds the store's write lock and l is not shared.
func (l *layer) index(pos int32, e *entry) {
	for code, col := range l.ix.columns {
		vals := l.values(code, e)
		if int(pos) == len(col) {
			l.ix.columns[code] = append(col, vals)
		} else {
			col[pos] = vals
		}
		if k := l.ix.keys[code]; k != nil {
			k.add(pos, vals)
			if k.added > k.built+1024 {
				l.ix.keys[code] = buildKeyIndex(lookupParam(l.name, code), l.ix.columns[code])
			}
		}
		if d := l.ix.dates[code]; d != nil {
			for _, v := range vals {
				d.tail = append(d.tail, datePos{lo: v.lo, pos: pos})
			}
			if len(d.tail) > 1024 && len(d.tail) > len(d.sorted)/8 {
				l.ix.dates[code] = buildDateIndex(l.ix.columns[code])
			}
		}
	}
}

// truncate drops the positions from n on (undoing appends); index lists
// may still name them (a search skips positions past the end).
func (l *layer) truncate(n int) {
	for _, e := range l.entries[n:] {
		delete(l.byID, e.id)
	}
	l.entries, l.hist = l.entries[:n], l.hist[:n]
	for code, col := range l.ix.columns {
		if len(col) > n {
			l.ix.columns[code] = col[:n]
		}
	}
}

// values computes an entry's indexed values for one parameter.
func (l *layer) values(code string, e *entry) []ival {
	if e.deleted {
		return nil
	}
	p := lookupParam(l.name, code)
	if p == nil || p.expr == nil {
		return nil
	}
	res := gjson.Parse(e.raw)
	var out []ival
	for _, v := range p.expr.eval(res) {
		out = extract(p.Type, v, out)
	}
	return out
}

// need says which columns and indexes a search reads of a type: the
// columns of codes, the key index of keyed, the date index of dated.
type need struct {
	codes, keyed, dated []string
}

func (n need) missing(ix *tableIndex) bool {
	for _, c := range n.codes {
		if _, ok := ix.columns[c]; !ok {
			return true
		}
	}
	for _, c := range n.keyed {
		if _, ok := ix.keys[c]; !ok {
			return true
		}
	}
	for _, c := range n.dated {
		if _, ok := ix.dates[c]; !ok {
			return true
		}
	}
	return false
}

// ensure builds the columns and indexes n names. The caller holds the
// store's lock, so l's resources do not change; stores sharing l may
// build at once, hence l.ix.mu.
func (l *layer) ensure(n need) {
	l.ix.mu.RLock()
	missing := n.missing(&l.ix)
	l.ix.mu.RUnlock()
	if !missing {
		return
	}
	l.ix.mu.Lock()
	defer l.ix.mu.Unlock()
	for _, c := range n.codes {
		if _, ok := l.ix.columns[c]; !ok {
			col := make([][]ival, len(l.entries))
			for i, e := range l.entries {
				col[i] = l.values(c, e)
			}
			l.ix.columns[c] = col
		}
	}
	for _, c := range n.keyed {
		if _, ok := l.ix.keys[c]; !ok {
			l.ix.keys[c] = buildKeyIndex(lookupParam(l.name, c), l.ix.columns[c])
		}
	}
	for _, c := range n.dated {
		if _, ok := l.ix.dates[c]; !ok {
			l.ix.dates[c] = buildDateIndex(l.ix.columns[c])
		}
	}
}

// view is what a search reads of a layer, taken under its lock once: the
// layer's index maps may gain columns while the search runs, but a
// column or index, once there, does not change while the store's lock is
// held. Its slices follow n's.
type view struct {
	l     *layer
	n     need
	cols  [][][]ival
	keys  []*keyIndex
	dates []*dateIndex
}

func (l *layer) view(n need) view {
	l.ensure(n)
	v := view{l: l, n: n, cols: make([][][]ival, len(n.codes))}
	if len(n.keyed) > 0 {
		v.keys = make([]*keyIndex, len(n.keyed))
	}
	if len(n.dated) > 0 {
		v.dates = make([]*dateIndex, len(n.dated))
	}
	l.ix.mu.RLock()
	defer l.ix.mu.RUnlock()
	for i, c := range n.codes {
		v.cols[i] = l.ix.columns[c]
	}
	for i, c := range n.keyed {
		v.keys[i] = l.ix.keys[c]
	}
	for i, c := range n.dated {
		v.dates[i] = l.ix.dates[c]
	}
	return v
}

// col returns the column of code, which v's need names.
func (v view) col(code string) [][]ival { return v.cols[slices.Index(v.n.codes, code)] }

func (v view) key(code string) *keyIndex { return v.keys[slices.Index(v.n.keyed, code)] }

func (v view) date(code string) *dateIndex { return v.dates[slices.Index(v.n.dated, code)] }
