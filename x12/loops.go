package x12

import (
	"slices"
	"strconv"
	"strings"
)

// loop is one instance of a loop in an interchange.
type loop struct {
	// name indexes loopNames: the loop ID, e.g. "2100C"; 0 ("") for an HL
	// level the guide does not name. An index rather than a string keeps
	// the loops slice free of pointers, which the garbage collector then
	// never scans.
	name   uint16
	parent int32 // enclosing loop instance, -1 at the top of a transaction set
	// first is the loop's first segment; last the last segment inside it
	// or its nested loops.
	first, last int32
}

// loopDef describes a loop of an implementation guide (guides.go has
// them as the guides write them): its ID, the segment that opens it, and
// where siblings share that segment, the element-01 qualifiers that open
// it. The loops nested in it are its kidsOf entry.
type loopDef struct {
	id    string
	name  uint16 // index of id in loopNames
	seg   string
	quals []string
}

// levels maps the HL03 level codes of one transaction set to their loops
// as the indexer reads them: the codes packed (packCode), searched in a
// short list rather than hashed.
type levels struct {
	n     int
	codes [maxLevels]uint32
	defs  [maxLevels]uint16 // indexes in loopDefs
}

// maxLevels is the most HL level codes a guide names.
const maxLevels = 8

// loop returns the index in loopDefs of the HL level loop of HL03 code; 0
// for a code the guide does not name.
func (l *levels) loop(code string) uint16 { return l.loopOf(packCode(code)) }

// loopOf is loop for a code packed by packCode (small enough to inline
// into openHL, which packs the code in place).
func (l *levels) loopOf(code uint32) uint16 {
	if code != 0 {
		for k := range min(l.n, maxLevels) {
			if l.codes[k] == code {
				return l.defs[k]
			}
		}
	}
	return 0
}

// packCode packs an HL03 code of 1 to 3 bytes, with its length, into an
// integer; 0 for any other (no guide names one).
func packCode(s string) uint32 {
	switch len(s) {
	case 1:
		return 1<<24 | uint32(s[0])
	case 2:
		return 2<<24 | uint32(s[0])<<8 | uint32(s[1])
	case 3:
		return 3<<24 | uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2])
	}
	return 0
}

// packCodeAt is packCode for the element of data[:end] that starts at c
// and ends at the next separator sep (or end), read in place rather than
// found first.
func packCodeAt(data string, c, end int, sep byte) uint32 {
	switch {
	case c >= end || data[c] == sep:
	case c+1 == end || data[c+1] == sep:
		return 1<<24 | uint32(data[c])
	case c+2 == end || data[c+2] == sep:
		return 2<<24 | uint32(data[c])<<8 | uint32(data[c+1])
	case c+3 == end || data[c+3] == sep:
		return 3<<24 | uint32(data[c])<<16 | uint32(data[c+1])<<8 | uint32(data[c+2])
	}
	return 0
}

// loopNames (tables.go) lists every loop ID the definitions use, in byte
// order; loop.name indexes it. loopDefs lists every loop definition;
// openLoop.def indexes it, 0 standing for none.

// loopName returns the index of a loop ID in loopNames, and false when no
// definition uses it.
func loopName(id string) (uint16, bool) {
	n, ok := slices.BinarySearch(loopNames, id)
	return uint16(n), ok
}

// The guides loop paths are defined for, chosen by the group's GS08 or,
// when present, the transaction set's ST03 (which X12 lets override GS08):
// the guide it names when the set's ST01 fits it.
const (
	guideNone uint8 = iota
	guide270
	guide271
	guide276
	guide277
	guide277CA
	guide278
)

// guideFor picks the guide of a transaction set from its ST01 and the
// version its ST03, or else its group's GS08, names.
func guideFor(code, gs08, st03 string) uint8 {
	v := st03
	if v == "" {
		v = gs08
	}
	switch {
	case strings.Contains(v, "X279"):
		switch code {
		case "270":
			return guide270
		case "271":
			return guide271
		}
	case strings.Contains(v, "X212"):
		switch code {
		case "276":
			return guide276
		case "277":
			return guide277
		}
	case strings.Contains(v, "X214"):
		if code == "277" {
			return guide277CA
		}
	case strings.Contains(v, "X217"):
		if code == "278" {
			return guide278
		}
	}
	return guideNone
}

