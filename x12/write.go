package x12

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ErrDelimiter is wrapped by the *WriteError of a value that holds one of
// the interchange's delimiters. X12 has no escape: such a value cannot be
// written with those delimiters, so the Writer refuses it rather than
// change it.
var ErrDelimiter = errors.New("a value holds a delimiter")

// WriteError reports what a Writer could not write, and where.
type WriteError struct {
	// Segment is the 1-based position of the segment in the interchange
	// (the ISA is 1); ID is its identifier.
	Segment int
	ID      string
	// Element is the 1-based position of the element at fault, 0 when
	// the problem is the segment itself (or the delimiters).
	Element int
	// Value is the value refused, if one was.
	Value string
	// Msg says what is wrong.
	Msg string
	// Err is ErrDelimiter for a value that holds a delimiter, else nil.
	Err error
}

func (e *WriteError) Error() string {
	var b strings.Builder
	b.WriteString("x12: writing segment ")
	b.WriteString(strconv.Itoa(e.Segment))
	if e.ID != "" {
		b.WriteString(" (")
		b.WriteString(e.ID)
		if e.Element > 0 {
			b.WriteString(two(e.Element))
		}
		b.WriteString(")")
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Value != "" {
		b.WriteString(": ")
		b.WriteString(strconv.Quote(preview(e.Value)))
	}
	return b.String()
}

func (e *WriteError) Unwrap() error { return e.Err }

// Header holds the ISA elements of an interchange a Writer builds, other
// than the delimiters (ISA11 and ISA16 come from Delimiters).
type Header struct {
	// AuthorizationQualifier and Authorization are ISA01 and ISA02;
	// "" means "00" and blanks.
	AuthorizationQualifier, Authorization string
	// SecurityQualifier and Security are ISA03 and ISA04; "" means "00"
	// and blanks.
	SecurityQualifier, Security string
	// SenderQualifier, Sender, ReceiverQualifier and Receiver are ISA05
	// to ISA08; a qualifier "" means "ZZ" (mutually defined). The IDs are
	// padded with blanks to 15 characters.
	SenderQualifier, Sender     string
	ReceiverQualifier, Receiver string
	// Time gives ISA09 (YYMMDD) and ISA10 (HHMM), as written (convert it
	// to the zone you mean first).
	Time time.Time
	// Version is ISA12; "" means "00501".
	Version string
	// Control is ISA13, 0 to 999999999, written with nine digits; IEA02
	// repeats it.
	Control int64
	// AckRequested is ISA14: true writes "1", false "0".
	AckRequested bool
	// Usage is ISA15, "P" (production) or "T" (test); "" means "P".
	Usage string
}

// Group holds the GS elements of a functional group.
type Group struct {
	// Code is GS01, the functional identifier code: "HB" for a 271, "HN"
	// for a 277, "HI" for a 278, "FA" for a 999...
	Code string
	// Sender and Receiver are GS02 and GS03.
	Sender, Receiver string
	// Time gives GS04 (CCYYMMDD) and GS05 (HHMM).
	Time time.Time
	// Control is GS06, 1 to 999999999; GE02 repeats it.
	Control int64
	// Version is GS08, e.g. "005010X279A1". From 005010 on, every
	// transaction set of the group repeats it as its ST03.
	Version string
}

// Element is one element of a segment as SegmentOf takes it: its
// repetitions, each a list of components. Element{{"HC", "73721"}} is the
// composite HC:73721; Element{{"30"}, {"MR"}} the repeated 30^MR. The
// zero Element is an empty element.
type Element [][]string

// Simple is an element of one value.
func Simple(v string) Element { return Element{{v}} }

// Composite is a composite element of components.
func Composite(components ...string) Element { return Element{components} }

// Repeated is an element of simple values, each a repetition.
func Repeated(values ...string) Element {
	e := make(Element, len(values))
	for i, v := range values {
		e[i] = []string{v}
	}
	return e
}

// Writer builds one X12 interchange: it writes the ISA from a Header, the
// GS/GE and ST/SE envelopes with their control numbers, and counts (SE01
// the segments from ST to SE, GE01 the transaction sets, IEA01 the
// groups), so that its caller writes only the segments in between.
//
// Its methods do not return errors: the first problem (a value holding a
// delimiter, a segment outside a transaction set, an ISA element that does
// not fit its width...) is kept, everything after it is ignored, and Err
// and Bytes report it as a *WriteError. What a Writer builds parses with
// Parse without findings, as long as the caller's HL segments name
// parents that come before them.
type Writer struct {
	d   Delimiters
	buf []byte
	err error

	segs      int // segments written, the ISA included
	isaCtrl   string
	groups    int
	inGS      bool
	gsCtrl    string
	gsVersion string
	sets      int
	inST      bool
	stCtrl    string
	stSegs    int // segments of the open set, its ST included
	done      bool
}

// NewWriter starts an interchange with delimiters d and the ISA that h
// describes. d.Repetition 0 means no repetition separator (ISA11 is then
// "U"); a repetition separator needs version 00402 or later. The
// delimiters must be distinct ASCII characters, none a letter, a digit or
// a space.
func NewWriter(d Delimiters, h Header) *Writer {
	w := &Writer{d: d, buf: make([]byte, 0, 1024)}
	w.segs = 1
	if msg := checkDelimiters(d); msg != "" {
		w.fail(0, "", msg, "", nil)
		return w
	}
	version := or(h.Version, "00501")
	isa11 := "U"
	if d.Repetition != 0 {
		if version < "00402" {
			w.fail(11, "", "a repetition separator needs ISA12 00402 or later", version, nil)
			return w
		}
		isa11 = string(d.Repetition)
	}
	if h.Control < 0 || h.Control > 999999999 {
		w.fail(13, "", "ISA13 is 0 to 999999999", strconv.FormatInt(h.Control, 10), nil)
		return w
	}
	ack := "0"
	if h.AckRequested {
		ack = "1"
	}
	w.isaCtrl = pad9(h.Control)
	elems := [16]string{
		or(h.AuthorizationQualifier, "00"), h.Authorization,
		or(h.SecurityQualifier, "00"), h.Security,
		or(h.SenderQualifier, "ZZ"), h.Sender,
		or(h.ReceiverQualifier, "ZZ"), h.Receiver,
		h.Time.Format("060102"), h.Time.Format("1504"),
		isa11, version, w.isaCtrl, ack, or(h.Usage, "P"), string(d.Component),
	}
	w.buf = append(w.buf, "ISA"...)
	for i, v := range elems {
		width := isaWidths[i]
		switch {
		case len(v) > width:
			w.fail(i+1, "ISA", "ISA"+two(i+1)+" is at most "+strconv.Itoa(width)+" characters", v, nil)
			return w
		case len(v) < width && i != 1 && i != 3 && i != 5 && i != 7:
			// Only the IDs and the authorization and security
			// information are padded; a code must fill its width.
			w.fail(i+1, "ISA", "ISA"+two(i+1)+" is "+strconv.Itoa(width)+" characters", v, nil)
			return w
		case i != 10 && i != 15 && w.holdsDelimiter(v):
			// ISA11 and ISA16 are delimiters themselves.
			w.fail(i+1, "ISA", "ISA"+two(i+1)+" holds a delimiter", v, ErrDelimiter)
			return w
		}
		w.buf = append(w.buf, d.Element)
		w.buf = append(w.buf, v...)
		for range width - len(v) {
			w.buf = append(w.buf, ' ')
		}
	}
	w.buf = append(w.buf, d.Segment)
	return w
}

// checkDelimiters says what is wrong with d, or "".
func checkDelimiters(d Delimiters) string {
	all := []byte{d.Element, d.Component, d.Segment}
	if d.Repetition != 0 {
		all = append(all, d.Repetition)
	}
	for i, c := range all {
		switch {
		case c == 0 && i < 3:
			return "the element separator, component separator and segment terminator are required"
		case c >= 0x80:
			return "a delimiter must be an ASCII character, not byte " + strconv.Itoa(int(c))
		case isAlnum(c) || c == ' ':
			return "a delimiter may not be a letter, a digit or a space: " + strconv.QuoteRune(rune(c))
		}
		for _, o := range all[:i] {
			if o == c {
				return "the delimiters must differ: " + strconv.QuoteRune(rune(c)) + " is given twice"
			}
		}
	}
	return ""
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// pad9 writes n with nine digits, as ISA13 and IEA02 are.
func pad9(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", max(0, 9-len(s))) + s
}

// Delimiters returns the delimiters the Writer writes with.
func (w *Writer) Delimiters() Delimiters { return w.d }

// Err returns the first problem the Writer met, a *WriteError, or nil.
func (w *Writer) Err() error { return w.err }

func (w *Writer) fail(elem int, id, msg, value string, err error) {
	if w.err == nil {
		w.err = &WriteError{Segment: w.segs, ID: id, Element: elem, Value: value, Msg: msg, Err: err}
	}
}

// usable reports whether the Writer may write more, failing when it is
// finished.
func (w *Writer) usable(id string) bool {
	if w.err != nil {
		return false
	}
	if w.done {
		w.fail(0, id, "the interchange is finished (Bytes was called)", "", nil)
		return false
	}
	return true
}

func (w *Writer) holdsDelimiter(v string) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case w.d.Element, w.d.Component, w.d.Segment:
			return true
		default:
			if c == w.d.Repetition && c != 0 {
				return true
			}
		}
	}
	return false
}

