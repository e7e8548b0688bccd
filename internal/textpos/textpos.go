// Package textpos turns a byte offset into the line and column a person
// reads: assert.LineColumn for packages that cannot import assert.
package textpos

import "unicode/utf8"

// LineColumn returns the 1-based line and column of byte offset in data.
// LF, CR and CRLF each end a line (the LF of a CRLF belongs to the line it
// ends); columns count characters (UTF-8 sequences), not bytes. An offset
// past the end is read as the end.
func LineColumn(data []byte, offset int) (line, column int) {
	offset = min(max(offset, 0), len(data))
	line, start := 1, 0
	for i := 0; i < offset; i++ {
		switch data[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				if i+1 == offset { // the LF of a CRLF belongs to the line it ends
					return line, utf8.RuneCount(data[start:i]) + 2
				}
				i++
			}
			line, start = line+1, i+1
		}
	}
	return line, utf8.RuneCount(data[start:offset]) + 1
}
