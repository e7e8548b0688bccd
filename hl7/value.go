package hl7

import (
	"bytes"
	"iter"
	"slices"
)

// Levels of the node a Value holds, which decide what counts as structure
// inside it.
const (
	levelNone      uint8 = iota // nothing selected
	levelSegment                // a whole segment
	levelField                  // a whole field, repetitions and all
	levelRep                    // a field repetition
	levelComponent              // a component
	levelSub                    // a subcomponent
	levelAtomic                 // MSH.1 or MSH.2 (and BHS/FHS): never split or unescaped
)

// Value is the node a path selected: a view of the message's bytes and the
// delimiters in force. The zero Value is absent.
type Value struct {
	raw   []byte
	d     Delimiters
	level uint8
}

// Exists reports whether the path selected something. A position that
// exists but is empty exists (and reads as "").
func (v Value) Exists() bool { return v.level != levelNone }

// Bytes returns the node as encoded in the message (a view, not a copy);
// nil when it does not exist.
func (v Value) Bytes() []byte { return v.raw }

// IsNull reports whether the node is HL7's explicit null, the two
// characters "" (which String returns as written).
func (v Value) IsNull() bool { return len(v.raw) == 2 && v.raw[0] == '"' && v.raw[1] == '"' }

// IsLeaf reports whether the node has no structure below it: no component
// separator in a repetition, no subcomponent separator in a component. A
// leaf reads unescaped; a node with structure reads as encoded.
func (v Value) IsLeaf() bool {
	switch v.level {
	case levelField:
		return !has(v.raw, v.d.Repetition) && !has(v.raw, v.d.Component) && !has(v.raw, v.d.Subcomponent)
	case levelRep:
		return !has(v.raw, v.d.Component) && !has(v.raw, v.d.Subcomponent)
	case levelComponent:
		return !has(v.raw, v.d.Subcomponent)
	case levelSub:
		return true
	}
	return false
}

// String returns the node's text: a leaf with its escape sequences decoded
// (\F\ \S\ \T\ \R\ \E\, \P\ when a truncation character is declared, \Xhh..\
// and \.br\ as a line feed; any other sequence, and an unterminated one,
// stays as written), a node with structure as encoded. An absent node
// reads as "" (use Exists to tell).
func (v Value) String() string {
	if v.IsLeaf() && has(v.raw, v.d.Escape) {
		return string(unescape(make([]byte, 0, len(v.raw)), v.raw, v.d))
	}
	return string(v.raw)
}

// AppendText appends the node's text, as String returns it, to dst; it
// does not allocate when dst has room.
func (v Value) AppendText(dst []byte) []byte {
	if v.IsLeaf() && has(v.raw, v.d.Escape) {
		return unescape(dst, v.raw, v.d)
	}
	return append(dst, v.raw...)
}

// has reports whether delimiter c (0 when absent) occurs in b.
func has(b []byte, c byte) bool { return c != 0 && bytes.IndexByte(b, c) >= 0 }

