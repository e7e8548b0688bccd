package x12

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assaykit/assay/assert"
)

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

func syntaxError(s string, at int, msg string) *SyntaxError {
	var lc lineCounter
	line, col := lc.at(s, at)
	return &SyntaxError{Location: assert.Location{Line: line, Column: col}, Offset: at, Msg: msg}
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

// maxFindings bounds the findings one parse keeps, so that megabytes of
// garbage after a good ISA cannot produce megabytes of messages.
const maxFindings = 1000

// find records a finding about segment i, s[start:end].
func (p *parser) find(i, start, end int, msg string) {
	p.findAt(start, i, segmentID(p.s[start:end], p.d.Element), msg)
}

// findAt records a finding at byte offset offset, about segment i whose
// identifier is id.
func (p *parser) findAt(offset, i int, id, msg string) {
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
	p.x.findings = append(p.x.findings, Finding{Location: assert.Location{Segment: i + 1}, ID: id, Offset: offset, Message: msg})
}

// locate sorts the findings by offset and fills in their lines and
// columns, reading the input once up to the last of them.
func (x *Interchange) locate() {
	f := x.findings
	sort.SliceStable(f, func(a, b int) bool { return f[a].Offset < f[b].Offset })
	var lc lineCounter
	for k := range f {
		f[k].Line, f[k].Column = lc.at(x.data, f[k].Offset)
	}
}

// lineCounter counts lines as assert.LineColumn does (LF, CR and CRLF each
// end a line; columns count characters), for offsets that never decrease:
// each call reads on from where the last one stopped, so that the
// findings of a large file are located in one pass rather than one each.
type lineCounter struct {
	pos, line, start int // bytes before pos are counted; line `line` starts at start
}

// at returns the 1-based line and column of byte offset off of s (clamped
// to s); off must not be before the previous call's.
func (lc *lineCounter) at(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	if off > 0 && off < len(s) && s[off] == '\n' && s[off-1] == '\r' {
		// The LF of a CRLF belongs to the line the CR ends.
		line, col = lc.at(s, off-1)
		return line, col + 1
	}
	if lc.line == 0 {
		lc.line = 1
	}
	for i := lc.pos; i < off; i++ {
		switch s[i] {
		case '\n':
			lc.line, lc.start = lc.line+1, i+1
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++ // off is not this LF: the CRLF ends the line after it
			}
			lc.line, lc.start = lc.line+1, i+1
		}
		lc.pos = i + 1
	}
	return lc.line, utf8.RuneCountInString(s[lc.start:off]) + 1
}
