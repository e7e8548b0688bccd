package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes a string that came from an input file or an agent (a run
// name, a criterion id or label, a check's details) safe to print on a
// terminal, one report line per item: a newline reads \n, a carriage
// return \r, a tab \t, any other control character, escape sequence
// introducer, Unicode format character (a bidirectional override, a
// zero-width joiner) or invalid UTF-8 byte reads as \xNN or \uNNNN. So no
// input recolours or retitles the terminal, moves its cursor, or forges a
// report line. Printable text, non-ASCII letters included, is unchanged.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case needsEscape(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether r is anything but printable text or a plain
// space.
func needsEscape(r rune) bool {
	if r == ' ' {
		return false
	}
	return r == utf8.RuneError || !unicode.IsPrint(r)
}
