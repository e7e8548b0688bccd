package assert

import (
	"strconv"
	"strings"

	"github.com/assaykit/assay/internal/textpos"
)

// Location says where in an input something is. Every field is optional;
// zero values are unknown and left out when it is rendered. It is the one
// way assay locates a problem: schema violations, suite problems, trace
// errors, HL7 and X12 parse errors and findings, and path errors all embed
// or carry a Location and render it with String.
//
// Lines and columns are 1-based and count characters (runes); a line ends
// at LF, CR or CRLF (see LineColumn). Offsets are 0-based byte offsets.
type Location struct {
	// File names the input, when it came from a file.
	File string `json:"file,omitempty"`
	// Line and Column locate text input, 1-based.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Segment is the 1-based position of an HL7 or X12 segment.
	Segment int `json:"segment,omitempty"`
	// Pointer is a JSON pointer (RFC 6901) into the input read as JSON;
	// "" is the whole document or unknown.
	Pointer string `json:"pointer,omitempty"`
}

// String renders the location as "file:line:col: segment N: /pointer",
// leaving out what is unknown; "" when nothing is known.
func (l Location) String() string {
	var parts []string
	var head strings.Builder
	head.WriteString(l.File)
	if l.Line > 0 {
		if head.Len() > 0 {
			head.WriteByte(':')
		}
		head.WriteString(strconv.Itoa(l.Line))
		if l.Column > 0 {
			head.WriteByte(':')
			head.WriteString(strconv.Itoa(l.Column))
		}
	}
	if head.Len() > 0 {
		parts = append(parts, head.String())
	}
	if l.Segment > 0 {
		parts = append(parts, "segment "+strconv.Itoa(l.Segment))
	}
	if l.Pointer != "" {
		parts = append(parts, l.Pointer)
	}
	return strings.Join(parts, ": ")
}

// Prefix renders message at the location: "LOCATION: message", or message
// alone when the location is unknown.
func (l Location) Prefix(message string) string {
	if s := l.String(); s != "" {
		return s + ": " + message
	}
	return message
}

// LineColumn returns the 1-based line and column of the byte at offset in
// data. A line ends at LF, at CR, or at CRLF (one break), so files written
// with any of the three conventions, X12 interchanges with CR terminators
// included, count as a reader sees them. Columns count runes. An offset past
// the end locates the end of data.
func LineColumn(data []byte, offset int) (line, column int) { return textpos.LineColumn(data, offset) }