// Group closes the open functional group, if any, and opens another.
func (w *Writer) Group(g Group) {
	if !w.usable("GS") {
		return
	}
	w.closeGroup()
	w.segs++
	if g.Control < 1 || g.Control > 999999999 {
		w.fail(6, "GS", "GS06 is 1 to 999999999", strconv.FormatInt(g.Control, 10), nil)
		return
	}
	w.inGS, w.sets, w.groups = true, 0, w.groups+1
	w.gsCtrl = strconv.FormatInt(g.Control, 10)
	w.gsVersion = g.Version
	w.put("GS", []string{g.Code, g.Sender, g.Receiver, g.Time.Format("20060102"), g.Time.Format("1504"), w.gsCtrl, "X", g.Version})
}

// Set closes the open transaction set, if any, and opens one with ST01
// code and ST02 control (4 to 9 characters). From version 005010 on, ST03
// is the group's version.
func (w *Writer) Set(code, control string) {
	if !w.usable("ST") {
		return
	}
	w.closeSet()
	w.segs++
	switch {
	case !w.inGS:
		w.fail(0, "ST", "a transaction set goes inside a functional group: call Group first", "", nil)
		return
	case len(control) < 4 || len(control) > 9:
		w.fail(2, "ST", "ST02 is 4 to 9 characters", control, nil)
		return
	}
	w.inST, w.sets, w.stCtrl, w.stSegs = true, w.sets+1, control, 1
	elems := []string{code, control}
	if w.gsVersion >= "005010" {
		elems = append(elems, w.gsVersion)
	}
	w.put("ST", elems)
}