// unescape appends raw to dst with its escape sequences decoded in one
// pass: a decoded character is never read again as the start of a sequence.
func unescape(dst, raw []byte, d Delimiters) []byte {
	e := d.Escape
	for {
		i := bytes.IndexByte(raw, e)
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		j := bytes.IndexByte(raw[1:], e)
		if j < 0 {
			return append(dst, raw...) // unterminated: as written
		}
		seq, whole := raw[1:1+j], raw[:j+2]
		raw = raw[j+2:]
		if len(seq) == 1 {
			var c byte
			switch seq[0] {
			case 'F':
				c = d.Field
			case 'S':
				c = d.Component
			case 'T':
				c = d.Subcomponent
			case 'R':
				c = d.Repetition
			case 'E':
				c = d.Escape
			case 'P':
				c = d.Truncation
			}
			if c != 0 {
				dst = append(dst, c)
			} else {
				dst = append(dst, whole...)
			}
			continue
		}
		switch {
		case len(seq) == 0:
			dst = append(dst, whole...)
		case string(seq) == ".br":
			dst = append(dst, '\n')
		case seq[0] == 'X' && len(seq) > 1 && len(seq)%2 == 1 && isHex(seq[1:]):
			for k := 1; k < len(seq); k += 2 {
				dst = append(dst, unhex(seq[k])<<4|unhex(seq[k+1]))
			}
		default:
			dst = append(dst, whole...)
		}
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// nth returns the n'th (1-based) part of b split at sep. With sep absent
// (0) b is one part. ok is false when there are fewer than n parts.
func nth(b []byte, sep byte, n int) ([]byte, bool) {
	if sep == 0 {
		return b, n == 1
	}
	for ; n > 1; n-- {
		i := bytes.IndexByte(b, sep)
		if i < 0 {
			return nil, false
		}
		b = b[i+1:]
	}
	if i := bytes.IndexByte(b, sep); i >= 0 {
		b = b[:i]
	}
	return b, true
}

// header reports whether a segment counts MSH-style: the field separator
// is field 1 and the encoding characters field 2.
func header(kind uint8) bool { return kind == kindMSH || kind == kindBHS || kind == kindFHS }

// indexThreshold is the number of segments above which a batch builds its
// segment index on the first path read; below it a scan is faster.
const indexThreshold = 128

// idCodes is the number of possible segment IDs (three of 0-9A-Z).
const idCodes = 36 * 36 * 36

// idCode maps a packed segment ID of upper-case letters and digits to
// 0..idCodes-1.
func idCode(id uint32) int {
	c := func(b byte) int {
		if b <= '9' {
			return int(b - '0')
		}
		return int(b-'A') + 10
	}
	return (c(byte(id>>16))*36+c(byte(id>>8)))*36 + c(byte(id))
}

// segIndex lists the batch's segment positions grouped by ID, in input
// order within each ID: the positions of the segments whose ID has code k
// are pos[start[k]:start[k+1]]. It is built once, in linear time.
type segIndex struct {
	start []int32
	pos   []int32
}

func (b *Batch) index() *segIndex {
	b.indexOnce.Do(func() {
		x := &segIndex{start: make([]int32, idCodes+1), pos: make([]int32, len(b.segs))}
		for i := range b.segs {
			x.start[idCode(b.segs[i].id)+1]++
		}
		for k := 1; k <= idCodes; k++ {
			x.start[k] += x.start[k-1]
		}
		fill := make([]int32, idCodes)
		for i := range b.segs {
			k := idCode(b.segs[i].id)
			x.pos[x.start[k]+fill[k]] = int32(i)
			fill[k]++
		}
		b.idx = x
	})
	return b.idx
}

// query calls yield with every value p selects among the batch's segments
// lo..hi-1, in order, until yield returns false.
func (b *Batch) query(lo, hi int, p *Path, yield func(Value) bool) {
	if !p.valid() {
		return
	}
	id := packID(p.Segment[0], p.Segment[1], p.Segment[2])
	want := p.Occurrence
	if want == 0 {
		want = 1
	}
	if len(b.segs) > indexThreshold && validIDString(p.Segment) {
		b.queryIndexed(lo, hi, id, want, p, yield)
		return
	}
	b.queryScan(lo, hi, id, want, p, yield)
}

// queryIndexed finds the segments through the index: a binary search for
// the first one at or after lo, then the occurrence wanted.
func (b *Batch) queryIndexed(lo, hi int, id uint32, want int, p *Path, yield func(Value) bool) {
	segs, x := b.segs, b.index()
	k := idCode(id)
	list := x.pos[x.start[k]:x.start[k+1]]
	j, _ := slices.BinarySearch(list, int32(lo))
	if want != Any {
		j += want - 1
		if j < len(list) && int(list[j]) < hi {
			sg := &segs[list[j]]
			selectIn(b.data[sg.start:sg.end], sg.d, header(sg.kind), p, yield)
		}
		return
	}
	for ; j < len(list) && int(list[j]) < hi; j++ {
		sg := &segs[list[j]]
		if !selectIn(b.data[sg.start:sg.end], sg.d, header(sg.kind), p, yield) {
			return
		}
	}
}

// queryScan finds the segments by scanning lo..hi-1.
func (b *Batch) queryScan(lo, hi int, id uint32, want int, p *Path, yield func(Value) bool) {
	segs := b.segs
	occ := 0
	for i := lo; i < hi; i++ {
		sg := &segs[i]
		if sg.id != id {
			continue
		}
		occ++
		if want != Any && occ != want {
			continue
		}
		if !selectIn(b.data[sg.start:sg.end], sg.d, header(sg.kind), p, yield) || want != Any {
			return
		}
	}
}

// selectIn yields the values p selects in one segment; it returns false
// when yield asked to stop.
func selectIn(raw []byte, d Delimiters, hdr bool, p *Path, yield func(Value) bool) bool {
	if p.Field == 0 {
		return yield(Value{raw: raw, d: d, level: levelSegment})
	}
	var field []byte
	if hdr && p.Field <= 2 {
		// MSH.1 is the field separator and MSH.2 the encoding characters:
		// neither is split nor unescaped, and only 1s may follow.
		if p.Field == 1 {
			field = raw[3:4]
		} else {
			field, _ = nth(raw[4:], d.Field, 1)
		}
		if p.Repetition > 1 || p.Component > 1 || p.Subcomponent > 1 {
			return true
		}
		return yield(Value{raw: field, d: d, level: levelAtomic})
	}
	idx := p.Field
	if hdr {
		idx-- // MSH.3 is the third part when split at the field separator
	}
	field, ok := nth(raw[3:], d.Field, idx+1)
	if !ok {
		return true
	}
	if p.Repetition != Any {
		rep, ok := nth(field, d.Repetition, max(p.Repetition, 1))
		if !ok {
			return true
		}
		return selectRep(rep, d, p, yield)
	}
	for {
		rep := field
		i := -1
		if d.Repetition != 0 {
			i = bytes.IndexByte(field, d.Repetition)
		}
		if i >= 0 {
			rep, field = field[:i], field[i+1:]
		}
		if !selectRep(rep, d, p, yield) {
			return false
		}
		if i < 0 {
			return true
		}
	}
}

func selectRep(rep []byte, d Delimiters, p *Path, yield func(Value) bool) bool {
	if p.Component == 0 {
		return yield(Value{raw: rep, d: d, level: levelRep})
	}
	comp, ok := nth(rep, d.Component, p.Component)
	if !ok {
		return true
	}
	if p.Subcomponent == 0 {
		return yield(Value{raw: comp, d: d, level: levelComponent})
	}
	sub, ok := nth(comp, d.Subcomponent, p.Subcomponent)
	if !ok {
		return true
	}
	return yield(Value{raw: sub, d: d, level: levelSub})
}

// Get returns the first value p selects in the message (for a path
// without *, the only one); the zero Value when it selects nothing.
func (m *Message) Get(p Path) Value {
	var out Value
	m.query(&p, func(v Value) bool { out = v; return false })
	return out
}

// GetAll appends every value p selects in the message to dst, in order.
func (m *Message) GetAll(p Path, dst []Value) []Value {
	m.query(&p, func(v Value) bool { dst = append(dst, v); return true })
	return dst
}

// Values iterates over every value p selects in the message, in order.
func (m *Message) Values(p Path) iter.Seq[Value] {
	return func(yield func(Value) bool) { m.query(&p, yield) }
}

// Texts returns the text of every value p selects in the message, as
// check.TextField takes them.
func (m *Message) Texts(p Path) []string {
	var out []string
	m.query(&p, func(v Value) bool { out = append(out, v.String()); return true })
	return out
}

func (m *Message) query(p *Path, yield func(Value) bool) {
	if m.batch == nil {
		return
	}
	m.batch.query(m.first, m.first+len(m.segs), p, yield)
}

// Get returns the first value p selects in the batch, reading it as one
// sequence of segments (so MSH[2].10 is the second message's control id).
// A batch of many segments indexes them by ID on its first read, so that
// each read after it takes constant time, not a scan from the start.
func (b *Batch) Get(p Path) Value {
	var out Value
	b.query(0, len(b.segs), &p, func(v Value) bool { out = v; return false })
	return out
}

// GetAll appends every value p selects in the batch to dst, in order.
func (b *Batch) GetAll(p Path, dst []Value) []Value {
	b.query(0, len(b.segs), &p, func(v Value) bool { dst = append(dst, v); return true })
	return dst
}

// Values iterates over every value p selects in the batch, in order.
func (b *Batch) Values(p Path) iter.Seq[Value] {
	return func(yield func(Value) bool) { b.query(0, len(b.segs), &p, yield) }
}

// Texts returns the text of every value p selects in the batch.
func (b *Batch) Texts(p Path) []string {
	var out []string
	b.query(0, len(b.segs), &p, func(v Value) bool { out = append(out, v.String()); return true })
	return out
}

var pathControlID = Path{Segment: "MSH", Field: 10}

// Fields iterates over the segment's fields with their numbers as a path
// numbers them (MSH.1 is the field separator and MSH.2 the encoding
// characters; in other segments field 1 follows the ID). Each field is
// read whole, repetitions and all: a leaf reads unescaped, a field with
// structure as encoded; Repetitions, Components and Subcomponents go
// deeper. Reading every field this way is one pass over the segment.
func (s Segment) Fields() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) { s.fields(yield) }
}