// txDefOf returns the loop definitions of a guide; nil for none.
func txDefOf(g uint8) *levels {
	switch g {
	case guide270:
		return def270
	case guide271:
		return def271
	case guide276:
		return def276
	case guide277:
		return def277
	case guide277CA:
		return def277CA
	case guide278:
		return def278Q // BHT02 may switch it to the response
	}
	return nil
}

// hlEntry is an HL of the current transaction set: where its HL01 is in
// the input (offsets, so that the slices hold no pointers) and its loop
// instance (-1 during the parse's own check, which builds no loops).
type hlEntry struct {
	start, end int32
	inst       int32
}

// hlCheck follows the HL hierarchy of one transaction set: the current HL
// and its ancestors, and every HL seen, for a parent that is not among
// them (which a well-formed, pre-order hierarchy never names).
type hlCheck struct {
	data  string
	stack []hlEntry
	seen  []hlEntry // every HL of the transaction set, in order
}

func (h *hlCheck) start() {
	h.stack = h.stack[:0]
	h.seen = h.seen[:0]
}

// hlIDs returns the bounds of HL01 and HL02 in the HL segment data[start:end].
func hlIDs(data string, start, end int, sep byte) (id1, id1End, id2, id2End int) {
	i := start + 3 // after "HL" and its separator
	id1 = min(i, end)
	for i < end && data[i] != sep {
		i++
	}
	id1End = i
	i++
	id2 = min(i, end)
	for i < end && data[i] != sep {
		i++
	}
	id2End = max(min(i, end), id2)
	return
}

// sameText reports whether data[a:aEnd] equals data[b:bEnd]: HL01 and
// HL02 are a few digits, which a loop compares faster than a call.
func sameText(data string, a, aEnd, b, bEnd int) bool {
	if aEnd-a != bEnd-b {
		return false
	}
	for ; a < aEnd; a, b = a+1, b+1 {
		if data[a] != data[b] {
			return false
		}
	}
	return true
}

// parent finds the HL whose HL01 is data[p2:p2End] and makes the new HL
// e current. found is false when no earlier HL has that HL01; the new HL
// then has no parent.
func (h *hlCheck) parent(e hlEntry, p2, p2End int) (parent int32, found bool) {
	parent, found = -1, true
	if p2End > p2 {
		found = false
		for k := len(h.stack) - 1; k >= 0; k-- {
			if f := h.stack[k]; sameText(h.data, int(f.start), int(f.end), p2, p2End) {
				h.stack = h.stack[:k+1]
				parent, found = f.inst, true
				break
			}
		}
		if !found {
			h.stack = h.stack[:0]
			for k := len(h.seen) - 1; k >= 0; k-- {
				if f := h.seen[k]; sameText(h.data, int(f.start), int(f.end), p2, p2End) {
					parent, found = f.inst, true
					break
				}
			}
		}
	} else {
		h.stack = h.stack[:0]
	}
	h.stack = append(h.stack, e)
	h.seen = append(h.seen, e)
	return parent, found
}

// checkHL checks that the HL s[start:end] names a parent an earlier HL of
// its transaction set has.
func (p *parser) checkHL(i int32, start, end int) {
	p1, p1End, p2, p2End := hlIDs(p.s, start, end, p.d.Element)
	if _, found := p.hl.parent(hlEntry{start: int32(p1), end: int32(p1End), inst: -1}, p2, p2End); !found {
		p.noParent(i, start, end)
	}
}

// noParent reports the HL s[start:end] (segment i), whose HL02 names no
// earlier HL of its transaction set.
func (p *parser) noParent(i int32, start, end int) {
	_, _, p2, p2End := hlIDs(p.s, start, end, p.d.Element)
	p.find(i, start, end, "HL02 names parent "+strconv.Quote(p.s[p2:p2End])+", which no earlier HL of this transaction set has")
}

