package x12

import (
	"sort"
	"strconv"
)

// isaWidths are the fixed widths of ISA01 to ISA16.
var isaWidths = [16]int{2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1}

// readISA reads the delimiters of the ISA segment at s[at:] and returns
// the index of its terminator, and whether ISA11 (a repetition separator)
// equals ISA16.
func readISA(s string, at int) (d Delimiters, term int, same bool, err error) {
	if len(s) < at+4 {
		return d, 0, false, syntaxError(s, at, "the input ends inside the ISA segment")
	}
	sep := s[at+3]
	d.Element = sep
	pos := at + 3 // the separator before the next element
	var elems [16]string
	for i := range 16 {
		if pos >= len(s) || s[pos] != sep {
			return d, 0, false, syntaxError(s, at, "the input ends inside the ISA segment")
		}
		if i == 15 {
			// ISA16 is one character; the segment terminator follows it.
			if pos+2 >= len(s) {
				return d, 0, false, syntaxError(s, at, "the input ends inside the ISA segment (an ISA is 106 characters, with ISA16 and the segment terminator last)")
			}
			elems[15] = s[pos+1 : pos+2]
			pos += 2
			break
		}
		end := pos + 1
		limit := min(len(s), end+isaWidths[i]+64)
		for end < limit && s[end] != sep {
			end++
		}
		if end >= len(s) {
			return d, 0, false, syntaxError(s, pos+1, "the input ends inside ISA"+two(i+1)+" (an ISA is the fixed 106 characters)")
		}
		if end >= limit {
			return d, 0, false, syntaxError(s, pos+1, "ISA"+two(i+1)+" does not end: the ISA has fewer than 16 elements (an ISA is the fixed 106 characters)")
		}
		if w := end - pos - 1; w != isaWidths[i] {
			return d, 0, false, syntaxError(s, pos+1, "ISA"+two(i+1)+" is "+strconv.Itoa(w)+" characters, not "+strconv.Itoa(isaWidths[i])+": an ISA is the fixed 106 characters, each element padded to its width")
		}
		elems[i] = s[pos+1 : end]
		pos = end
	}
	d.Component = elems[15][0]
	d.Segment = s[pos]
	if d.Element == d.Component || d.Element == d.Segment || d.Component == d.Segment {
		return d, 0, false, syntaxError(s, at, "the element separator "+strconv.QuoteRune(rune(d.Element))+", component separator "+strconv.QuoteRune(rune(d.Component))+" (ISA16) and segment terminator "+strconv.QuoteRune(rune(d.Segment))+" must differ")
	}
	rep := elems[10][0]
	if elems[11] >= "00402" && !isAlnum(rep) && rep != ' ' && rep != d.Element && rep != d.Segment {
		d.Repetition = rep
		same = rep == d.Component
	}
	return d, pos, same, nil
}

// two writes n with at least two digits, as element positions are.
func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// parser holds the state of one Parse: the envelopes open at the segment
// being read, and the HL hierarchy of the open transaction set.
type parser struct {
	x *Interchange
	s string
	d Delimiters // those of the interchange being read

	inISA, inGS, inST bool
	isa, gs, st       int // index of the open ISA, GS and ST segments
	isaText, gsText   string
	groups            int    // functional groups in the open interchange
	sets              int    // transaction sets in the open group
	version           string // GS08 of the open group
	control           string // ST02 of the open transaction set
	guided            bool   // the open transaction set has a guide (guideFor)
	hl                hlTree
	lastStart         int // the last segment read
	// eager says the input is small enough (eagerLimit) to get its
	// segment index and loops in the parse's pass, through ix.
	eager bool
	ix    *indexer
}

// eagerLimit is the size up to which Parse builds the segment index and
// the loops in its one pass; a larger input builds them on first use.
const eagerLimit = 1 << 20