func (s Segment) fields(yield func(int, Value) bool) {
	if len(s.raw) < 4 {
		return
	}
	rest := s.raw[4:]
	n := 1
	if s.hdr {
		if !yield(1, Value{raw: s.raw[3:4], d: s.d, level: levelAtomic}) {
			return
		}
		enc, _ := nth(rest, s.d.Field, 1)
		if !yield(2, Value{raw: enc, d: s.d, level: levelAtomic}) {
			return
		}
		if len(enc) == len(rest) {
			return
		}
		rest, n = rest[len(enc)+1:], 3
	}
	for ; ; n++ {
		i := bytes.IndexByte(rest, s.d.Field)
		if i < 0 {
			yield(n, Value{raw: rest, d: s.d, level: levelField})
			return
		}
		if !yield(n, Value{raw: rest[:i], d: s.d, level: levelField}) {
			return
		}
		rest = rest[i+1:]
	}
}

// Repetitions iterates over the repetitions of a field that Segment.Fields
// yielded; any other node is its own only repetition.
func (v Value) Repetitions() iter.Seq[Value] {
	return func(yield func(Value) bool) { v.split(levelField, yield) }
}

// Components iterates over the components of a repetition (of a field
// from Segment.Fields, its first repetition's); a component, subcomponent
// or header field is its own only component.
func (v Value) Components() iter.Seq[Value] {
	return func(yield func(Value) bool) { v.split(levelRep, yield) }
}