// openLoop is a loop open at one level of the current HL loop.
type openLoop struct {
	// def indexes loopDefs: the loop's definition; 0 for an HL level the
	// guide does not name. An index rather than a pointer keeps the
	// indexer's per-segment writes free of garbage collector write
	// barriers.
	def  uint16
	inst int32
	// lastChild is the index in def.children of the loop last opened
	// directly inside this one. Loops follow the guide's order, so a
	// segment that could open several siblings opens the first of them
	// that is not before this one.
	lastChild int32
}

// segment is one segment's place in the input, in the segment index:
// eight bytes, its start and its loop. Its end is found when its text is
// read (Interchange.segmentAt): the first segment terminator after its
// start, or for an ISA the end the parse read, since an ISA is read by its
// fixed widths. Offsets are int32 to keep the slice compact; Parse refuses
// inputs of 2 GiB or more.
type segment struct {
	start int32 // the byte offset of the segment's first character
	loop  int32 // innermost loop instance; -1 outside every loop
}

// segments returns the segment index, building it (and the loops) on first
// use.
func (x *Interchange) segments() []segment {
	x.index.once.Do(x.buildIndex)
	return x.index.segs
}

// loopIndex returns the segment index and the loop instances.
func (x *Interchange) loopIndex() ([]segment, []loop) {
	x.index.once.Do(x.buildIndex)
	return x.index.segs, x.index.loops
}

// indexer builds the segment index and assigns the segments of each
// transaction set with a guide to its loops. Most segments open no loop
// and are not HL, LS or LE: they belong to the innermost open loop (cur),
// which the parse writes into their index entry without calling assign.
// A loop's last segment is recorded as the loop stops being the innermost
// (lastIn, when cur changes) and carried to its ancestors when its
// transaction set ends (endTx), so no pass over the index is needed.
type indexer struct {
	x     *Interchange
	def   *levels
	loops []loop
	segs  []segment
	// cur is the innermost open loop, which the next ordinary segment of
	// a guided transaction set belongs to (-1: none); curLast is the last
	// segment given to it so far.
	cur, curLast int32
	// txLoops is the index of the current transaction set's first loop.
	txLoops int32
	nopen   int32       // open loops, in open[:nopen]
	open    [8]openLoop // the HL level loop, then the loops nested in it
	ls      int32       // index in open of the loop whose LS is open; -1 none
	hl      hlCheck
	sep     byte
	is278   bool // the current transaction set is a 278
	// txs counts the transaction sets started; firstAt is the byte
	// offset of the first one's ST (sizeLoops).
	txs     int
	firstAt int
	// Backing arrays for the HL hierarchy of one transaction set.
	stackBuf [8]hlEntry
	seenBuf  [16]hlEntry
}

// newIndexer starts an index of about n segments.
func newIndexer(x *Interchange, n int) *indexer {
	ix := &indexer{}
	ix.init(x, n)
	return ix
}

func (ix *indexer) init(x *Interchange, n int) {
	ix.x, ix.segs = x, make([]segment, 0, n)
	ix.cur, ix.ls = -1, -1
	ix.hl.stack, ix.hl.seen, ix.hl.data = ix.stackBuf[:0], ix.seenBuf[:0], x.data
}

// setIndex keeps what ix built, once every loop has its extent.
func (x *Interchange) setIndex(ix *indexer) {
	ix.endTx()
	x.index.segs = ix.segs
	x.index.loops = ix.loops
	x.index.built.Store(true)
}

