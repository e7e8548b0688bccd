package hl7

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"math"
	"sync"

	"github.com/assaykit/assay/assert"
)

// Errors a ParseError wraps, for callers that branch on the kind of
// problem (errors.Is).
var (
	// ErrHeader: a header segment (MSH, BHS, FHS) whose delimiters cannot
	// be read: no field separator, fewer than 2 or more than 5 encoding
	// characters, or one that is repeated or not allowed.
	ErrHeader = errors.New("unreadable header")
	// ErrNoMessage: the input holds no MSH segment.
	ErrNoMessage = errors.New("no MSH segment")
	// ErrStructure: a segment out of place (before the first header,
	// between messages, after the file trailer), a second FHS, a trailer
	// without its header, or a segment whose ID is not three upper-case
	// letters or digits.
	ErrStructure = errors.New("malformed segment structure")
	// ErrTooLarge: the input is larger than the parser can address (2 GiB).
	ErrTooLarge = errors.New("input too large")
)

// ParseError is a problem with an HL7 input, located in it.
type ParseError struct {
	// Location says where: Segment is the 1-based number of the segment in
	// the input (blank lines not counted; 0 when the problem is not in one
	// segment), Line and Column are 1-based (assert.LineColumn: CR, LF and
	// CRLF each end a line; columns count characters), and File names the
	// file when a source read one.
	Location assert.Location
	// Name is the segment's ID as written (its first three bytes), when
	// there is a segment.
	Name string
	// Offset is the 0-based byte offset of the problem in the input.
	Offset int
	// Err says what is wrong; it wraps ErrHeader, ErrNoMessage,
	// ErrStructure or ErrTooLarge.
	Err error
}

// Error renders the problem at its location: "hl7: LINE:COL: segment N: what".
func (e *ParseError) Error() string { return "hl7: " + e.Location.Prefix(e.Err.Error()) }

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// kinds of segment the structure checks care about.
const (
	kindOther uint8 = iota
	kindMSH
	kindBHS
	kindBTS
	kindFHS
	kindFTS
)

// segment locates one segment in the input: data[start:end] is the segment
// without its terminator (termEnd finds the terminator's end). id is its
// three-byte ID packed into an integer, so that a path compares IDs without
// building strings; d are the delimiters of the header in force.
type segment struct {
	start, end int32
	id         uint32
	d          Delimiters
	kind       uint8
}

// termEnd returns the end of the terminator of the segment that ends at
// end: CR, CRLF or LF (in a frame read with CR terminators, an LF is a
// terminator only right before a CR); nothing before a framing byte or at
// the end of the input.
func termEnd(data []byte, end int32) int32 {
	i := int(end)
	if i < len(data) {
		switch data[i] {
		case '\r':
			i++
			if i < len(data) && data[i] == '\n' {
				i++
			}
		case '\n':
			// LF CR is one line break, as CRLF is.
			i++
			if i < len(data) && data[i] == '\r' {
				i++
			}
		}
	}
	return int32(i)
}

// packID packs a three-byte segment ID.
func packID(b0, b1, b2 byte) uint32 { return uint32(b0)<<16 | uint32(b1)<<8 | uint32(b2) }

var (
	idMSH = packID('M', 'S', 'H')
	idBHS = packID('B', 'H', 'S')
	idBTS = packID('B', 'T', 'S')
	idFHS = packID('F', 'H', 'S')
	idFTS = packID('F', 'T', 'S')
)

// Batch is everything one input holds, read as one sequence of segments:
// optional FHS and BHS headers, one or more messages, and the BTS and FTS
// trailers. A plain message parses as a Batch of one message with no
// headers; several messages back to back parse as a Batch of several.
//
// A Batch is a view of the bytes it was parsed from: it copies nothing, so
// those bytes must not change while it is in use. It is safe for
// concurrent reads.
type Batch struct {
	data     []byte
	segs     []segment
	messages []Message

	// idx groups the segments by ID: built once, on the first path read
	// of a large batch, so that reading a segment by ID and occurrence
	// does not scan from the start.
	indexOnce sync.Once
	idx       *segIndex
}

