package x12

import (
	"strings"
)

// segmentID returns the identifier of segment text t: the text before the
// first element separator sep (all of t when it has none).
func segmentID(t string, sep byte) string {
	if i := strings.IndexByte(t, sep); i >= 0 {
		return t[:i]
	}
	return t
}

// validID reports whether id is a segment identifier: 2 or 3 capital
// letters and digits, a letter first.
func validID(id string) bool {
	if len(id) < 2 || len(id) > 3 || id[0] < 'A' || id[0] > 'Z' {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !(c >= 'A' && c <= 'Z' || isDigit(c)) {
			return false
		}
	}
	return true
}

// field returns element n (1-based) of segment text t, and whether the
// segment has it.
func field(t string, sep byte, n int) (string, bool) {
	for range n {
		i := strings.IndexByte(t, sep)
		if i < 0 {
			return "", false
		}
		t = t[i+1:]
	}
	if i := strings.IndexByte(t, sep); i >= 0 {
		return t[:i], true
	}
	return t, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isSpace(c byte) bool { return c == '\r' || c == '\n' || c == ' ' || c == '\t' }

// scanner walks the segments of an interchange's input as the parse found
// them: white space after a terminator skipped, an empty segment (a
// doubled terminator) skipped, each ISA the parse could read ended by its
// own terminator and switching the delimiters.
type scanner struct {
	x    *Interchange
	pos  int
	mark int // the next ISA mark
	d    Delimiters
}

func (x *Interchange) scan() scanner { return scanner{x: x, pos: int(x.marks[0].start)} }

// next returns the bounds of the next segment's text, without its
// terminator; ok is false at the end of the input.
func (sc *scanner) next() (start, end int, ok bool) {
	s := sc.x.data
	for {
		for sc.pos < len(s) && isSpace(s[sc.pos]) && s[sc.pos] != sc.d.Segment {
			sc.pos++
		}
		if sc.pos >= len(s) {
			return 0, 0, false
		}
		start = sc.pos
		if marks := sc.x.marks; sc.mark < len(marks) && int(marks[sc.mark].start) == start {
			sc.d = sc.x.delims[sc.mark]
			end = int(marks[sc.mark].term)
			sc.mark++
		} else if end = strings.IndexByte(s[start:], sc.d.Segment); end >= 0 {
			end += start
		} else {
			end = len(s)
		}
		sc.pos = end + 1
		if end > start {
			return start, end, true
		}
	}
}

// segment is one segment in the segment index: where it starts, and the
// innermost loop instance it belongs to (-1 outside every loop). Its end
// is found when it is read (Interchange.segmentAt). Offsets are int32 to
// keep the index small; Parse refuses inputs of 2 GiB or more.
type segment struct {
	start int32
	loop  int32
}

// segments returns the segment index, building it (and the loops) on
// first use.
func (x *Interchange) segments() []segment {
	segs, _ := x.loopIndex()
	return segs
}

// segmentAt returns the text of the segment at byte offset off, up to its
// terminator, and the delimiters it is read with.
func (x *Interchange) segmentAt(off int32) (string, *Delimiters) {
	k := x.markOf(off)
	d := &x.delims[k]
	if x.marks[k].start == off {
		return x.data[off:x.marks[k].term], d // an ISA, read by its fixed widths
	}
	end := strings.IndexByte(x.data[off:], d.Segment)
	if end < 0 {
		return x.data[off:], d
	}
	return x.data[off : int(off)+end], d
}

// Segment is one segment of an Interchange.
type Segment struct {
	x *Interchange
	i int32
}

// Segment returns segment i (0-based, in file order). It panics when i is
// out of range, as indexing a slice does. The first call builds the
// segment index.
func (x *Interchange) Segment(i int) Segment {
	_ = x.segments()[i]
	return Segment{x: x, i: int32(i)}
}

func (s Segment) seg() segment { return s.x.segments()[s.i] }

// text returns the segment's text and delimiters.
func (s Segment) text() (string, *Delimiters) { return s.x.segmentAt(s.seg().start) }

// Index returns the segment's 0-based position in the file.
func (s Segment) Index() int { return int(s.i) }

// Offset returns the 0-based byte offset of the segment in the input.
func (s Segment) Offset() int { return int(s.seg().start) }

// String returns the segment as written, without its terminator.
func (s Segment) String() string {
	t, _ := s.text()
	return t
}

// ID returns the segment identifier, e.g. "NM1".
func (s Segment) ID() string {
	t, d := s.text()
	return segmentID(t, d.Element)
}

// Element returns element n (1-based) as encoded, repetitions and
// components included, and whether the segment has it: an empty element
// that is present reads as "", one past the segment's end as ok false.
func (s Segment) Element(n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	t, d := s.text()
	return field(t, d.Element, n)
}

// Loop returns the ID of the innermost loop the segment belongs to, such as
// "2110C"; "" outside loops (envelopes, headers, transaction sets whose
// guide this package does not know) and in HL levels the guide does not
// name.
func (s Segment) Loop() string {
	if l := s.seg().loop; l >= 0 {
		_, loops := s.x.loopIndex()
		return loops[l].id()
	}
	return ""
}

// LoopPath returns the loops the segment is nested in, outermost first,
// joined by "/", e.g. "2000C/2100C/2110C"; an HL level the guide does not
// name reads "?".
func (s Segment) LoopPath() string {
	_, loops := s.x.loopIndex()
	var ids []string
	for l := s.seg().loop; l >= 0; l = loops[l].parent {
		id := loops[l].id()
		if id == "" {
			id = "?"
		}
		ids = append(ids, id)
	}
	for a, b := 0, len(ids)-1; a < b; a, b = a+1, b-1 {
		ids[a], ids[b] = ids[b], ids[a]
	}
	return strings.Join(ids, "/")
}