func (x *Interchange) buildIndex() {
	ix := newIndexer(x, x.nsegs)
	guided := false
	for k := range x.sets {
		if x.guide(k) != guideNone {
			guided = true
			break
		}
	}
	sc := x.scan()
	tx := 0 // the next transaction set
	var inTx bool
	for {
		start, end, ok := sc.next()
		if !ok {
			break
		}
		i := int32(len(ix.segs))
		ix.segs = append(ix.segs, segment{start: int32(start), loop: -1})
		if !guided {
			continue
		}
		if tx < len(x.sets) && int32(start) == x.sets[tx] {
			g := x.guide(tx)
			ix.def = txDefOf(g)
			inTx = ix.def != nil
			ix.startTx(g, start)
			tx++
			continue
		}
		if !inTx {
			continue
		}
		ix.sep = sc.d.Element
		id := packID(x.data[start:end], ix.sep)
		switch c := classOf(id); {
		case c == 0:
			ix.segs[i].loop = ix.cur
			ix.curLast = i
		case id == idSE || id == idISA || id == idGS || id == idGE || id == idIEA:
			// The set ends at its SE, or before the envelope segment that
			// shows its SE is missing (as the parse ends it).
			inTx = false
		case id == idInvalid || id == idST || id == idTA1:
		default:
			ix.segs[i].loop, _ = ix.assign(i, id, c, start, end)
		}
	}
	x.setIndex(ix)
}

// startTx starts a transaction set: the previous one's loops get their
// extents, and no loop is open.
func (ix *indexer) startTx(guide uint8, at int) {
	ix.endTx()
	switch ix.txs++; ix.txs {
	case 1:
		ix.firstAt = at
	case 2:
		ix.sizeLoops(at)
	}
	ix.is278 = guide == guide278
	if ix.loops == nil && guide != guideNone {
		// Loops open at about every other segment of the guides: enough
		// for a response, and for the first transaction set of a large
		// file (append grows it for a larger one), whose size the second
		// set sizes the list from (sizeLoops).
		ix.loops = make([]loop, 0, min(cap(ix.segs)/2+16, 64))
	}
	ix.nopen = 0
	ix.hl.start()
	ix.ls = -1
	ix.txLoops = int32(len(ix.loops))
}

// endTx ends the current transaction set's loops: the innermost open one
// gets its last segment, and each loop's last segment, from the last loop
// back (a loop's parent always comes before it), is carried to its parent.
func (ix *indexer) endTx() {
	ix.setCur(-1, -1)
	loops := ix.loops
	for l, lo := len(loops)-1, int(ix.txLoops); l >= lo && l < len(loops); l-- {
		// A parent of -1 (none) is out of range as a uint.
		if p := uint(loops[l].parent); p < uint(len(loops)) {
			loops[p].last = max(loops[p].last, loops[l].last) // no branch on the data
		}
	}
	ix.txLoops = int32(len(loops))
}

// setCur makes loop inst, whose last segment so far is i, the innermost:
// the loop it replaces keeps the last segment it was given.
func (ix *indexer) setCur(inst, i int32) {
	if c := ix.cur; c >= 0 {
		// curLast is never before the loop's last segment: that was the
		// loop's curLast when it last stopped being the innermost.
		ix.loops[c].last = ix.curLast
	}
	ix.cur, ix.curLast = inst, i
}

// assign returns the loop of segment i, whose packed identifier id has
// the class bits c (classOf: one the loops depend on) and whose text is
// data[start:end]; ok is false for an HL whose HL02 names no earlier HL.
// The caller writes the loop into the segment's index entry.
func (ix *indexer) assign(i int32, id uint32, c uint8, start, end int) (loop int32, ok bool) {
	switch id {
	case idHL:
		return ix.openHL(i, start, end)
	case idBHT:
		if ix.is278 {
			// X217: BHT02 11 is a response, 13 a request.
			if v, _ := field(ix.x.data[start:end], ix.sep, 2); v == "11" {
				ix.def = def278Res
			}
		}
		ix.curLast = i
		return ix.cur, true
	}
	if ix.nopen == 0 {
		return -1, true // the header, before the first HL
	}
	switch id {
	case idLS:
		for d := ix.nopen - 1; d >= 0; d-- {
			if kidsOf[ix.open[d].def].hasLS {
				ix.nopen = d + 1
				ix.ls = d
				break
			}
		}
	case idLE:
		if ix.ls >= 0 && ix.ls < ix.nopen {
			ix.nopen = ix.ls + 1
		}
		ix.ls = -1
	default:
		if c&clsOpens != 0 {
			_, op := classOp(id)
			return ix.opener(i, id, op, start, end), true
		}
	}
	inst := ix.open[ix.nopen-1].inst
	ix.setCur(inst, i)
	return inst, true
}

