package x12

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/assaykit/assay/assert"
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

// isaLen is the fixed length of an ISA segment, terminator included.
const isaLen = 106

// isaWidths are the fixed widths of ISA01 to ISA16.
var isaWidths = [16]int{2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1}

// maskBlocks is how many 64-byte blocks of input the parse marks the
// terminators of at a time.
const maskBlocks = 32

// eagerLimit is the size up to which Parse builds the segment index and
// the loops in its one pass; larger inputs build them on first use.
const eagerLimit = 1 << 20

// maxFindings bounds the findings one parse keeps, so that megabytes of
// garbage after a good ISA cannot produce megabytes of messages.
const maxFindings = 1000

// isaMark is one ISA segment the parse could read: where it starts and
// ends (the index of its terminator), and its delimiters' index. Segments
// from there to the next mark use those delimiters.
type isaMark struct {
	start, term int32
}

// Interchange is a parsed X12 file: every segment of every interchange,
// functional group and transaction set in it, in order, and the findings
// of the envelope checks.
//
// Parsing is one pass over the input that checks the envelopes. For an
// input of up to 1 MiB (every response an agent gets) that pass also builds
// the segment index and the loops of the implementation guides; a larger
// one builds them the first time something needs them (Segment, a path that
// names a loop), so that reading loop-free paths out of a large file costs
// a scan, not an index. Values read from an Interchange are substrings of the input:
// reading allocates nothing. An Interchange is immutable and safe for
// concurrent use.
type Interchange struct {
	data     string
	nsegs    int
	marks    []isaMark
	delims   []Delimiters
	sets     []int32 // the byte offset of each transaction set's ST segment
	groups   []int32 // the byte offset of each GS segment
	findings []Finding
	txs      struct {
		once sync.Once
		list []Transaction
	}

	index struct {
		once  sync.Once
		built atomic.Bool
		segs  []segment
		loops []loop
	}
	// Room for the usual single interchange and transaction set, so that
	// parsing one response allocates no slices for them.
	delims0 [1]Delimiters
	marks0  [1]isaMark
	sets0   [1]int32
	groups0 [1]int32
}

// The parse keeps four bytes per transaction set, the offset of its ST
// segment (and four per functional group, the offset of its GS), so that a
// file of a hundred thousand sets costs half a megabyte and holds no
// pointers for the garbage collector. The rest is derived from the ST
// segment when asked for: its text and delimiters (stSegment), its version
// and guide (setInfo), and the indexes of its first and last segments
// (Transactions, by a scan).

// markOf returns the index of the ISA mark (and delimiters) in force at
// byte offset off: the last one that starts at or before it.
func (x *Interchange) markOf(off int32) int {
	m := x.marks
	if len(m) == 1 || off < m[1].start {
		return 0
	}
	lo, hi := 1, len(m) // m[lo].start <= off; answer in [lo, hi)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if m[mid].start <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// segmentAt returns the text of the segment at byte offset off, up to its
// terminator, and the delimiters it is read with.
func (x *Interchange) segmentAt(off int32) (string, *Delimiters) {
	k := x.markOf(off)
	d := &x.delims[k]
	if x.marks[k].start == off {
		return x.data[off:x.marks[k].term], d // an ISA
	}
	end := indexFrom(x.data, int(off), d.Segment)
	if end < 0 {
		end = len(x.data)
	}
	return x.data[off:end], d
}

// stSegment returns the text of transaction set k's ST segment and its
// delimiters.
func (x *Interchange) stSegment(k int) (string, *Delimiters) { return x.segmentAt(x.sets[k]) }

// gs08 returns GS08 of the last GS before byte offset off: the version a
// transaction set without ST03 takes ("" when no GS comes before it).
func (x *Interchange) gs08(off int32) string {
	g := x.groups
	lo, hi := 0, len(g) // the answer is g[lo-1]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if g[mid] < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return ""
	}
	t, d := x.segmentAt(g[lo-1])
	v, _ := field(t, d.Element, 8)
	return v
}

// setInfo returns ST01, ST02 and the version (ST03, or the group's GS08)
// of transaction set k, and its guide.
func (x *Interchange) setInfo(k int) (code, control, version string, guide uint8) {
	t, d := x.stSegment(k)
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
	guide = guideFor(code, gs08, st03)
	return code, control, version, guide
}