// Segment writes a segment of simple elements. Trailing empty elements are
// left out, as X12 asks. Use SegmentOf for composite or repeated elements.
func (w *Writer) Segment(id string, elements ...string) {
	if !w.open(id) {
		return
	}
	w.put(id, elements)
}

// SegmentOf writes a segment whose elements may be composite or repeated.
// Trailing empty elements, repetitions and components are left out.
func (w *Writer) SegmentOf(id string, elements ...Element) {
	if !w.open(id) {
		return
	}
	n := len(elements)
	for n > 0 && emptyElement(elements[n-1]) {
		n--
	}
	start := len(w.buf)
	w.buf = append(w.buf, id...)
	for i, e := range elements[:n] {
		w.buf = append(w.buf, w.d.Element)
		reps := len(e)
		for reps > 0 && emptyRep(e[reps-1]) {
			reps--
		}
		if reps > 1 && w.d.Repetition == 0 {
			w.buf = w.buf[:start]
			w.fail(i+1, id, "a repeated element needs a repetition separator", "", nil)
			return
		}
		for r, comps := range e[:reps] {
			if r > 0 {
				w.buf = append(w.buf, w.d.Repetition)
			}
			nc := len(comps)
			for nc > 0 && comps[nc-1] == "" {
				nc--
			}
			for c, v := range comps[:nc] {
				if c > 0 {
					w.buf = append(w.buf, w.d.Component)
				}
				if w.holdsDelimiter(v) {
					w.buf = w.buf[:start]
					w.fail(i+1, id, "the value holds a delimiter", v, ErrDelimiter)
					return
				}
				w.buf = append(w.buf, v...)
			}
		}
	}
	w.buf = append(w.buf, w.d.Segment)
}