// openHL opens the HL level loop of the HL segment i, data[start:end],
// nested in the loop of the HL its HL02 names; ok is false when no earlier
// HL of the transaction set has that HL01.
func (ix *indexer) openHL(i int32, start, end int) (int32, bool) {
	data, sep := ix.x.data, ix.sep
	p1, p1End, p2, p2End := hlIDs(data, start, end, sep)
	di := ix.def.loopOf(packCodeAt(data, p2End+1, end, sep)) // HL03's loop
	// The usual HL, whose parent is the HL before it (or which has none),
	// when the lists it is added to have room, takes no call, so that
	// nothing is spilled around one; openHLSlow takes the rest.
	h := &ix.hl
	n, ns, nl := len(h.stack), len(h.seen), len(ix.loops)
	parent := int32(-1)
	if p2End > p2 {
		if n == 0 {
			return ix.openHLSlow(i, p1, p1End, p2, p2End, di)
		}
		top := h.stack[n-1]
		if !sameText(data, int(top.start), int(top.end), p2, p2End) {
			return ix.openHLSlow(i, p1, p1End, p2, p2End, di)
		}
		parent = top.inst
	} else {
		n = 0 // an HL without a parent empties the stack (hlCheck.parent)
	}
	if n >= cap(h.stack) || ns >= cap(h.seen) || nl >= cap(ix.loops) {
		return ix.openHLSlow(i, p1, p1End, p2, p2End, di)
	}
	inst := int32(nl)
	e := hlEntry{start: int32(p1), end: int32(p1End), inst: inst}
	h.stack = h.stack[:n+1]
	h.stack[n] = e
	h.seen = h.seen[:ns+1]
	h.seen[ns] = e
	ix.loops = ix.loops[:nl+1]
	ix.loops[nl] = loop{name: loopDefs[di].name, parent: parent, first: i, last: i}
	if c := uint(ix.cur); c < uint(len(ix.loops)) { // setCur
		ix.loops[c].last = ix.curLast
	}
	ix.cur, ix.curLast = inst, i
	ix.open[0] = openLoop{def: di, inst: inst}
	ix.nopen = 1
	ix.ls = -1
	return inst, true
}

// openHLSlow is openHL for any HL (HL01 at data[p1:p1End], HL02 at
// data[p2:p2End], its level's loop di): its parent searched for
// (hlCheck.parent) and the lists grown as needed.
func (ix *indexer) openHLSlow(i int32, p1, p1End, p2, p2End int, di uint16) (int32, bool) {
	inst := int32(len(ix.loops))
	parent, found := ix.hl.parent(hlEntry{start: int32(p1), end: int32(p1End), inst: inst}, p2, p2End)
	ix.loops = append(ix.loops, loop{name: loopDefs[di].name, parent: parent, first: i, last: i})
	ix.setCur(inst, i)
	ix.open[0] = openLoop{def: di, inst: inst}
	ix.nopen = 1
	ix.ls = -1
	return inst, found
}

// opener returns the loop of segment i, data[start:end], whose packed
// identifier id opens a loop in some guide (clsOpens): the loop it opens,
// nested in one of the open loops (innermost first), else the innermost
// open loop. Within an open loop it opens the first of its children, in
// the guide's order, not before the one last opened (else the first).
// Only the 278 has loops that qualifiers select; an open loop with such
// children is left to triggerQual. op is id's index in loopSegs
// (classOp): where no LS is open, the outcome of the search is looked up
// in openSteps.
func (ix *indexer) opener(i int32, id uint32, op uint8, start, end int) int32 {
	if ix.nopen == 0 {
		return -1 // the header, before the first HL
	}
	if ix.ls < 0 {
		// Without an open LS, what search finds depends only on the
		// innermost open loop's definition and the segment (openSteps).
		st := openSteps[ix.open[(ix.nopen-1)&(int32(len(ix.open))-1)].def][op&(maxOpeners-1)]
		if d := ix.nopen - 1 - int32(st.up); st.kind == stepOpen && d >= 0 && d+1 < int32(len(ix.open)) {
			// openIn, written out here.
			o := &ix.open[d]
			o.lastChild = int32(st.kid)
			k := &kidsOf[o.def].kids[st.kid&(maxKids-1)]
			inst := ix.newLoop(k.name, o.inst, i)
			ix.open[d+1] = openLoop{def: k.def, inst: inst}
			ix.nopen = d + 2
			return inst
		} else if st.kind == stepInner {
			inst := ix.open[(ix.nopen-1)&(int32(len(ix.open))-1)].inst
			ix.setCur(inst, i)
			return inst
		}
	}
	return ix.search(i, id, start, end)
}

