package textpos_test

import (
	"testing"

	"github.com/assaykit/assay/internal/textpos"
)

func TestLineColumn(t *testing.T) {
	data := []byte("ab\ncd\r\nef\rgé h")
	for _, tc := range []struct {
		off, line, col int
	}{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {6, 2, 4}, {7, 3, 1}, {10, 4, 1},
		{13, 4, 3}, // after the two bytes of é: one character
		{100, 4, 5}, {-3, 1, 1},
	} {
		if l, c := textpos.LineColumn(data, tc.off); l != tc.line || c != tc.col {
			t.Errorf("offset %d: line %d column %d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}