func emptyRep(comps []string) bool {
	for _, c := range comps {
		if c != "" {
			return false
		}
	}
	return true
}

func emptyElement(e Element) bool {
	for _, r := range e {
		if !emptyRep(r) {
			return false
		}
	}
	return true
}

// envelopeIDs are the segments the Writer writes itself.
var envelopeIDs = map[string]bool{"ISA": true, "IEA": true, "GS": true, "GE": true, "ST": true, "SE": true}

// open checks that segment id may be written now and counts it.
func (w *Writer) open(id string) bool {
	if !w.usable(id) {
		return false
	}
	w.segs++
	switch {
	case !validID(id):
		w.fail(0, "", "a segment identifier is 2 or 3 capital letters and digits, a letter first", id, nil)
		return false
	case envelopeIDs[id]:
		w.fail(0, id, "the Writer writes the envelope segments itself (Group, Set, Bytes)", "", nil)
		return false
	case id == "TA1":
		if w.inGS {
			w.fail(0, id, "a TA1 goes between the ISA and the first functional group", "", nil)
			return false
		}
		return true
	case !w.inST:
		w.fail(0, id, "a segment goes inside a transaction set: call Set first", "", nil)
		return false
	}
	w.stSegs++
	return true
}

// put writes segment id of simple elements, leaving out trailing empty
// ones; a value holding a delimiter fails the Writer.
func (w *Writer) put(id string, elements []string) {
	n := len(elements)
	for n > 0 && elements[n-1] == "" {
		n--
	}
	for i, v := range elements[:n] {
		if w.holdsDelimiter(v) {
			w.fail(i+1, id, "the value holds a delimiter", v, ErrDelimiter)
			return
		}
	}
	w.buf = append(w.buf, id...)
	for _, v := range elements[:n] {
		w.buf = append(w.buf, w.d.Element)
		w.buf = append(w.buf, v...)
	}
	w.buf = append(w.buf, w.d.Segment)
}

func (w *Writer) closeSet() {
	if !w.inST {
		return
	}
	w.inST = false
	w.segs++
	w.put("SE", []string{strconv.Itoa(w.stSegs + 1), w.stCtrl})
}

func (w *Writer) closeGroup() {
	w.closeSet()
	if !w.inGS {
		return
	}
	w.inGS = false
	w.segs++
	w.put("GE", []string{strconv.Itoa(w.sets), w.gsCtrl})
}

// Bytes closes the open transaction set, group and the interchange (SE,
// GE, IEA, with their counts) and returns the interchange, or the first
// problem the Writer met. The Writer is finished afterwards: Bytes may be
// called again and returns the same, and anything else fails.
func (w *Writer) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	if !w.done {
		w.closeGroup()
		w.segs++
		w.put("IEA", []string{strconv.Itoa(w.groups), w.isaCtrl})
		w.done = true
		if w.err != nil {
			return nil, w.err
		}
	}
	return w.buf, nil
}
