package x12

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Delimiters are the separators an interchange declares in its ISA segment.
type Delimiters struct {
	// Element separates elements; it is the byte after "ISA".
	Element byte
	// Repetition separates repetitions of an element: ISA11, from version
	// 00402 on, unless it is a letter, a digit, a space, the element
	// separator or the segment terminator. 0 means the interchange has
	// none. It may equal Component (some senders write ISA11 = ISA16): that
	// character then splits an element into pieces that both a repetition
	// and a component number select (see SYNTAX.md).
	Repetition byte
	// Component separates the components of a composite element: ISA16.
	Component byte
	// Segment ends each segment: the byte after ISA16.
	Segment byte
}

// Interchange is a parsed X12 file: every segment of every interchange,
// functional group and transaction set in it, in order, and the findings
// of the envelope checks.
//
// Parsing is one pass over the input that checks the envelopes and notes
// where each ISA, GS and ST segment is. For an input of up to 1 MiB (every
// response an agent gets) that pass also builds the segment index and the
// loops of the implementation guides; a larger one builds them the first
// time something needs them (Segment, a path that names a loop), so that
// reading loop-free paths out of a large file costs a scan, not an index. Values read from an
// Interchange are substrings of its input: reading allocates nothing. An
// Interchange is immutable and safe for concurrent use.
type Interchange struct {
	data     string
	nsegs    int
	marks    []isaMark    // every ISA the parse could read
	delims   []Delimiters // the delimiters of each of marks
	sets     []int32      // the byte offset of each transaction set's ST segment
	groups   []int32      // the byte offset of each GS segment
	findings []Finding

	txs struct { // Transactions, made on first use
		once sync.Once
		list []Transaction
	}
	index struct { // the segment index and the loops, made on first use
		once  sync.Once
		built atomic.Bool // once has run: loop-free paths read through segs
		segs  []segment
		loops []loop
	}
}

// isaMark is one ISA segment the parse could read: where it starts and the
// index of its terminator (an ISA is read by its fixed widths, so its
// terminator is not searched for). Segments from there to the next mark
// use its delimiters.
type isaMark struct {
	start, term int32
}

// Transaction is one transaction set (ST to SE) of an interchange.
type Transaction struct {
	// Code is ST01, the transaction set identifier, e.g. "271".
	Code string
	// Control is ST02, the transaction set control number.
	Control string
	// Version is ST03, or the group's GS08 when ST03 is absent, e.g.
	// "005010X279A1".
	Version string
	// Start and End are the indexes of the ST and SE segments; End is the
	// transaction set's last segment when its SE is missing.
	Start, End int
}

// Option configures Parse.
type Option func(*options)

type options struct {
	strict bool
}

// Strict makes every finding an error: Parse returns a *FindingsError
// instead of an Interchange when anything in the envelopes or the HL
// hierarchy is off.
func Strict() Option { return func(o *options) { o.strict = true } }

// Parse reads an X12 file. The Interchange keeps a copy of data as a
// string, which every value read from it is a substring of: data may
// change afterwards. ParseString takes input already held in a string
// without copying it.
//
// Input that cannot be read as X12 (no ISA, an ISA of the wrong length,
// colliding delimiters) is a *SyntaxError. Everything else is read, and what
// is wrong with the envelopes (ISA/IEA, GS/GE, ST/SE control numbers and
// counts, segments outside them, a missing final terminator) or the HL
// hierarchy is reported by Findings, or, with Strict, as a *FindingsError.
func Parse(data []byte, opts ...Option) (*Interchange, error) {
	return ParseString(string(data), opts...)
}

// ParseString is Parse for input held in a string; it does not copy it.
func ParseString(s string, opts ...Option) (*Interchange, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if len(s) >= math.MaxInt32 {
		return nil, syntaxError(s, 0, "input of 2 GiB or more")
	}
	start := skipPreamble(s)
	if !strings.HasPrefix(s[start:], "ISA") {
		return nil, syntaxError(s, start, "no ISA segment: an X12 interchange starts with ISA, this input starts with "+strconv.Quote(preview(s[start:])))
	}
	x := &Interchange{data: s}
	p := &parser{x: x, s: s, eager: len(s) <= eagerLimit}
	if err := p.run(start); err != nil {
		return nil, err
	}
	if p.ix != nil {
		segs, loops := p.ix.done()
		x.index.once.Do(func() {
			x.index.segs, x.index.loops = segs, loops
			x.index.built.Store(true)
		})
	}
	if len(x.findings) > 0 {
		x.locate()
		if o.strict {
			return nil, &FindingsError{Findings: x.findings}
		}
	}
	return x, nil
}

