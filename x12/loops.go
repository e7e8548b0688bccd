package x12

import "slices"

// loop is one instance of a loop in an interchange.
type loop struct {
	// name is the loop's ID ("2100C") as its index in the guides'
	// loopIDs, 0 ("") for an HL level the guide does not name: an index
	// rather than a string keeps the list, which has an entry for about
	// every other segment, free of pointers for the garbage collector to
	// follow.
	name   uint16
	parent int32 // enclosing loop instance, -1 at the top of a transaction set
	// first is the loop's first segment; last the last segment inside it
	// or its nested loops.
	first, last int32
}

// id returns the loop's ID, "" for an HL level the guide does not name.
func (l loop) id() string { return guides().loopIDs[l.name] }

// buildIndex lists every segment and, in each transaction set with a
// guide, gives each segment its loop: what the parse does as it goes for
// an input of up to eagerLimit bytes.
func (x *Interchange) buildIndex() ([]segment, []loop) {
	ix := newIndexer(x, x.nsegs)
	sc := x.scan()
	for {
		start, end, ok := sc.next()
		if !ok {
			break
		}
		ix.add(start, end, segmentID(x.data[start:end], sc.d.Element), sc.d.Element)
	}
	return ix.done()
}

// indexer assigns the segments of a transaction set with a guide to its
// loops: each HL opens the loop of its level code, nested in the loop of
// its parent HL; within a level, a segment that opens a loop the guide
// nests in an open one opens it, and any other segment belongs to the
// innermost open loop.
type indexer struct {
	x      *Interchange
	guides *guideSet
	segs   []segment
	loops  []loop
	next   int        // the next transaction set, in x.sets
	inSet  bool       // a transaction set with a guide is open
	levels levels     // the loops of the current set's HL level codes
	is278  bool       // the current set is a 278, which BHT02 makes a request or a response
	open   []openLoop // the HL level loop, then the loops open inside it
	ls     int        // the index in open of the loop whose LS/LE bracket is open; -1 none
	hl     hlTree
}

// openLoop is a loop open at one level of the current HL loop.
type openLoop struct {
	def  *loopDef // nil for an HL level the guide does not name
	inst int32
	// lastChild is the index in def.children of the loop last opened
	// directly inside this one. Loops follow the guide's order, so a
	// segment that could open several siblings opens the first of them
	// that is not before this one.
	lastChild int
}

// newIndexer starts the index of x, with room for n segments.
func newIndexer(x *Interchange, n int) *indexer {
	return &indexer{x: x, guides: guides(), segs: make([]segment, 0, n)}
}

// add appends segment text x.data[start:end], whose identifier is id and
// element separator sep, to the index and gives it its loop. Segments are
// added in order, each after the parse has read it (an ST is in x.sets, a
// GS in x.groups).
func (ix *indexer) add(start, end int, id string, sep byte) {
	x := ix.x
	i := int32(len(ix.segs))
	ix.segs = append(ix.segs, segment{start: int32(start), loop: -1})
	if ix.next < len(x.sets) && start == int(x.sets[ix.next]) {
		ix.inSet = ix.startSet(x.guide(ix.next))
		ix.next++
		return
	}
	if !ix.inSet {
		return
	}
	switch id {
	case "SE", "ISA", "GS", "GE", "IEA":
		// The set ends at its SE, or before the envelope segment that
		// shows its SE is missing, as the parse ends it.
		ix.inSet = false
	case "ST", "TA1":
	default:
		if validID(id) {
			ix.segs[i].loop = ix.assign(i, id, x.data[start:end], sep)
		}
	}
}

// done gives each loop its extent and returns the index and the loops.
func (ix *indexer) done() ([]segment, []loop) {
	ix.extents()
	return ix.segs, ix.loops
}

// startSet starts a transaction set of guide g, and reports whether it has
// loops.
func (ix *indexer) startSet(g uint8) bool {
	ix.levels = ix.guides.byGuide[g]
	if ix.levels != nil && ix.loops == nil {
		// Each loop opens at a segment of its own, and the guides open one
		// at about every other segment.
		ix.loops = make([]loop, 0, cap(ix.segs)/2+16)
	}
	ix.is278 = g == guide278
	ix.open = ix.open[:0]
	ix.ls = -1
	ix.hl.reset()
	return ix.levels != nil
}

// innermost returns the innermost open loop; -1 before the first HL.
func (ix *indexer) innermost() int32 {
	if len(ix.open) == 0 {
		return -1
	}
	return ix.open[len(ix.open)-1].inst
}