// search is opener's search through the open loops, innermost first, for
// one with a child that segment i, data[start:end], opens.
func (ix *indexer) search(i int32, id uint32, start, end int) int32 {
	for d := ix.nopen - 1; d >= 0; d-- {
		o := &ix.open[d]
		dk := &kidsOf[o.def]
		if dk.qual {
			if d, k := ix.triggerQual(id, start, end); k != nil {
				return ix.openIn(d, k, i)
			}
			break
		}
		best := int32(-1)
		for ci := int32(0); ci < int32(dk.n); ci++ {
			if c := &dk.kids[ci]; c.segID != id || c.inLS && ix.ls != d {
				continue
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
			// openIn, written out here.
			o.lastChild = best
			k := &dk.kids[best]
			inst := ix.newLoop(k.name, o.inst, i)
			if d+1 < int32(len(ix.open)) { // always: the guides nest 4 deep
				ix.open[d+1] = openLoop{def: k.def, inst: inst}
				ix.nopen = d + 2
			}
			return inst
		}
	}
	inst := ix.open[ix.nopen-1].inst
	ix.setCur(inst, i)
	return inst
}

// openIn opens loop k, at segment i, in the open loop at level d, and
// returns it.
func (ix *indexer) openIn(d int32, k *kid, i int32) int32 {
	inst := ix.newLoop(k.name, ix.open[d].inst, i)
	if d+1 < int32(len(ix.open)) { // always: the guides nest 4 deep
		ix.open[d+1] = openLoop{def: k.def, inst: inst}
		ix.nopen = d + 2
	}
	return inst
}

// triggerQual finds the loop segment id (data[start:end]) opens, as opener
// does, where qualifiers (element 01) select loops: a first pass honours
// them; when it finds nothing, a second pass lets a
// qualified loop open on its segment alone, so that an unlisted code still
// starts the loop its segment starts.
func (ix *indexer) triggerQual(id uint32, start, end int) (level int32, k *kid) {
	var q string
	haveQ := false
	for pass := 0; pass < 2; pass++ {
		for d := ix.nopen - 1; d >= 0; d-- {
			o := &ix.open[d]
			dk := &kidsOf[o.def]
			best := int32(-1)
			for ci := int32(0); ci < int32(dk.n); ci++ {
				c := &dk.kids[ci]
				if c.segID != id || c.inLS && ix.ls != d {
					continue
				}
				if pass == 0 && c.qual {
					if !haveQ {
						q, _ = field(ix.x.data[start:end], ix.sep, 1)
						haveQ = true
					}
					if !member(q, loopDefs[c.def].quals) {
						continue
					}
				}
				if pass == 1 && !c.qual {
					continue // tried in the first pass
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
				return d, &dk.kids[best]
			}
		}
	}
	return -1, nil
}

// kid is a loop as the loop it nests in lists it, for trigger.
type kid struct {
	segID uint32 // the segment that opens it, packed
	def   uint16 // its index in loopDefs
	name  uint16 // its index in loopNames
	inLS  bool   // it opens only inside an LS/LE bracket
	qual  bool   // element 01 qualifiers select it (loopDef.quals)
}

// defKids lists the loops nested in one loop definition, in the guide's
// order, in one flat value (no pointers to follow per segment).
type defKids struct {
	n     uint8
	hasLS bool // some kid opens only inside LS/LE
	qual  bool // qualifiers select some kid
	kids  [maxKids]kid
}

// maxKids is the most loops a guide nests directly in one loop (the 278's
// 2000E has three).
const maxKids = 4

// kidsOf (tables.go) is indexed like loopDefs; entry 0 (no definition)
// has no kids. loopSegs (tables.go) are the segments that open a loop
// other than an HL level in any guide (NM1, EB, III, EQ, TRN, SVC); the
// rest never do.

// Classes of segment identifiers (classOf): what the parse and the loop
// assignment do with a segment besides indexing it.
const (
	// clsEnvelope: the envelope checks read it (ISA, IEA, TA1, GS, GE, ST,
	// SE, and identifiers that are not valid).
	clsEnvelope = 1 << iota
	// clsLoop: loop assignment reads it (HL, BHT, LS, LE and the segments
	// that open loops).
	clsLoop
	// clsOpens: it opens a loop in some guide (loopSegs).
	clsOpens
)

// idSlot is one entry of the identifier class table.
type idSlot struct {
	id    uint32
	class uint8
	// op is the identifier's index in loopSegs when it opens loops
	// (clsOpens), for openSteps.
	op uint8
}

// idTable holds the identifiers that have a class, each in the slot its
// packed value times idMul selects (the top seven bits of the 32-bit
// product): a perfect hash, so that classifying a segment is a
// multiplication, a load and a comparison. idMul was found by trying odd
// multipliers from 0x9E3779B1 up; buildIDTable (guides.go) panics if it no
// longer separates the identifiers (TestTables sees it first), naming the
// next multiplier that does: set idMul to it. idTable is in tables.go.
const idMul = 0x9E3779C1

// classOf returns the class bits of a packed segment identifier; 0 for a
// segment that neither the envelope checks nor the loops look into.
func classOf(id uint32) uint8 {
	e := &idTable[(id*idMul)>>25]
	if e.id == id {
		return e.class
	}
	return 0
}

// classOp returns the class bits of a packed segment identifier, as
// classOf does, and for one that opens loops its index in loopSegs.
func classOp(id uint32) (class, op uint8) {
	e := &idTable[(id*idMul)>>25]
	if e.id == id {
		return e.class, e.op
	}
	return 0, 0
}

// openStep is what a segment that opens loops (clsOpens) does when no LS
// is open, by the innermost open loop's definition: the open loops are
// always that definition and its ancestors in its guide (a loop opens
// nested in an open one, and an HL empties the list), so the search
// opener makes through them is made once, by the generator of tables.go.
type openStep struct {
	kind uint8 // stepInner, stepOpen or stepSearch
	up   uint8 // stepOpen: the level it opens in, counted out from the innermost
	kid  uint8 // stepOpen: the loop it opens, in kidsOf of that level's definition
}

const (
	// stepInner: no open loop has a child it opens; the segment belongs
	// to the innermost.
	stepInner = iota
	// stepOpen: it opens kid in the open loop up levels out.
	stepOpen
	// stepSearch: qualifiers, or siblings that share the segment, decide
	// (opener).
	stepSearch
)

// maxOpeners bounds len(loopSegs).
const maxOpeners = 8

// openSteps (tables.go, made by buildOpenSteps) is indexed like loopDefs,
// then by an identifier's index in loopSegs.

func member(s string, set []string) bool {
	for _, v := range set {
		if v == s {
			return true
		}
	}
	return false
}

// sizeLoops sizes the loop list from the first transaction set, when the
// second starts at byte offset at: most files repeat sets of about one
// size, and the guides open loops at about every other segment, which
// for some (the 271) is too few to presize by.
func (ix *indexer) sizeLoops(at int) {
	n := len(ix.loops)
	if n == 0 || at <= ix.firstAt {
		return
	}
	want := n * ((len(ix.x.data)-ix.firstAt)/(at-ix.firstAt) + 1)
	want += want/16 + 16
	if want > cap(ix.loops) {
		grown := makeUncleared[loop](want)[:n]
		copy(grown, ix.loops)
		ix.loops = grown
	}
}

func (ix *indexer) newLoop(name uint16, parent, first int32) int32 {
	inst := int32(len(ix.loops))
	ix.loops = append(ix.loops, loop{name: name, parent: parent, first: first, last: first})
	ix.setCur(inst, first)
	return inst
}