// skipPreamble skips a UTF-8 byte order mark and white space before the ISA.
func skipPreamble(s string) int {
	i := 0
	if strings.HasPrefix(s, "\uFEFF") {
		i = 3
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// preview shortens s for a message.
func preview(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

// run reads the segments from the ISA at pos to the end of the input,
// checking the envelopes as it goes. White space after a terminator (line
// breaks, and the blanks and tabs of hand-edited files) is layout, since no
// segment starts with it; an empty segment (a doubled terminator) is
// skipped. A first ISA that cannot be read is the error it returns; a later
// one is a finding, and the delimiters before it stay in force.
func (p *parser) run(pos int) error {
	s := p.s
	n := 0 // the index of the next segment
	for pos < len(s) {
		if c := s[pos]; isSpace(c) && c != p.d.Segment {
			pos++
			continue
		}
		if strings.HasPrefix(s[pos:], "ISA") {
			d, term, same, err := readISA(s, pos)
			if err == nil {
				p.d = d
				p.x.delims = append(p.x.delims, d)
				p.x.marks = append(p.x.marks, isaMark{start: int32(pos), term: int32(term)})
				if n == 0 && p.eager {
					// Room for a segment per terminator.
					p.ix = newIndexer(p.x, strings.Count(s[pos:], string(d.Segment))+1)
				}
				p.segment(n, pos, term)
				if p.ix != nil {
					p.ix.add(pos, term, "ISA", d.Element)
				}
				if same {
					p.findAt(pos, n, "ISA", "ISA11, the repetition separator "+strconv.QuoteRune(rune(d.Repetition))+", is also ISA16, the component separator: an element splits at it into pieces that both [REP] and -C select")
				}
				n++
				pos = term + 1
				continue
			}
			if n == 0 {
				return err
			}
			p.findAt(pos, n, "ISA", "an ISA that cannot be read: "+err.(*SyntaxError).Msg+"; the previous delimiters are kept")
		}
		end := strings.IndexByte(s[pos:], p.d.Segment)
		if end < 0 {
			end = len(s)
			p.findAt(pos, n, segmentID(s[pos:], p.d.Element), "the last segment has no segment terminator "+strconv.QuoteRune(rune(p.d.Segment)))
		} else {
			end += pos
		}
		if end > pos {
			id := p.segment(n, pos, end)
			if p.ix != nil {
				p.ix.add(pos, end, id, p.d.Element)
			}
			n++
		}
		pos = end + 1
	}
	p.x.nsegs = n
	p.finish()
	return nil
}

// markOf returns the index of the ISA mark (and delimiters) in force at
// byte offset off: the last one that starts at or before it.
func (x *Interchange) markOf(off int32) int {
	return sort.Search(len(x.marks), func(k int) bool { return x.marks[k].start > off }) - 1
}

// Delimiters returns the delimiters of the first interchange.
func (x *Interchange) Delimiters() Delimiters { return x.delims[0] }

// Len returns the number of segments.
func (x *Interchange) Len() int { return x.nsegs }

// Transactions returns the transaction sets in file order.
func (x *Interchange) Transactions() []Transaction {
	x.txs.once.Do(func() { x.txs.list = x.transactions() })
	return x.txs.list
}

// Findings returns what is wrong with the envelopes and the HL hierarchy,
// in file order; nil when nothing is.
func (x *Interchange) Findings() []Finding { return x.findings }

// loopIndex returns the segment index and the loop instances, building
// them on first use.
func (x *Interchange) loopIndex() ([]segment, []loop) {
	x.index.once.Do(func() {
		x.index.segs, x.index.loops = x.buildIndex()
		x.index.built.Store(true)
	})
	return x.index.segs, x.index.loops
}
