package check

import (
	"strconv"

	"github.com/assaykit/assay/assert"
)

// PathError is a path that does not follow its grammar (an HL7 or X12
// path, say), located in the path as written.
type PathError struct {
	// Grammar names the grammar the path was read with, such as "x12".
	Grammar string
	// Path is the path as written.
	Path string
	// Offset is the 0-based byte offset in Path of the problem.
	Offset int
	// Location locates the problem in Path: line 1, and the 1-based
	// column (in characters) of Offset.
	Location assert.Location
	// Msg says what is wrong.
	Msg string
}

// NewPathError returns the PathError of path, read with grammar, at byte
// offset off.
func NewPathError(grammar, path string, off int, msg string) *PathError {
	line, col := assert.LineColumn([]byte(path), off)
	return &PathError{Grammar: grammar, Path: path, Offset: off, Location: assert.Location{Line: line, Column: col}, Msg: msg}
}

// Error renders the problem with the path and its location in it, e.g.
// `x12 path "NM103(2)": 1:6: a segment occurrence goes before the element
// position, as in NM1(2)03`.
func (e *PathError) Error() string {
	return e.Grammar + " path " + strconv.Quote(e.Path) + ": " + e.Location.Prefix(e.Msg)
}