// segment runs the envelope checks for segment i, s[start:end], and
// returns its identifier.
func (p *parser) segment(i, start, end int) (id string) {
	p.lastStart = start
	t := p.s[start:end]
	id = segmentID(t, p.d.Element)
	if !validID(id) {
		p.find(i, start, end, strconv.Quote(preview(id))+" is not a segment identifier (2 or 3 capital letters and digits, a letter first)")
		return id
	}
	switch id {
	case "ISA":
		p.closeOpen(i, start, end, true, true, true)
		p.inISA, p.isa, p.isaText, p.groups = true, i, t, 0
	case "GS":
		if !p.inISA {
			p.find(i, start, end, "GS outside an interchange: no ISA is open")
		}
		p.closeOpen(i, start, end, true, true, false)
		p.inGS, p.gs, p.gsText, p.sets = true, i, t, 0
		p.groups++
		p.version, _ = field(t, p.d.Element, 8)
		p.x.groups = append(p.x.groups, int32(start))
	case "ST":
		if !p.inGS {
			p.find(i, start, end, "ST outside a functional group: no GS is open")
		}
		if p.inST {
			p.closeST(i, start, end, false)
		}
		p.openST(i, start, t)
	case "SE":
		if !p.inST {
			p.find(i, start, end, "SE without an open ST")
			return id
		}
		p.closeST(i, start, end, true)
	case "GE":
		p.closeOpen(i, start, end, true, false, false)
		if !p.inGS {
			p.find(i, start, end, "GE without an open GS")
			return id
		}
		p.closeGS(i, start, end, true)
	case "IEA":
		p.closeOpen(i, start, end, true, true, false)
		if !p.inISA {
			p.find(i, start, end, "IEA without an open ISA")
			return id
		}
		p.closeISA(i, start, end, true)
	case "TA1":
		// Interchange acknowledgments sit between ISA and GS.
		if !p.inISA {
			p.find(i, start, end, "TA1 outside an interchange")
		}
	default:
		if !p.inST {
			p.find(i, start, end, id+" outside a transaction set: no ST is open")
			return id
		}
		if id == "HL" && p.guided {
			hl01, _ := field(t, p.d.Element, 1)
			hl02, _ := field(t, p.d.Element, 2)
			if _, found := p.hl.add(hl01, hl02, -1); !found {
				p.find(i, start, end, "HL02 names parent "+strconv.Quote(hl02)+", which no earlier HL of this transaction set has")
			}
		}
	}
	return id
}

// openST opens the transaction set of the ST t, segment i at byte offset
// start.
func (p *parser) openST(i, start int, t string) {
	p.inST, p.st = true, i
	p.sets++
	code, _ := field(t, p.d.Element, 1)
	p.control, _ = field(t, p.d.Element, 2)
	st03, _ := field(t, p.d.Element, 3)
	p.guided = guideFor(code, p.version, st03) != guideNone
	p.hl.reset()
	if len(p.x.sets) == 1 {
		// Most files repeat transaction sets of about one size: room for
		// as many as would fit, so that a large file's list is allocated
		// once rather than grown step by step.
		if n := len(p.s) / max(start-int(p.x.sets[0]), 1); n > cap(p.x.sets) {
			p.x.sets = append(make([]int32, 0, min(n+16, len(p.s)/8+1)), p.x.sets...)
		}
	}
	p.x.sets = append(p.x.sets, int32(start))
}

// closeOpen closes, as missing their trailers, the open transaction set,
// group and interchange that segment i ends (as selected).
func (p *parser) closeOpen(i, start, end int, st, gs, isa bool) {
	if st && p.inST {
		p.closeST(i, start, end, false)
	}
	if gs && p.inGS {
		p.closeGS(i, start, end, false)
	}
	if isa && p.inISA {
		p.closeISA(i, start, end, false)
	}
}

// closeST ends the open transaction set at segment i: its SE when found is
// true, else the segment that shows the SE is missing.
func (p *parser) closeST(i, start, end int, found bool) {
	p.inST = false
	if !found {
		p.find(i, start, end, "transaction set "+strconv.Quote(p.control)+" (ST at segment "+strconv.Itoa(p.st+1)+") has no SE")
		return
	}
	count := i - p.st + 1 // every segment from ST to SE
	t := p.s[start:end]
	if se01, _ := field(t, p.d.Element, 1); !countIs(se01, count) {
		p.find(i, start, end, "SE01 counts "+strconv.Quote(se01)+" segments, but transaction set "+strconv.Quote(p.control)+" has "+strconv.Itoa(count)+" from ST to SE")
	}
	if se02, _ := field(t, p.d.Element, 2); se02 != p.control {
		p.find(i, start, end, "SE02 "+strconv.Quote(se02)+" does not match ST02 "+strconv.Quote(p.control))
	}
}

func (p *parser) closeGS(i, start, end int, found bool) {
	p.inGS = false
	gs06, _ := field(p.gsText, p.d.Element, 6)
	if !found {
		p.find(i, start, end, "functional group "+strconv.Quote(gs06)+" (GS at segment "+strconv.Itoa(p.gs+1)+") has no GE")
		return
	}
	t := p.s[start:end]
	if ge01, _ := field(t, p.d.Element, 1); !countIs(ge01, p.sets) {
		p.find(i, start, end, "GE01 counts "+strconv.Quote(ge01)+" transaction sets, but group "+strconv.Quote(gs06)+" has "+strconv.Itoa(p.sets))
	}
	if ge02, _ := field(t, p.d.Element, 2); !sameNumber(ge02, gs06) {
		p.find(i, start, end, "GE02 "+strconv.Quote(ge02)+" does not match GS06 "+strconv.Quote(gs06))
	}
}