// Message is one HL7 v2 message: an MSH segment and the segments up to the
// next header or trailer. It is a view of the bytes it was parsed from.
type Message struct {
	batch *Batch
	segs  []segment
	first int // position of segs[0] in batch.segs
	index int
}

// maxInput is the largest input the parser addresses (offsets are int32).
const maxInput = math.MaxInt32

const (
	mllpStart = 0x0B // MLLP start block
	mllpEnd   = 0x1C // MLLP end block (followed by CR)
)

// Parse reads an HL7 v2 input: one message, several back to back, or a
// batch or file (FHS/BHS ... BTS/FTS), MLLP-framed or not (0x0B before a
// message, 0x1C and CR after it; the framing is stripped, so one input may
// hold several frames).
//
// Segment terminators are chosen per frame (per input when it is not
// framed): when the frame holds a CR, segments end at CR or CRLF (or LF
// CR) and a lone LF is data, as strict HL7 reads it, except at the end
// of the frame or input, where trailing LFs end the last segment;
// otherwise they end at LF. Whitespace at the start of a segment (spaces, tabs, a stray LF) and
// a UTF-8 byte-order mark are skipped, and blank lines are ignored.
//
// Each header (FHS, BHS, MSH) declares the delimiters of the segments that
// follow it. An input with no MSH, a header whose delimiters cannot be
// read, a segment before the first header or out of place in the batch
// structure, or a segment ID that is not three upper-case letters or digits
// is a *ParseError that locates the segment. Missing BTS and FTS trailers
// are accepted, and trailer counts are not checked.
//
// Parse keeps slices of data (it copies nothing); it allocates a constant
// number of times per input, never per segment or field.
func Parse(data []byte) (*Batch, error) {
	if len(data) > maxInput {
		return nil, &ParseError{Err: ErrTooLarge}
	}
	p := parser{data: data}
	if err := p.run(); err != nil {
		return nil, err
	}
	b := &Batch{data: data, segs: p.segs, messages: make([]Message, 0, p.msgs)}
	start := -1
	for i := range b.segs {
		if b.segs[i].kind != kindOther {
			if start >= 0 {
				b.messages = append(b.messages, Message{batch: b, segs: b.segs[start:i:i], first: start, index: len(b.messages)})
				start = -1
			}
			if b.segs[i].kind == kindMSH {
				start = i
			}
		}
	}
	if start >= 0 {
		n := len(b.segs)
		b.messages = append(b.messages, Message{batch: b, segs: b.segs[start:n:n], first: start, index: len(b.messages)})
	}
	return b, nil
}

// rebase points the batch (and so its messages) at data, a copy of the
// bytes it was parsed from.
func (b *Batch) rebase(data []byte) {
	b.data = data
}

// ParseMessage parses an input that holds exactly one message (batch and
// file wrappers allowed). An input with several is a *ParseError wrapping
// ErrStructure.
func ParseMessage(data []byte) (*Message, error) {
	b, err := Parse(data)
	if err != nil {
		return nil, err
	}
	if n := len(b.messages); n != 1 {
		m := &b.messages[1]
		seg := m.segs[0]
		p := parser{data: data}
		return nil, p.errorAt(m.first+1, data[seg.start:seg.end], int(seg.start), fmt.Errorf("%w: the input holds %d messages, not one", ErrStructure, n))
	}
	return &b.messages[0], nil
}

type parser struct {
	data []byte
	segs []segment
	msgs int
	// nextCR, nextLF and nextEB cache the positions of the next CR, LF
	// and end block at or after the scan position (len(data) when there is
	// none), so each byte is searched once for each.
	nextCR, nextLF, nextEB int
	// noCR: the input holds no CR, so every frame ends segments at LF.
	noCR bool
	// visit, when set, receives each segment instead of the table.
	visit func(sg segment)
}