// assign returns the loop of segment i, whose identifier is id and text t.
func (ix *indexer) assign(i int32, id, t string, sep byte) int32 {
	switch id {
	case "HL":
		hl01, _ := field(t, sep, 1)
		hl02, _ := field(t, sep, 2)
		hl03, _ := field(t, sep, 3)
		def := ix.levels[hl03]
		inst := ix.newLoop(def, -1, i)
		ix.loops[inst].parent, _ = ix.hl.add(hl01, hl02, inst)
		ix.open = append(ix.open[:0], openLoop{def: def, inst: inst})
		ix.ls = -1
		return inst
	case "BHT":
		if v, _ := field(t, sep, 2); ix.is278 && v == "11" {
			ix.levels = ix.guides.response278 // X217: BHT02 11 is a response, 13 a request
		}
		return ix.innermost()
	}
	if len(ix.open) == 0 {
		return -1 // the header, before the first HL
	}
	switch id {
	case "LS":
		for d := len(ix.open) - 1; d >= 0; d-- {
			if def := ix.open[d].def; def != nil && def.hasLS {
				ix.open, ix.ls = ix.open[:d+1], d
				break
			}
		}
	case "LE":
		if ix.ls >= 0 && ix.ls < len(ix.open) {
			ix.open = ix.open[:ix.ls+1]
		}
		ix.ls = -1
	default:
		if !slices.Contains(ix.guides.openers, id) {
			break // most segments open no loop in any guide
		}
		if d, c := ix.opens(id, t, sep); c != nil {
			ix.open = ix.open[:d+1]
			inst := ix.newLoop(c, ix.open[d].inst, i)
			ix.open = append(ix.open, openLoop{def: c, inst: inst})
			return inst
		}
	}
	return ix.innermost()
}

// opens finds the loop that a segment with identifier id (text t) opens: a
// child of one of the open loops, innermost first, and the level d of the
// open loop it nests in; nil when it opens none. A first pass honours
// qualifiers (element 01); when it finds nothing, a second pass lets a
// qualified loop open on its segment alone, so that an unlisted code
// still starts the loop its segment starts (the first of the siblings not
// before the one last opened).
func (ix *indexer) opens(id, t string, sep byte) (d int, c *loopDef) {
	q, haveQ := "", false // element 01, read when a qualifier decides
	for pass := range 2 {
		for d := len(ix.open) - 1; d >= 0; d-- {
			o := &ix.open[d]
			if o.def == nil {
				continue
			}
			best := -1
			for ci, c := range o.def.children {
				if c.seg != id || c.inLS && ix.ls != d {
					continue
				}
				if pass == 1 && c.quals == nil {
					continue // tried in the first pass
				}
				if pass == 0 && c.quals != nil {
					if !haveQ {
						q, haveQ = fieldOne(t, sep), true
					}
					if !contains(c.quals, q) {
						continue
					}
				}
				if ci >= o.lastChild {
					best = ci
					break
				}
				if best < 0 {
					best = ci
				}
			}
			if best >= 0 {
				o.lastChild = best
				return d, o.def.children[best]
			}
		}
	}
	return -1, nil
}

// fieldOne returns element 01 of segment text t.
func fieldOne(t string, sep byte) string {
	v, _ := field(t, sep, 1)
	return v
}

func contains(set []string, s string) bool {
	for _, v := range set {
		if v == s {
			return true
		}
	}
	return false
}

// newLoop starts an instance of def (nil: an HL level the guide does not
// name) at segment i, inside instance parent.
func (ix *indexer) newLoop(def *loopDef, parent, i int32) int32 {
	var name uint16
	if def != nil {
		name = def.name
	}
	ix.loops = append(ix.loops, loop{name: name, parent: parent, first: i, last: -1})
	return int32(len(ix.loops) - 1)
}

// extents sets each loop's last segment: the last one inside it or its
// nested loops. Walking the segments backwards, the first segment that
// reaches a loop is its last; a loop already reached means its ancestors
// are too, so each loop is set once.
func (ix *indexer) extents() {
	segs, loops := ix.segs, ix.loops
	for i := int32(len(segs)) - 1; i >= 0; i-- {
		for l := segs[i].loop; l >= 0 && loops[l].last < 0; l = loops[l].parent {
			loops[l].last = i
		}
	}
}

// hlTree follows the HL hierarchy of one transaction set: the current HL
// and its ancestors, and every HL seen, for a parent that is not among
// them (which a well-formed, pre-order hierarchy never names).
type hlTree struct {
	stack []hlEntry // the current HL and its ancestors
	seen  []hlEntry // every HL of the transaction set, in order
}

// hlEntry is an HL: its HL01 and its loop instance (-1 in the parse's own
// check, which builds no loops).
type hlEntry struct {
	id   string
	inst int32
}

// reset starts a transaction set.
func (h *hlTree) reset() {
	if h.seen == nil {
		// Room for the hierarchy of a usual set, so that it is not grown
		// step by step.
		h.stack, h.seen = make([]hlEntry, 0, 8), make([]hlEntry, 0, 16)
	}
	h.stack, h.seen = h.stack[:0], h.seen[:0]
}

// add makes the HL whose HL01 is id and HL02 parentID current, with loop
// instance inst, and returns its parent's instance. found is false when
// HL02 names no earlier HL of the set; the HL then has no parent, like one
// without HL02. The parent is sought among the current HL's ancestors
// first, then among every earlier HL, the latest first.
func (h *hlTree) add(id, parentID string, inst int32) (parent int32, found bool) {
	parent, found = -1, true
	if parentID != "" {
		found = false
		for k := len(h.stack) - 1; k >= 0; k-- {
			if h.stack[k].id == parentID {
				h.stack = h.stack[:k+1]
				parent, found = h.stack[k].inst, true
				break
			}
		}
		if !found {
			h.stack = h.stack[:0]
			for k := len(h.seen) - 1; k >= 0; k-- {
				if h.seen[k].id == parentID {
					parent, found = h.seen[k].inst, true
					break
				}
			}
		}
	} else {
		h.stack = h.stack[:0]
	}
	e := hlEntry{id: id, inst: inst}
	h.stack = append(h.stack, e)
	h.seen = append(h.seen, e)
	return parent, found
}