func (p *parser) closeISA(i, start, end int, found bool) {
	p.inISA = false
	isa13, _ := field(p.isaText, p.d.Element, 13)
	if !found {
		p.find(i, start, end, "interchange "+strconv.Quote(isa13)+" (ISA at segment "+strconv.Itoa(p.isa+1)+") has no IEA")
		return
	}
	t := p.s[start:end]
	if iea01, _ := field(t, p.d.Element, 1); !countIs(iea01, p.groups) {
		p.find(i, start, end, "IEA01 counts "+strconv.Quote(iea01)+" functional groups, but interchange "+strconv.Quote(isa13)+" has "+strconv.Itoa(p.groups))
	}
	if iea02, _ := field(t, p.d.Element, 2); !sameNumber(iea02, isa13) {
		p.find(i, start, end, "IEA02 "+strconv.Quote(iea02)+" does not match ISA13 "+strconv.Quote(isa13))
	}
}

// finish reports the trailers the input ends without.
func (p *parser) finish() {
	last := p.x.nsegs - 1
	t, d := p.x.segmentAt(int32(p.lastStart))
	lastID := segmentID(t, d.Element)
	if p.inST {
		p.inST = false
		p.findAt(len(p.s), last, lastID, "the input ends before the SE of transaction set "+strconv.Quote(p.control)+" (ST at segment "+strconv.Itoa(p.st+1)+")")
	}
	if p.inGS {
		gs06, _ := field(p.gsText, p.d.Element, 6)
		p.findAt(len(p.s), last, lastID, "the input ends before the GE of functional group "+strconv.Quote(gs06)+" (GS at segment "+strconv.Itoa(p.gs+1)+")")
	}
	if p.inISA {
		isa13, _ := field(p.isaText, p.d.Element, 13)
		p.findAt(len(p.s), last, lastID, "the input ends before the IEA of interchange "+strconv.Quote(isa13)+" (ISA at segment "+strconv.Itoa(p.isa+1)+")")
	}
}

// countIs reports whether the count element s holds n.
func countIs(s string, n int) bool {
	v, err := strconv.Atoi(s)
	return err == nil && v == n
}

// sameNumber compares two numeric control numbers (ISA13, GS06), ignoring
// leading zeros; text that is not a number compares exactly.
func sameNumber(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x == y
}

// The parse keeps four bytes per transaction set, the offset of its ST
// segment (and four per functional group, the offset of its GS), so that a
// file of a hundred thousand sets costs half a megabyte. The rest is read
// from the ST segment when asked for.

// setInfo returns ST01, ST02 and the version (ST03, or the group's GS08)
// of transaction set k, and its guide.
func (x *Interchange) setInfo(k int) (code, control, version string, guide uint8) {
	t, d := x.segmentAt(x.sets[k])
	code, _ = field(t, d.Element, 1)
	control, _ = field(t, d.Element, 2)
	st03, _ := field(t, d.Element, 3)
	gs08 := ""
	if st03 == "" {
		gs08 = x.gs08(x.sets[k])
	}
	version = st03
	if version == "" {
		version = gs08
	}
	return code, control, version, guideFor(code, gs08, st03)
}

// gs08 returns GS08 of the last GS before byte offset off: the version a
// transaction set without ST03 takes ("" when no GS comes before it).
func (x *Interchange) gs08(off int32) string {
	k := sort.Search(len(x.groups), func(k int) bool { return x.groups[k] >= off })
	if k == 0 {
		return ""
	}
	t, d := x.segmentAt(x.groups[k-1])
	v, _ := field(t, d.Element, 8)
	return v
}

// guide returns the guide of transaction set k.
func (x *Interchange) guide(k int) uint8 {
	_, _, _, g := x.setInfo(k)
	return g
}

// transactions lists the transaction sets, with the indexes of their
// segments found by a scan that ends each set where the parse did: at its
// SE, before the ISA, GS, GE, IEA or ST that shows the SE is missing, or at
// the last segment.
func (x *Interchange) transactions() []Transaction {
	if len(x.sets) == 0 {
		return nil
	}
	list := make([]Transaction, len(x.sets))
	for k := range x.sets {
		list[k].Code, list[k].Control, list[k].Version, _ = x.setInfo(k)
	}
	sc := x.scan()
	i, k, open := -1, 0, -1
	for {
		start, end, ok := sc.next()
		if !ok {
			break
		}
		i++
		if k < len(x.sets) && start == int(x.sets[k]) {
			if open >= 0 {
				list[open].End = i - 1
			}
			list[k].Start, open = i, k
			k++
			continue
		}
		if open < 0 {
			continue
		}
		switch segmentID(x.data[start:end], sc.d.Element) {
		case "SE":
			list[open].End, open = i, -1
		case "ISA", "GS", "GE", "IEA":
			list[open].End, open = i-1, -1
		}
	}
	if open >= 0 {
		list[open].End = i
	}
	return list
}