// Structure states.
const (
	stStart   = iota // nothing yet
	stFile           // after FHS, before a batch or message
	stBatch          // after BHS, before its first message
	stMessage        // inside a message
	stBetween        // after BTS, before the next BHS or FTS
	stEnd            // after FTS
)

// region returns the end of the frame region that starts at pos (the next
// MLLP end block after pos, or the end of the input) and whether its
// segments end at CR: whether it holds a CR other than the one that
// follows an end block. A region is a frame with the whitespace after it:
// start blocks need no search, they are skipped where a segment starts.
func (p *parser) region(pos int) (end int, cr bool) {
	data := p.data
	from := pos
	if data[pos] == mllpEnd {
		from++
	}
	if p.nextEB < from {
		p.nextEB = indexFrom(data, from, mllpEnd)
	}
	end = p.nextEB
	if p.noCR {
		return end, false
	}
	if p.nextCR < pos {
		p.nextCR = indexFrom(data, pos, '\r')
	}
	c := p.nextCR
	if c == pos+1 && data[pos] == mllpEnd {
		c = indexFrom(data[:end], c+1, '\r')
	}
	return end, c < end
}

func (p *parser) run() error {
	data := p.data
	p.nextCR, p.nextLF, p.nextEB = -1, -1, -1
	// Size the segment table from the number of terminators, counted once.
	p.nextCR = indexFrom(data, 0, '\r')
	p.noCR = p.nextCR == len(data)
	if p.visit == nil {
		var n int
		if !p.noCR {
			n = 1 + bytes.Count(data[p.nextCR+1:], []byte{'\r'})
		} else {
			n = bytes.Count(data, []byte{'\n'})
		}
		p.segs = make([]segment, 0, n+1)
	}
	var (
		state                    = stStart
		fileD, batchD, messageD  Delimiters
		inFile, inBatch, started bool
		count                    int
		regionEnd                int
		cr                       bool
	)
	pos := 0
	for pos < len(data) {
		if pos >= regionEnd {
			regionEnd, cr = p.region(pos)
		}
		// The line: up to the terminator of the region's mode, or the
		// region's end.
		var e, next int
		if cr {
			if p.nextCR < pos {
				p.nextCR = indexFrom(data, pos, '\r')
			}
			e = min(p.nextCR, regionEnd)
			next = e
			if e < regionEnd {
				if e > pos && data[e-1] == '\n' {
					// LF CR: the LF ends the segment, and the CR is a
					// blank line after it.
					e--
					next = e + 1
				} else {
					next++
					if next < regionEnd && data[next] == '\n' {
						next++
					}
				}
			}
		} else {
			if p.nextLF < pos {
				p.nextLF = indexFrom(data, pos, '\n')
			}
			e = min(p.nextLF, regionEnd)
			next = e
			if e < regionEnd {
				next++
			}
		}
		s, t := pos, e
		pos = next
		if cr && e == regionEnd {
			// The frame's or file's last segment: trailing LFs (and CRs)
			// end it and are not data, as at any segment's end (rule 9).
			for t > s && (data[t-1] == '\n' || data[t-1] == '\r') {
				t--
			}
		}
		// Skip framing, whitespace and a byte-order mark at the start.
		for s < t {
			switch data[s] {
			case mllpStart, mllpEnd, ' ', '\t', '\n', '\r':
				s++
				continue
			case 0xEF:
				if t-s >= 3 && data[s+1] == 0xBB && data[s+2] == 0xBF {
					s += 3
					continue
				}
			}
			break
		}
		for t > s && data[t-1] == mllpStart {
			t--
		}
		if s == t { // a blank line
			continue
		}
		seg := data[s:t]
		count++
		sg := segment{start: int32(s), end: int32(t)}
		if !validID(seg) {
			return p.errorAt(count, seg, s, fmt.Errorf("%w: segment ID %q is not three upper-case letters or digits", ErrStructure, seg[:min(len(seg), 3)]))
		}
		sg.id = packID(seg[0], seg[1], seg[2])
		fail := func(err error) error { return p.errorAt(count, seg, s, err) }
		switch sg.id {
		case idFHS:
			if state != stStart {
				return fail(fmt.Errorf("%w: FHS must be the first segment and appear once", ErrStructure))
			}
			d, off, err := readDelimiters(seg)
			if err != nil {
				return p.errorAt(count, seg, s+off, err)
			}
			fileD, messageD, batchD = d, d, d
			inFile, state, sg.kind = true, stFile, kindFHS
		case idBHS:
			switch state {
			case stBatch, stMessage:
				if inBatch {
					return fail(fmt.Errorf("%w: BHS inside a batch (the previous batch has no BTS)", ErrStructure))
				}
				return fail(fmt.Errorf("%w: BHS after a message outside a batch", ErrStructure))
			case stEnd:
				return fail(fmt.Errorf("%w: BHS after FTS", ErrStructure))
			}
			d, off, err := readDelimiters(seg)
			if err != nil {
				return p.errorAt(count, seg, s+off, err)
			}
			batchD, messageD = d, d
			inBatch, state, sg.kind = true, stBatch, kindBHS
		case idMSH:
			if state == stEnd {
				return fail(fmt.Errorf("%w: MSH after FTS", ErrStructure))
			}
			if state == stBetween && inFile {
				return fail(fmt.Errorf("%w: MSH between batches (after BTS, before the next BHS)", ErrStructure))
			}
			d, off, err := readDelimiters(seg)
			if err != nil {
				return p.errorAt(count, seg, s+off, err)
			}
			messageD = d
			state, sg.kind, started = stMessage, kindMSH, true
			p.msgs++
		case idBTS:
			if !inBatch {
				return fail(fmt.Errorf("%w: BTS without BHS", ErrStructure))
			}
			messageD = batchD
			inBatch, state, sg.kind = false, stBetween, kindBTS
		case idFTS:
			if !inFile {
				return fail(fmt.Errorf("%w: FTS without FHS", ErrStructure))
			}
			if state == stEnd {
				return fail(fmt.Errorf("%w: a second FTS", ErrStructure))
			}
			messageD = fileD
			inFile, inBatch, state, sg.kind = false, false, stEnd, kindFTS
		default:
			switch state {
			case stStart:
				return fail(fmt.Errorf("%w: %s before the first header (MSH, BHS or FHS)", ErrStructure, seg[:3]))
			case stFile, stBatch:
				return fail(fmt.Errorf("%w: %s before the first MSH", ErrStructure, seg[:3]))
			case stBetween:
				return fail(fmt.Errorf("%w: %s outside a message (after BTS)", ErrStructure, seg[:3]))
			case stEnd:
				return fail(fmt.Errorf("%w: %s after FTS", ErrStructure, seg[:3]))
			}
			if len(seg) > 3 && seg[3] != messageD.Field {
				return fail(fmt.Errorf("%w: segment ID %q is followed by %s, not the field separator %s", ErrStructure, seg[:3], quoteByte(seg[3]), quoteByte(messageD.Field)))
			}
		}
		sg.d = messageD
		if p.visit != nil {
			p.visit(sg)
		} else {
			p.segs = append(p.segs, sg)
		}
	}
	if !started {
		if count == 0 {
			return &ParseError{Err: fmt.Errorf("%w: the input is empty", ErrNoMessage)}
		}
		return &ParseError{Err: fmt.Errorf("%w in %d segments", ErrNoMessage, count)}
	}
	return nil
}