// guide returns the guide of transaction set k.
func (x *Interchange) guide(k int) uint8 {
	_, _, _, g := x.setInfo(k)
	return g
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

// Finding is one thing wrong with an interchange's envelopes or HL
// hierarchy. Lenient parsing (the default) reports findings and reads the
// data anyway; strict parsing makes them errors.
type Finding struct {
	// Location says where: Segment is the 1-based position of the segment
	// in the file (the first ISA is 1; for a problem found at the end of
	// the input, the last segment), Line and Column are 1-based
	// (assert.LineColumn: LF, CR and CRLF each end a line).
	assert.Location
	// ID is that segment's identifier, e.g. "SE"; "" when it has none
	// that is valid.
	ID string `json:"id"`
	// Offset is the 0-based byte offset of the segment (of the end of the
	// input, for a problem found there).
	Offset int `json:"offset"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String renders the finding at its location (assert.Location), with the
// segment's ID, e.g. `19:1: segment 19: SE: SE01 counts "27" segments, ...`.
func (f Finding) String() string {
	if f.ID == "" {
		return f.Location.Prefix(f.Message)
	}
	return f.Location.Prefix(f.ID + ": " + f.Message)
}

// SyntaxError reports input that cannot be read as X12 at all: no ISA, an
// ISA that is not the fixed 106 characters, delimiters that collide.
type SyntaxError struct {
	// Location locates the problem: 1-based line and column.
	Location assert.Location
	// Offset is the 0-based byte offset of the problem.
	Offset int
	// Msg says what is wrong.
	Msg string
}

func (e *SyntaxError) Error() string {
	return "x12: at byte " + strconv.Itoa(e.Offset) + ": " + e.Location.Prefix(e.Msg)
}

// FindingsError is returned by strict parsing when the input has findings.
type FindingsError struct {
	Findings []Finding
}

func (e *FindingsError) Error() string {
	var b strings.Builder
	b.WriteString("x12: ")
	b.WriteString(strconv.Itoa(len(e.Findings)))
	if len(e.Findings) == 1 {
		b.WriteString(" finding: ")
	} else {
		b.WriteString(" findings: ")
	}
	for i, f := range e.Findings {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 3 {
			b.WriteString("...")
			break
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// Option configures Parse.
type Option func(*options)

type options struct {
	strict bool
	noBody bool // withoutBody
}

// withoutBody makes the parse read every segment in run's own loop, not
// transaction set bodies with body: the tests compare the two.
func withoutBody() Option { return func(o *options) { o.noBody = true } }

// Strict makes every finding an error: Parse returns a *FindingsError
// instead of an Interchange when anything in the envelopes or the HL
// hierarchy is off.
func Strict() Option { return func(o *options) { o.strict = true } }

// Parse reads an X12 file without copying it: the Interchange reads its
// values out of data, so data must not be modified while the Interchange
// is in use (a read-only memory map, or a buffer handed over, is the
// intended use; call ParseString with a copy otherwise).
//
// Input that cannot be read as X12 (no ISA, an ISA of the wrong length,
// colliding delimiters) is a *SyntaxError. Everything else is read, and what
// is wrong with the envelopes (ISA/IEA, GS/GE, ST/SE control numbers and
// counts, segments outside them, a missing final terminator) or the HL
// hierarchy is reported by Findings, or, with Strict, as a *FindingsError.
func Parse(data []byte, opts ...Option) (*Interchange, error) {
	if len(data) == 0 {
		return ParseString("", opts...)
	}
	return ParseString(unsafe.String(&data[0], len(data)), opts...)
}

// ParseString is Parse for input already held in a string; it does not copy.
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
	if _, _, _, err := readISA(s, start); err != nil {
		return nil, err
	}
	x := &Interchange{data: s}
	x.delims, x.marks, x.sets, x.groups = x.delims0[:0], x.marks0[:0], x.sets0[:0], x.groups0[:0]
	p := &parser{x: x, s: s, noBody: o.noBody}
	p.hl.stack, p.hl.seen, p.hl.data = p.stackBuf[:0], p.seenBuf[:0], s
	if len(s) <= eagerLimit {
		// A small input (every response an agent gets) gets its segment
		// index and loops in the same pass: reading it is what comes next.
		n := strings.Count(s[start:], string(s[start+105])) + 1 // most segments end at a terminator
		p.ix = &p.ixv
		p.ix.init(x, 0)
		p.ix.segs = makeUncleared[segment](n)
	}
	p.run(start)
	if p.ix != nil {
		x.setIndex(p.ix)
		x.index.once.Do(noop)
	}
	if len(x.findings) > 0 {
		x.locate()
		if o.strict {
			return nil, &FindingsError{Findings: x.findings}
		}
	}
	return x, nil
}

func noop() {}

// makeUncleared returns an empty slice with room for n elements, without
// clearing its memory, for the segment index and the loop list: the parse
// writes each element before anything reads it, and clearing them cost as
// much as a tenth of the parse. strings.Builder.Grow is the standard
// library's way to memory that is not cleared; the type set admits only
// types without pointers, which may live in memory allocated for bytes.
func makeUncleared[T segment | loop](n int) []T {
	var b strings.Builder
	// 16 bytes or more: not the tiny allocator, which does not align.
	b.Grow(n*int(unsafe.Sizeof(*new(T))) + 16)
	b.WriteByte(0)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.StringData(b.String()))), n)[:0]
}

func syntaxError(s string, at int, msg string) *SyntaxError {
	line, col := assert.LineColumn(unsafe.Slice(unsafe.StringData(s), len(s)), at)
	return &SyntaxError{Location: assert.Location{Line: line, Column: col}, Offset: at, Msg: msg}
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

func preview(s string) string {
	if len(s) > 20 {
		return s[:20] + "..."
	}
	return s
}

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
	for i := 0; i < 16; i++ {
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

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// indexFrom returns the index of the first c in s at or after i, or -1.
// Segments are short (tens of bytes), where a call to strings.IndexByte
// costs more than the search: the first 128 bytes are searched eight at a
// time in a register, the rest by strings.IndexByte.
func indexFrom(s string, i int, c byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	pat := uint64(c) * ones
	base := unsafe.Pointer(unsafe.StringData(s))
	for end := min(i+128, len(s)); i+8 <= end; i += 8 {
		x := loadLE(unsafe.Add(base, i)) ^ pat
		if t := (x - ones) &^ x & highs; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return -1
}

// loadLE loads the 8 bytes at p (which must be readable) as a
// little-endian integer.
func loadLE(p unsafe.Pointer) uint64 {
	if littleEndian {
		return *(*uint64)(p)
	}
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(p), 8))
}

func isSpace(c byte) bool { return c == '\r' || c == '\n' || c == ' ' || c == '\t' }

// Packed segment identifiers: up to three bytes, compared as one integer.
const (
	idISA = 'I'<<16 | 'S'<<8 | 'A'
	idIEA = 'I'<<16 | 'E'<<8 | 'A'
	idTA1 = 'T'<<16 | 'A'<<8 | '1'
	idBHT = 'B'<<16 | 'H'<<8 | 'T'
	idGS  = 'G'<<8 | 'S'
	idGE  = 'G'<<8 | 'E'
	idST  = 'S'<<8 | 'T'
	idSE  = 'S'<<8 | 'E'
	idHL  = 'H'<<8 | 'L'
	idLS  = 'L'<<8 | 'S'
	idLE  = 'L'<<8 | 'E'
	// idInvalid is what packID returns for anything that is not a segment
	// identifier; no identifier packs to it.
	idInvalid = 1 << 31
)

// packID packs the identifier of segment text t (up to the element
// separator sep) into an integer, or idInvalid when it is not 2 or 3
// capital letters and digits with a letter first.
func packID(t string, sep byte) uint32 {
	if len(t) >= 4 && idClass[t[0]] == classLetter && idClass[t[1]] != 0 {
		if t[2] == sep {
			return uint32(t[0])<<8 | uint32(t[1])
		}
		if idClass[t[2]] != 0 && t[3] == sep {
			return uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
		}
	}
	return packIDSlow(t, sep)
}

func packIDSlow(t string, sep byte) uint32 {
	if len(t) < 2 || t[0] < 'A' || t[0] > 'Z' || !idChar(t[1]) {
		return idInvalid
	}
	if len(t) == 2 || t[2] == sep {
		return uint32(t[0])<<8 | uint32(t[1])
	}
	if !idChar(t[2]) || len(t) > 3 && t[3] != sep {
		return idInvalid
	}
	return uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
}

// Classes of the characters of segment identifiers, in idClass
// (tables.go); 0 for any other character.
const (
	classDigit  = 1
	classLetter = 2
)

func idChar(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// packString packs a segment ID written in a path.
func packString(id string) uint32 { return packID(id, 0) }

func segmentID(t string, sep byte) string {
	// Identifiers are 2 or 3 characters: look at the first 4 bytes before
	// searching the whole segment.
	for i := 0; i < len(t) && i < 4; i++ {
		if t[i] == sep {
			return t[:i]
		}
	}
	if i := strings.IndexByte(t, sep); i >= 0 {
		return t[:i]
	}
	return t
}

func validID(id string) bool { return len(id) <= 3 && packID(id, 0) != idInvalid }

// field returns element n (1-based) of segment text t, and whether the
// segment has it.
func field(t string, sep byte, n int) (string, bool) {
	k, start := 0, -1
	for i := 0; i < len(t); i++ {
		if t[i] == sep {
			k++
			if k == n {
				start = i + 1
			} else if k == n+1 {
				return t[start:i], true
			}
		}
	}
	if start >= 0 {
		return t[start:], true
	}
	return "", false
}

// scanner walks the segments of an interchange's input as the parse found
// them: white space after a terminator skipped, each ISA that could be
// read ended by its own terminator and switching the delimiters.
type scanner struct {
	s     string
	pos   int
	mark  int // index of the next ISA mark
	marks []isaMark
	d     Delimiters
	all   []Delimiters
}

func (x *Interchange) scan() scanner {
	return scanner{s: x.data, pos: int(x.marks[0].start), marks: x.marks, all: x.delims}
}

// next returns the next segment's text bounds; ok is false at the end.
func (sc *scanner) next() (start, end int, ok bool) {
	s := sc.s
	pos := sc.pos
	for pos < len(s) && isSpace(s[pos]) && s[pos] != sc.d.Segment {
		pos++
	}
	if pos >= len(s) {
		sc.pos = pos
		return 0, 0, false
	}
	if sc.mark < len(sc.marks) && int(sc.marks[sc.mark].start) == pos {
		m := sc.marks[sc.mark]
		sc.d = sc.all[sc.mark]
		sc.mark++
		sc.pos = int(m.term) + 1
		return pos, int(m.term), true
	}
	end = indexFrom(s, pos, sc.d.Segment)
	if end < 0 {
		end = len(s)
	}
	sc.pos = end + 1
	if end == pos {
		return sc.next() // an empty segment (a doubled terminator) is skipped
	}
	return pos, end, true
}

// parser holds the state of one Parse: the envelope being read and the HL
// hierarchy of the current transaction set.
type parser struct {
	x *Interchange
	s string
	d Delimiters

	// envelope state
	inISA, inGS, inST bool
	isa, gs, st       int32 // index of the open ISA, GS and ST segments
	isaAt, gsAt       int   // their byte offsets
	isaEnd, gsEnd     int
	groups            int // functional groups in the open interchange
	sets              int // transaction sets in the open group
	version           string
	// ST02 of the open transaction set: p.s[controlAt:controlEnd] (offsets,
	// which the parse writes for every set without a write barrier).
	controlAt, controlEnd int32
	guide                 uint8 // the guide of the open transaction set
	// The last ST read in full (stFields) and its guide, as offsets in s:
	// lastST is where it starts, stHead the length of its text through the
	// separator after ST01, lastTail and lastTailEnd its text from the
	// separator after ST02 on. guideFresh is false until an ST is read in
	// full, after a GS (whose GS08 the guide may depend on) and after an
	// ST without ST02; lastSep is the element separator it was read with.
	lastST, stHead        int32
	lastTail, lastTailEnd int32
	guideFresh            bool
	lastSep               byte
	lastGuide             uint8
	lastStart             int // the last segment read

	// masks marks the terminators of up to maskBlocks 64-byte blocks of
	// the input (run).
	masks [maskBlocks]uint64
	// mStart and mEnd bound the bytes masks covers (run).
	mStart, mEnd int
	hl           hlCheck
	stackBuf     [8]hlEntry
	seenBuf      [16]hlEntry
	ix           *indexer // builds the segment index in the same pass, or nil
	ixv          indexer
	noBody       bool // withoutBody
}

func (p *parser) run(pos int) {
	s := p.s
	base := unsafe.Pointer(unsafe.StringData(s))
	n := int32(0) // index of the next segment
	ix := p.ix
	// The terminators not yet read are the bits of cm, each the offset
	// from cb of one; p.masks[:(p.mEnd-p.mStart)/64] mark those of the
	// 64-byte blocks from p.mStart (terminatorMasks), cb's among them.
	// Segments end at consecutive terminators, so each search takes the
	// lowest bit left, and a block's mask is loaded when its bits run out.
	cm, cb := uint64(0), pos-64
	p.mStart, p.mEnd = 0, 0
	// Copies of parser state the loop reads for every segment, read again
	// after the calls that change them. (A transaction set's segment count
	// is not kept: it is the SE's index less the ST's, plus one.)
	// tx is 0 outside a transaction set, else 1 plus its guide.
	tx := p.txMode()
	// Line breaks (and stray blanks) after a terminator are layout; no
	// segment starts with white space. (White space that is the terminator
	// would end an empty segment, which is skipped too.) The parse starts
	// at an ISA and skips them after each segment.
	for uint(pos) < uint(len(s)) {
		if tx != 0 && ix != nil && !p.noBody {
			// The usual segments of a transaction set's body, in a loop
			// of their own.
			pos, n, cm, cb = p.body(pos, cm, cb)
			if uint(pos) >= uint(len(s)) {
				break
			}
		}
		var end int
		if s[pos] == 'I' && strings.HasPrefix(s[pos:], "ISA") {
			d, isaEnd, same, err := readISA(s, pos)
			if err == nil {
				p.d = d
				// The terminator may have changed: search from the next
				// segment afresh.
				cm, cb, p.mEnd = 0, isaEnd+1-64, 0
				p.lastStart = pos
				p.x.delims = append(p.x.delims, d)
				p.x.marks = append(p.x.marks, isaMark{start: int32(pos), term: int32(isaEnd)})
				if ix != nil {
					ix.segs = append(ix.segs, segment{start: int32(pos), loop: -1})
				}
				p.segment(n, pos, isaEnd)
				tx = p.txMode()
				if same {
					p.findAt(pos, n, "ISA", "ISA11, the repetition separator "+strconv.QuoteRune(rune(d.Repetition))+", is also ISA16, the component separator: an element splits at it into pieces that both [REP] and -C select")
				}
				n++
				pos = skipLayout(s, isaEnd+1)
				continue
			}
			p.findAt(pos, n, "ISA", "an ISA that cannot be read: "+err.(*SyntaxError).Msg+"; the previous delimiters are kept")
		}
		// The terminator: the first terminator at or after pos, the lowest
		// bit of cm (those before pos are white space that is the
		// terminator, an empty segment skipped), else of the next block's
		// mask, refilled when the masks run out.
		end = -1
		for {
			if cm != 0 {
				e := cb + bits.TrailingZeros64(cm)
				cm &= cm - 1
				if e >= pos {
					end = e
					break
				}
				continue
			}
			if cb += 64; cb < p.mEnd {
				cm = p.masks[uint(cb-p.mStart)>>6&(maskBlocks-1)]
				continue
			}
			// Refill from here (the masks' end, or pos after an ISA).
			from := max(cb, pos)
			if from >= len(s) {
				break
			}
			blocks := min((len(s)-from)>>6, maskBlocks)
			if blocks == 0 {
				// The last bytes, fewer than 64: their mask, a byte at a
				// time.
				m, t := uint64(0), p.d.Segment
				for k := from; k < len(s); k++ {
					if s[k] == t {
						m |= 1 << uint(k-from)
					}
				}
				p.masks[0] = m
				blocks = 1
			} else {
				terminatorMasks(unsafe.Add(base, from), blocks, p.d.Segment, &p.masks[0])
			}
			p.mStart, p.mEnd = from, from+blocks<<6
			cb, cm = from, p.masks[0]
		}
		if end < 0 {
			end = len(s)
			p.findAt(pos, n, segmentID(s[pos:], p.d.Element), "the last segment has no segment terminator "+strconv.QuoteRune(rune(p.d.Segment)))
		}
		if tx != 0 && end > pos {
			// The body of a transaction set: only the envelope segments and
			// identifiers that are not valid need a closer look; the rest are
			// counted (and, when the index is built in this pass, indexed and
			// given their loops; without the index, the HL of a guided set is
			// checked).
			// packID, written out here.
			t, sep := s[pos:end], p.d.Element
			var id uint32
			if len(t) >= 4 && idClass[t[0]] == classLetter && idClass[t[1]] != 0 {
				if t[2] == sep {
					id = uint32(t[0])<<8 | uint32(t[1])
				} else if idClass[t[2]] != 0 && t[3] == sep {
					id = uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
				} else {
					id = packIDSlow(t, sep)
				}
			} else {
				id = packIDSlow(t, sep)
			}
			if c, op := classOp(id); c&clsEnvelope == 0 {
				p.lastStart = pos
				if ix != nil {
					li := ix.cur // the innermost open loop's (-1 outside guided sets)
					if c == 0 || tx == 1+guideNone {
						ix.curLast = n
					} else {
						li = p.loopSegment(n, id, c, op, pos, end)
					}
					ix.segs = append(ix.segs, segment{start: int32(pos), loop: li})
				} else if id == idHL && tx != 1+guideNone {
					p.checkHL(n, pos, end)
				}
				n++
				pos = skipLayout(s, end+1)
				continue
			}
		}
		if end > pos {
			if ix != nil {
				ix.segs = append(ix.segs, segment{start: int32(pos), loop: -1})
			}
			p.lastStart = pos
			p.segment(n, pos, end)
			tx = p.txMode()
			n++
		}
		pos = skipLayout(s, end+1)
	}
	p.x.nsegs = int(n)
	p.finish()
}

// body reads the segments of a transaction set's body from pos, when the
// index is built in this pass: every segment but the envelope segments. It
// is the loop that reads most segments, and run's, which reads every kind,
// keeps too much live to read them quickly: body keeps only the input, the
// parser and the terminator state in registers and reads the rest where
// it is kept (the next segment's index is the index's length), and reads
// the ordinary segments (class 0) and those that open a loop by an outcome
// openSteps has for them without a call. It stops at the first segment it
// leaves to run (an envelope segment, an identifier that is not valid or
// may start an ISA, a segment without elements, a full slice, the end of
// the masks), before taking its terminator: it returns that segment's
// start, its index and the terminator state (cm, cb) as they were, so that
// run reads it as if body had not been called. run calls it only inside a
// transaction set, with p.ix set.
func (p *parser) body(pos int, cm uint64, cb int) (int, int32, uint64, int) {
	s, ix := p.s, &p.ixv
	base := unsafe.Pointer(unsafe.StringData(s))
	for {
		// The terminator, as run finds it (body leaves one before pos,
		// after white space that is the terminator, to run).
		for cm == 0 {
			if cb+64 >= p.mEnd {
				goto out // run refills the masks
			}
			cb += 64
			cm = p.masks[uint(cb-p.mStart)>>6&(maskBlocks-1)]
		}
		end := cb + bits.TrailingZeros64(cm)
		if end-pos < 4 {
			goto out // an empty segment, one without elements, or before pos
		}
		// packID, for identifiers followed by the element separator. The
		// masks mark only bytes of s, so pos+3 < end < len(s).
		t0, t1 := *(*byte)(unsafe.Add(base, pos)), *(*byte)(unsafe.Add(base, pos+1))
		t2, sep := *(*byte)(unsafe.Add(base, pos+2)), p.d.Element
		var id uint32
		if idClass[t0] != classLetter || idClass[t1] == 0 {
			goto out
		} else if t2 == sep {
			id = uint32(t0)<<8 | uint32(t1)
			if id == 'I'<<8|'S' && sep == 'A' {
				goto out // "ISA": run reads it as an ISA
			}
		} else if idClass[t2] != 0 && *(*byte)(unsafe.Add(base, pos+3)) == sep {
			id = uint32(t0)<<16 | uint32(t1)<<8 | uint32(t2)
		} else {
			goto out
		}
		// classOp, written out.
		var c, op uint8
		if e := &idTable[(id*idMul)>>25]; e.id == id {
			c, op = e.class, e.op
		}
		if c&clsEnvelope != 0 {
			goto out
		}
		k := len(ix.segs) // the segment's index
		if k == cap(ix.segs) {
			goto out
		}
		// The innermost open loop's (-1 outside guided sets), unless the
		// segment opens one.
		ix.segs = ix.segs[:k+1]
		if c == 0 || p.guide == guideNone {
			ix.segs[k] = segment{start: int32(pos), loop: ix.cur}
			ix.curLast = int32(k)
			goto next
		}
		ix.segs[k].start = int32(pos)
		if nopen := ix.nopen; c&clsOpens != 0 && ix.ls < 0 && uint32(nopen-1) < uint32(len(ix.open)) {
			// opener, for the outcomes openSteps decides.
			st := openSteps[ix.open[nopen-1].def][op&(maxOpeners-1)]
			if d := nopen - 1 - int32(st.up); st.kind == stepOpen && uint32(d) < uint32(len(ix.open)-1) {
				if li := int32(len(ix.loops)); int(li) < cap(ix.loops) {
					o := &ix.open[d]
					kd := &kidsOf[o.def].kids[st.kid&(maxKids-1)]
					o.lastChild = int32(st.kid)
					ix.loops = ix.loops[:li+1]
					ix.loops[li] = loop{name: kd.name, parent: o.inst, first: int32(k), last: int32(k)}
					ix.open[d+1] = openLoop{def: kd.def, inst: li}
					ix.nopen = d + 2
					ix.setCurAt(k, li)
					goto next
				}
			} else if st.kind == stepInner {
				ix.setCurAt(k, ix.open[nopen-1].inst)
				goto next
			}
		}
		{
			// The calls of the loop, on one path of their own, so that only
			// it saves the registers around them (loopSegment, written
			// out).
			ix.sep = p.d.Element
			var li int32
			ok := true
			if c&clsOpens != 0 {
				li = ix.opener(int32(k), id, op, pos, end)
			} else if id == idHL {
				li, ok = ix.openHL(int32(k), pos, end)
			} else {
				li, ok = ix.assign(int32(k), id, c, pos, end)
			}
			if !ok {
				p.noParent(int32(k), pos, end)
			}
			ix.segs[k].loop = li
		}
	next:
		cm &= cm - 1
		// skipLayout, written out. pos may reach len(s): no terminator
		// is at or after it then.
		pos = end + 1
		if uint(pos+1) < uint(len(s)) {
			c0, c1 := *(*byte)(unsafe.Add(base, pos)), *(*byte)(unsafe.Add(base, pos+1))
			if c0 > ' ' {
				continue
			} else if c0 == '\n' && c1 > ' ' {
				pos++
				continue
			}
		}
		for uint(pos) < uint(len(s)) {
			// isSpace (spaceBits here would hold a register in the loop).
			if c := s[pos]; c != ' ' && c != '\n' && c != '\r' && c != '\t' {
				break
			}
			pos++
		}
	}
out:
	if k := len(ix.segs); k > 0 {
		// The last segment read, which run records as it reads each.
		p.lastStart = int(ix.segs[k-1].start)
	}
	return pos, int32(len(ix.segs)), cm, cb
}

// setCurAt is setCur for segment k of the index, which gets loop inst.
func (ix *indexer) setCurAt(k int, inst int32) {
	if c := ix.cur; c >= 0 {
		ix.loops[c].last = ix.curLast
	}
	ix.cur, ix.curLast = inst, int32(k)
	ix.segs[k].loop = inst
}

// loopSegment returns the loop of segment i, s[start:end], of a guided
// transaction set, whose packed identifier id has the class c and, for one
// that opens loops, the index op in loopSegs (classOp): one of those the
// loops depend on, besides the envelope segments.
func (p *parser) loopSegment(i int32, id uint32, c, op uint8, start, end int) int32 {
	ix := p.ix
	ix.sep = p.d.Element
	if c&clsOpens != 0 {
		return ix.opener(i, id, op, start, end)
	}
	li, ok := int32(0), true
	if id == idHL {
		li, ok = ix.openHL(i, start, end)
	} else {
		li, ok = ix.assign(i, id, c, start, end)
	}
	if !ok {
		p.noParent(i, start, end)
	}
	return li
}

// txMode returns 0 outside a transaction set, else 1 plus its guide.
func (p *parser) txMode() uint8 {
	if !p.inST {
		return 0
	}
	return 1 + p.guide
}

// skipLayout returns where the segment after a terminator at pos-1
// starts: skipSpace, with the usual cases first (nothing, or a line feed,
// before the next segment).
func skipLayout(s string, pos int) int {
	if uint(pos+1) < uint(len(s)) {
		if c := s[pos]; c > ' ' {
			return pos
		} else if c == '\n' && s[pos+1] > ' ' {
			return pos + 1
		}
	}
	return skipSpace(s, pos)
}

// skipSpace returns the first index at or after pos of s that is not
// white space (isSpace), or len(s).
func skipSpace(s string, pos int) int {
	for uint(pos) < uint(len(s)) {
		if c := s[pos]; c > ' ' || spaceBits>>c&1 == 0 {
			break
		}
		pos++
	}
	return pos
}

// spaceBits has bit c set for each white space byte c (isSpace).
const spaceBits uint64 = 1<<'\r' | 1<<'\n' | 1<<' ' | 1<<'\t'

// elemBounds fills b with the bounds, as offsets in the input, of elements
// 1 to len(b)/2 of the segment s[start:end]; an element the segment lacks
// gets empty bounds at its end. The separators are found eight bytes at a
// time, several in one word.
func (p *parser) elemBounds(start, end int, b []int) {
	s, sep := p.s, p.d.Element
	const low7, highs = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	pat := uint64(sep) * 0x0101010101010101
	base := unsafe.Pointer(unsafe.StringData(s))
	j := -2 // b[j] is the start of the element being read; -2 in the ID
	i := start
words:
	for ; i < end && i+8 <= len(s); i += 8 {
		x := loadLE(unsafe.Add(base, i)) ^ pat
		// The high bit of each byte that is the separator, exactly.
		for t := ^((x & low7) + low7 | x) & highs; t != 0; t &= t - 1 {
			q := i + bits.TrailingZeros64(t)/8
			if q >= end {
				i = end // the rest of the word is past the segment
				break words
			}
			if j >= 0 {
				b[j+1] = q
			}
			if j += 2; j >= len(b) {
				return
			}
			b[j] = q + 1
		}
	}
	for ; i < end; i++ {
		if s[i] != sep {
			continue
		}
		if j >= 0 {
			b[j+1] = i
		}
		if j += 2; j >= len(b) {
			return
		}
		b[j] = i + 1
	}
	// The segment ends inside the element at b[j], and lacks those after.
	if j >= 0 {
		b[j+1] = end
	}
	for j += 2; j+1 < len(b); j += 2 {
		b[j], b[j+1] = end, end
	}
}

// sameSpan reports whether s[a:aEnd] equals s[b:bEnd], comparing eight
// bytes at a time rather than calling memequal: the texts the envelope
// checks compare (an ST's head and tail, ST02 and SE02) are a few bytes.
func sameSpan(s string, a, aEnd, b, bEnd int) bool {
	n := aEnd - a
	if n != bEnd-b {
		return false
	}
	base := unsafe.Pointer(unsafe.StringData(s))
	if n >= 8 {
		// Whole words, the last overlapping the one before it.
		for k := 0; k < n-8; k += 8 {
			if loadLE(unsafe.Add(base, a+k)) != loadLE(unsafe.Add(base, b+k)) {
				return false
			}
		}
		return loadLE(unsafe.Add(base, aEnd-8)) == loadLE(unsafe.Add(base, bEnd-8))
	}
	if max(a, b)+8 <= len(s) {
		// One word each, the bytes past n masked off.
		mask := uint64(1)<<(8*uint(n)) - 1
		return (loadLE(unsafe.Add(base, a))^loadLE(unsafe.Add(base, b)))&mask == 0
	}
	for k := 0; k < n; k++ {
		if s[a+k] != s[b+k] {
			return false
		}
	}
	return true
}

// elem returns element k of the segment s[start:end].
func (p *parser) elem(start, end, k int) string {
	v, _ := field(p.s[start:end], p.d.Element, k)
	return v
}

// segment runs the envelope checks for segment i, s[start:end].
func (p *parser) segment(i int32, start, end int) {
	// The usual ST (in a group, after the last set's SE) and SE (in a
	// set), by their first three bytes (packID's reading of them): a
	// short function, which spills little.
	if s := p.s; end-start >= 3 && s[start] == 'S' && s[start+2] == p.d.Element {
		if c := s[start+1]; c == 'T' && p.inGS && !p.inST {
			p.openST(i, start, end)
			return
		} else if c == 'E' && p.inST {
			p.closeST(i, start, end, true)
			return
		}
	}
	p.envelope(i, start, end)
}

// envelope runs the envelope checks for segment i, s[start:end], an
// envelope segment or one whose identifier is not valid.
func (p *parser) envelope(i int32, start, end int) {
	t := p.s[start:end]
	id := packID(t, p.d.Element)
	switch id {
	case idInvalid:
		p.find(i, start, end, strconv.Quote(preview(segmentID(t, p.d.Element)))+" is not a segment identifier (2 or 3 capital letters and digits, a letter first)")
	case idISA:
		p.closeOpen(i, start, end, true, true, true)
		p.inISA, p.isa, p.isaAt, p.isaEnd, p.groups = true, i, start, end, 0
	case idGS:
		if !p.inISA {
			p.find(i, start, end, "GS outside an interchange: no ISA is open")
		}
		p.closeOpen(i, start, end, true, true, false)
		p.inGS, p.gs, p.gsAt, p.gsEnd, p.sets = true, i, start, end, 0
		p.groups++
		p.version = p.elem(start, end, 8)
		p.guideFresh = false
		p.x.groups = append(p.x.groups, int32(start))
	case idST:
		if !p.inGS {
			p.find(i, start, end, "ST outside a functional group: no GS is open")
		}
		if p.inST {
			p.closeST(i, start, end, false)
		}
		p.openST(i, start, end)
	case idSE:
		if !p.inST {
			p.find(i, start, end, "SE without an open ST")
			return
		}
		p.closeST(i, start, end, true)
	case idGE:
		p.closeOpen(i, start, end, true, false, false)
		if !p.inGS {
			p.find(i, start, end, "GE without an open GS")
			return
		}
		p.closeGS(i, start, end, true)
	case idIEA:
		p.closeOpen(i, start, end, true, true, false)
		if !p.inISA {
			p.find(i, start, end, "IEA without an open ISA")
			return
		}
		p.closeISA(i, start, end, true)
	case idTA1:
		// Interchange acknowledgments sit between ISA and GS.
		if !p.inISA {
			p.find(i, start, end, "TA1 outside an interchange")
		}
	default:
		// Inside a transaction set, the parse loop reads the other
		// segments itself.
		if !p.inST {
			p.find(i, start, end, preview(segmentID(t, p.d.Element))+" outside a transaction set: no ST is open")
		}
	}
}

// openST opens the transaction set of the ST s[start:end], segment i.
func (p *parser) openST(i int32, start, end int) {
	p.inST, p.st = true, i
	p.sets++
	p.stFields(start, end)
	if len(p.x.sets) == 1 && cap(p.x.sets) < 64 {
		// Size the list from the first set: most files repeat sets of
		// about one size.
		first := p.x.sets[0]
		if n := len(p.s) / max(start-int(first), 1); n > 1 {
			grown := make([]int32, 1, min(n+16, len(p.s)/8+1))
			grown[0] = first
			p.x.sets = grown
		}
	}
	p.x.sets = append(p.x.sets, int32(start))
	p.hl.start()
	if p.ix != nil {
		if d := txDefOf(p.guide); p.ix.def != d {
			p.ix.def = d // usually the same: no write barrier
		}
		p.ix.startTx(p.guide, start)
	}
}

// stFields reads the ST s[start:end]: the bounds of ST02 (controlAt,
// controlEnd) and the transaction set's guide.
func (p *parser) stFields(start, end int) {
	s, sep := p.s, p.d.Element
	if p.guideFresh && sep == p.lastSep {
		// Most files repeat one ST but for ST02: when this one's text
		// through the separator after ST01, and from the separator after
		// ST02 on, is the last one's, ST01 and ST03 are too (and so is
		// GS08: no GS came since), and so is the guide. Those texts hold
		// the same separators where the last one's did, so ST02 starts
		// where it did, and ends at the next separator.
		at := start + int(p.stHead)
		if at <= end && sameSpan(s, start, at, int(p.lastST), int(p.lastST+p.stHead)) {
			q := at
			if at+8 <= len(s) {
				// The first separator in the eight bytes from at (ST02 is
				// usually shorter), exactly: the high bits of t.
				x := loadLE(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), at)) ^ uint64(sep)*0x0101010101010101
				t := ^((x & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f | x) & 0x8080808080808080
				q = min(at+bits.TrailingZeros64(t)>>3, end) // at+8 when t is 0
			}
			for q < end && s[q] != sep {
				q++
			}
			if sameSpan(s, q, end, int(p.lastTail), int(p.lastTailEnd)) {
				p.controlAt, p.controlEnd = int32(at), int32(q)
				p.guide = p.lastGuide
				return
			}
		}
	}
	var b [6]int // ST01..ST03
	p.elemBounds(start, end, b[:])
	p.controlAt, p.controlEnd = int32(b[2]), int32(b[3])
	p.lastGuide = guideFor(s[b[0]:b[1]], p.version, s[b[4]:b[5]])
	p.guide = p.lastGuide
	// The next ST is compared with this one when it has ST02: its head
	// is its text up to ST02 (through the separator after ST01, at b[1]).
	p.guideFresh = b[1] < end
	p.lastSep = sep
	p.lastST, p.stHead = int32(start), int32(b[2]-start)
	p.lastTail, p.lastTailEnd = int32(b[3]), int32(end)
}

// controlText returns ST02 of the open transaction set.
func (p *parser) controlText() string { return p.s[p.controlAt:p.controlEnd] }

// closeOpen closes, as missing their trailers, the open transaction set,
// group and interchange that segment i ends (as selected).
func (p *parser) closeOpen(i int32, start, end int, st, gs, isa bool) {
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
func (p *parser) closeST(i int32, start, end int, found bool) {
	p.inST = false
	if !found {
		p.find(i, start, end, "transaction set "+strconv.Quote(p.controlText())+" (ST at segment "+strconv.Itoa(int(p.st)+1)+") has no SE")
		return
	}
	count := int(i-p.st) + 1 // every segment from ST to SE
	s, sep := p.s, p.d.Element
	if sep-'0' > 9 && sep != 'S' && sep != 'E' && end-start > 3 {
		// The usual SE, "SE", the separator, SE01 in digits, the
		// separator and ST02, is checked without finding its elements:
		// the separator follows SE01's digits, and the text after it is
		// ST02 (which holds no separator). (segment, or packID, saw the
		// separator after "SE".)
		v, k := 0, start+3
		for ; k < end && k < start+12; k++ {
			d := s[k] - '0'
			if d > 9 {
				break
			}
			v = v*10 + int(d)
		}
		if k > start+3 && k < end && s[k] == sep && v == count &&
			sameSpan(s, k+1, end, int(p.controlAt), int(p.controlEnd)) {
			return
		}
	}
	var b [4]int // SE01, SE02
	p.elemBounds(start, end, b[:])
	if se01 := s[b[0]:b[1]]; !countIs(se01, count) {
		p.find(i, start, end, "SE01 counts "+strconv.Quote(se01)+" segments, but transaction set "+strconv.Quote(p.controlText())+" has "+strconv.Itoa(count)+" from ST to SE")
	}
	if se02 := s[b[2]:b[3]]; !sameSpan(s, b[2], b[3], int(p.controlAt), int(p.controlEnd)) {
		p.find(i, start, end, "SE02 "+strconv.Quote(se02)+" does not match ST02 "+strconv.Quote(p.controlText()))
	}
}

func (p *parser) closeGS(i int32, start, end int, found bool) {
	p.inGS = false
	gs06 := p.elem(p.gsAt, p.gsEnd, 6)
	if !found {
		p.find(i, start, end, "functional group "+strconv.Quote(gs06)+" (GS at segment "+strconv.Itoa(int(p.gs)+1)+") has no GE")
		return
	}
	if ge01 := p.elem(start, end, 1); !countIs(ge01, p.sets) {
		p.find(i, start, end, "GE01 counts "+strconv.Quote(ge01)+" transaction sets, but group "+strconv.Quote(gs06)+" has "+strconv.Itoa(p.sets))
	}
	if ge02 := p.elem(start, end, 2); !sameNumber(ge02, gs06) {
		p.find(i, start, end, "GE02 "+strconv.Quote(ge02)+" does not match GS06 "+strconv.Quote(gs06))
	}
}

func (p *parser) closeISA(i int32, start, end int, found bool) {
	p.inISA = false
	isa13 := p.elem(p.isaAt, p.isaEnd, 13)
	if !found {
		p.find(i, start, end, "interchange "+strconv.Quote(isa13)+" (ISA at segment "+strconv.Itoa(int(p.isa)+1)+") has no IEA")
		return
	}
	if iea01 := p.elem(start, end, 1); !countIs(iea01, p.groups) {
		p.find(i, start, end, "IEA01 counts "+strconv.Quote(iea01)+" functional groups, but interchange "+strconv.Quote(isa13)+" has "+strconv.Itoa(p.groups))
	}
	if iea02 := p.elem(start, end, 2); !sameNumber(iea02, isa13) {
		p.find(i, start, end, "IEA02 "+strconv.Quote(iea02)+" does not match ISA13 "+strconv.Quote(isa13))
	}
}

// finish reports the trailers the input ends without.
func (p *parser) finish() {
	last := int32(p.x.nsegs - 1)
	t, _ := p.x.segmentAt(int32(p.lastStart))
	lastID := segmentID(t, p.d.Element)
	if p.inST {
		p.inST = false
		p.findAt(len(p.s), last, lastID, "the input ends before the SE of transaction set "+strconv.Quote(p.controlText())+" (ST at segment "+strconv.Itoa(int(p.st)+1)+")")
	}
	if p.inGS {
		p.findAt(len(p.s), last, lastID, "the input ends before the GE of functional group "+strconv.Quote(p.elem(p.gsAt, p.gsEnd, 6))+" (GS at segment "+strconv.Itoa(int(p.gs)+1)+")")
	}
	if p.inISA {
		p.findAt(len(p.s), last, lastID, "the input ends before the IEA of interchange "+strconv.Quote(p.elem(p.isaAt, p.isaEnd, 13))+" (ISA at segment "+strconv.Itoa(int(p.isa)+1)+")")
	}
}

// countIs reports whether the count element s holds n.
func countIs(s string, n int) bool {
	if len(s) > 0 && len(s) < 10 {
		// Digits only, the usual: no call.
		v := 0
		for i := 0; i < len(s); i++ {
			d := s[i] - '0'
			if d > 9 {
				return countIsSlow(s, n)
			}
			v = v*10 + int(d)
		}
		return v == n
	}
	return countIsSlow(s, n)
}

// countIsSlow is countIs by strconv.Atoi, which also reads a sign.
func countIsSlow(s string, n int) bool {
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

func (p *parser) find(i int32, start, end int, msg string) {
	p.findAt(start, i, segmentID(p.s[start:end], p.d.Element), msg)
}

func (p *parser) findAt(offset int, i int32, id, msg string) {
	n := len(p.x.findings)
	if n > maxFindings {
		return
	}
	if n == maxFindings {
		msg = "more than " + strconv.Itoa(maxFindings) + " findings; the rest are not listed"
	}
	if !validID(id) {
		id = "" // binary garbage stays out of the position; the message quotes it
	}
	p.x.findings = append(p.x.findings, Finding{Location: assert.Location{Segment: int(i) + 1}, ID: id, Offset: offset, Message: msg})
}

// locate sorts the findings by offset and fills in their lines and columns
// (assert.LineColumn) in one pass over the input: each finding is located
// from the start of the line of the one before.
func (x *Interchange) locate() {
	f := x.findings
	sortFindings(f)
	data := unsafe.Slice(unsafe.StringData(x.data), len(x.data))
	from, line := 0, 1 // from starts line `line`
	for k := range f {
		off := min(f[k].Offset, len(data))
		ls := lineStart(data, off)
		if ls > from {
			l, _ := assert.LineColumn(data[from:], ls-from)
			line += l - 1
			from = ls
		}
		l, c := assert.LineColumn(data[from:], off-from)
		f[k].Line, f[k].Column = line+l-1, c
	}
}

// lineStart returns the offset where the line holding data[off] starts: just
// after the LF, CR or CRLF before it (the LF of a CRLF belongs to the line
// the CR ends).
func lineStart(data []byte, off int) int {
	i := off - 1
	for i >= 0 && data[i] != '\n' && data[i] != '\r' {
		i--
	}
	if i >= 0 && i == off-1 && data[i] == '\r' && off < len(data) && data[off] == '\n' {
		// off is the LF of a CRLF: it is on the CR's line.
		return lineStart(data, i)
	}
	return i + 1
}

// sortFindings sorts by offset, stably (insertion sort: findings arrive
// nearly in order).
func sortFindings(f []Finding) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j].Offset < f[j-1].Offset; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}

// Delimiters returns the delimiters of the first interchange.
func (x *Interchange) Delimiters() Delimiters { return x.delims[0] }

// Len returns the number of segments.
func (x *Interchange) Len() int { return x.nsegs }

// Segment returns segment i (0-based, in file order). It panics when i is
// out of range, as indexing a slice does. The first call builds the
// segment index.
func (x *Interchange) Segment(i int) Segment {
	_ = x.segments()[i]
	return Segment{x: x, i: int32(i)}
}

// Transactions returns the transaction sets in file order.
func (x *Interchange) Transactions() []Transaction {
	x.txs.once.Do(func() {
		if len(x.sets) == 0 {
			return
		}
		list := make([]Transaction, len(x.sets))
		for k := range x.sets {
			list[k] = x.transaction(k)
		}
		// The segment indexes, by a scan that ends each set where the
		// parse did: at its SE, before the ISA, GS, GE, IEA or ST that
		// shows the SE is missing, or at the last segment.
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
			switch packID(x.data[start:end], sc.d.Element) {
			case idSE:
				list[open].End, open = i, -1
			case idISA, idGS, idGE, idIEA:
				list[open].End, open = i-1, -1
			}
		}
		if open >= 0 {
			list[open].End = i
		}
		x.txs.list = list
	})
	return x.txs.list
}

// transaction builds the exported form of transaction set k, without its
// segment indexes.
func (x *Interchange) transaction(k int) Transaction {
	code, control, version, _ := x.setInfo(k)
	return Transaction{Code: code, Control: control, Version: version}
}

// Findings returns what is wrong with the envelopes and the HL hierarchy,
// in file order; nil when nothing is.
func (x *Interchange) Findings() []Finding { return x.findings }

// Segment is one segment of an Interchange.
type Segment struct {
	x *Interchange
	i int32
}

func (s Segment) seg() segment { return s.x.index.segs[s.i] }

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
		return loopNames[s.x.index.loops[l].name]
	}
	return ""
}

// LoopPath returns the loops the segment is nested in, outermost first,
// joined by "/", e.g. "2000C/2100C/2110C".
func (s Segment) LoopPath() string {
	var ids []string
	loops := s.x.index.loops
	for l := s.seg().loop; l >= 0; l = loops[l].parent {
		id := loopNames[loops[l].name]
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