// Subcomponents iterates over the subcomponents of a component; any other
// node is its own only subcomponent.
func (v Value) Subcomponents() iter.Seq[Value] {
	return func(yield func(Value) bool) { v.split(levelComponent, yield) }
}

// children says how to split v into the nodes of the level below parent:
// the bytes, the separator and the level of the parts. A node that is not
// at parent level is its own only part (sep 0); an absent one has none
// (level levelNone).
func (v Value) children(parent uint8) (raw []byte, d Delimiters, sep byte, level uint8) {
	raw, d = v.raw, v.d
	switch {
	case v.level == levelNone:
		return nil, d, 0, levelNone
	case parent == levelField && v.level == levelField:
		return raw, d, d.Repetition, levelRep
	case parent == levelRep && v.level == levelField:
		raw, _ = nth(raw, d.Repetition, 1)
		return raw, d, d.Component, levelComponent
	case parent == levelRep && v.level == levelRep:
		return raw, d, d.Component, levelComponent
	case parent == levelComponent && v.level == levelComponent:
		return raw, d, d.Subcomponent, levelSub
	}
	return raw, d, 0, v.level
}

// split yields the nodes of the level below parent in v (see children).
func (v Value) split(parent uint8, yield func(Value) bool) {
	raw, d, sep, level := v.children(parent)
	if level == levelNone {
		return
	}
	for {
		i := -1
		if sep != 0 {
			i = bytes.IndexByte(raw, sep)
		}
		if i < 0 {
			yield(Value{raw: raw, d: d, level: level})
			return
		}
		if !yield(Value{raw: raw[:i], d: d, level: level}) {
			return
		}
		raw = raw[i+1:]
	}
}

// validIDString is validID for a path's segment ID.
func validIDString(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