func indexFrom(data []byte, pos int, c byte) int {
	if pos >= len(data) {
		return len(data)
	}
	if i := bytes.IndexByte(data[pos:], c); i >= 0 {
		return pos + i
	}
	return len(data)
}

// validID reports whether seg starts with a segment ID: three upper-case
// ASCII letters or digits.
func validID(seg []byte) bool {
	if len(seg) < 3 {
		return false
	}
	for _, c := range seg[:3] {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// errorAt builds the ParseError of the count'th segment, seg, for a
// problem at byte offset off of the input.
func (p *parser) errorAt(count int, seg []byte, off int, err error) error {
	line, col := assert.LineColumn(p.data, off)
	return &ParseError{
		Location: assert.Location{Line: line, Column: col, Segment: count},
		Name:     string(seg[:min(len(seg), 3)]),
		Offset:   off,
		Err:      err,
	}
}

// Messages returns the batch's messages in input order.
func (b *Batch) Messages() []*Message {
	out := make([]*Message, len(b.messages))
	for i := range b.messages {
		out[i] = &b.messages[i]
	}
	return out
}

// All iterates over the batch's messages in input order, without building
// a slice.
func (b *Batch) All() iter.Seq2[int, *Message] {
	return func(yield func(int, *Message) bool) { b.each(yield) }
}

func (b *Batch) each(yield func(int, *Message) bool) {
	for i := range b.messages {
		if !yield(i, &b.messages[i]) {
			return
		}
	}
}

// Len returns the number of messages in the batch.
func (b *Batch) Len() int { return len(b.messages) }

// Message returns the i'th message (0-based); like a slice index, it
// panics when i is out of range.
func (b *Batch) Message(i int) *Message { return &b.messages[i] }

// Bytes returns the input the batch was parsed from.
func (b *Batch) Bytes() []byte { return b.data }

// Segments iterates over every segment of the batch in order: headers,
// messages' segments and trailers.
func (b *Batch) Segments() iter.Seq[Segment] { return segmentsOf(b.data, b.segs) }

// Bytes returns the message exactly as it was written: from the first byte
// of its MSH to the terminator of its last segment, blank lines between its
// segments included and MLLP framing excluded. A parsed message is never
// altered, so this is its byte-for-byte re-encoding.
func (m *Message) Bytes() []byte {
	if len(m.segs) == 0 {
		return nil
	}
	data := m.batch.data
	return data[m.segs[0].start:termEnd(data, m.segs[len(m.segs)-1].end)]
}

// bytes returns the input the message was parsed from.
func (m *Message) bytes() []byte {
	if m.batch == nil {
		return nil
	}
	return m.batch.data
}

// Index returns the message's 0-based position in the input it was parsed
// from.
func (m *Message) Index() int { return m.index }

// Delimiters returns the delimiters the message's MSH declares.
func (m *Message) Delimiters() Delimiters {
	if len(m.segs) == 0 {
		return Delimiters{}
	}
	return m.segs[0].d
}

// Segments iterates over the message's segments in order, MSH first.
func (m *Message) Segments() iter.Seq[Segment] { return segmentsOf(m.bytes(), m.segs) }

// Len returns the number of segments in the message.
func (m *Message) Len() int { return len(m.segs) }

// Segment returns the message's i'th segment (0-based, MSH is 0); like a
// slice index, it panics when i is out of range.
func (m *Message) Segment(i int) Segment { return segmentAt(m.bytes(), &m.segs[i]) }

// ControlID returns MSH.10, the message control id, as text.
func (m *Message) ControlID() string { return m.Get(pathControlID).String() }

// Segment is one segment of a parsed input.
type Segment struct {
	raw []byte
	d   Delimiters
	hdr bool
}

// Name returns the segment ID, such as "PID".
func (s Segment) Name() string { return string(s.raw[:3]) }

// Bytes returns the segment as written, without its terminator.
func (s Segment) Bytes() []byte { return s.raw }

// Delimiters returns the delimiters in force for the segment.
func (s Segment) Delimiters() Delimiters { return s.d }

func segmentAt(data []byte, sg *segment) Segment {
	return Segment{raw: data[sg.start:sg.end], d: sg.d, hdr: header(sg.kind)}
}

func segmentsOf(data []byte, segs []segment) iter.Seq[Segment] {
	return func(yield func(Segment) bool) { eachSegment(data, segs, yield) }
}

func eachSegment(data []byte, segs []segment, yield func(Segment) bool) {
	for i := range segs {
		if !yield(segmentAt(data, &segs[i])) {
			return
		}
	}
}
