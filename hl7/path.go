package hl7

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/assaykit/assay/check"
)

// Any, as a Path's Occurrence or Repetition, selects every occurrence or
// repetition (written `*`).
const Any = -1

// Path names a node of a message: SEG[occ].FIELD[rep].COMPONENT.SUBCOMPONENT
// (see SYNTAX.md). Positions are 1-based. A zero Occurrence or Repetition
// means the first; Any means every one. A zero Field, Component or
// Subcomponent means the path stops above that level: Field 0 names the
// whole segment, Component 0 the whole repetition, Subcomponent 0 the whole
// component.
type Path struct {
	Segment      string // the three-character segment ID, such as "PID"
	Occurrence   int
	Field        int
	Repetition   int
	Component    int
	Subcomponent int
}

// PathError is a path that does not follow the grammar: a
// *check.PathError whose Grammar is "hl7".
type PathError = check.PathError

func pathError(s string, off int, msg string) *PathError {
	return check.NewPathError("hl7", s, off, msg)
}

// maxPosition bounds positions so that a path can never overflow an int
// and a typo such as PID.300000000000 is reported rather than searched.
const maxPosition = 1_000_000

// ParsePath parses an HL7 path such as "PID.3[2].1", "OBX[*].5",
// "PID-5-1" or "MSH.9". `-` may stand for `.` after the segment ID. A path
// that does not follow the grammar is a *PathError.
func ParsePath(s string) (Path, error) {
	var p Path
	fail := func(off int, format string, args ...any) (Path, error) {
		return Path{}, pathError(s, off, fmt.Sprintf(format, args...))
	}
	if len(s) < 3 {
		return fail(0, "a path starts with a three-character segment ID, such as PID")
	}
	for i := range 3 {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			if c >= 'a' && c <= 'z' {
				return fail(i, "segment IDs are upper-case (%s)", strings.ToUpper(s[:3]))
			}
			return fail(i, "a path starts with a three-character segment ID (upper-case letters and digits), such as PID")
		}
	}
	p.Segment = s[:3]
	i := 3
	// bracket reads an optional [N] or [*] at i.
	bracket := func(what string) (int, bool, error) {
		if i >= len(s) || s[i] != '[' {
			return 0, false, nil
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			return 0, false, pathError(s, i, "unclosed [")
		}
		inner := s[i+1 : i+j]
		if inner == "*" {
			i += j + 1
			return Any, true, nil
		}
		n, msg := position(inner)
		if msg != "" {
			return 0, false, pathError(s, i+1, fmt.Sprintf("%s %s: %s (write a number from 1, or *)", what, strconv.Quote(inner), msg))
		}
		i += j + 1
		return n, true, nil
	}
	// number reads a separator and a position.
	number := func(what string) (int, bool, error) {
		if i >= len(s) {
			return 0, false, nil
		}
		if s[i] != '.' && s[i] != '-' {
			return 0, false, pathError(s, i, fmt.Sprintf("expected . or - before the %s, found %q", what, s[i]))
		}
		i++
		j := i
		for j < len(s) && s[j] != '.' && s[j] != '-' && s[j] != '[' {
			j++
		}
		n, msg := position(s[i:j])
		if msg != "" {
			if s[i:j] == "*" {
				msg = "* selects every occurrence or repetition, written in brackets; a " + what + " is a number"
			}
			return 0, false, pathError(s, i, fmt.Sprintf("%s %q: %s", what, s[i:j], msg))
		}
		i = j
		return n, true, nil
	}
	var err error
	if p.Occurrence, _, err = bracket("segment occurrence"); err != nil {
		return Path{}, err
	}
	var ok bool
	if p.Field, ok, err = number("field"); err != nil || !ok {
		return p, err
	}
	if p.Repetition, _, err = bracket("repetition"); err != nil {
		return Path{}, err
	}
	if p.Component, ok, err = number("component"); err != nil || !ok {
		if err != nil {
			return Path{}, err
		}
		return p, nil
	}
	if i < len(s) && s[i] == '[' {
		return fail(i, "only the segment and the field take [occurrence] or [repetition]")
	}
	if p.Subcomponent, ok, err = number("subcomponent"); err != nil || !ok {
		if err != nil {
			return Path{}, err
		}
		return p, nil
	}
	if i < len(s) {
		if s[i] == '[' {
			return fail(i, "only the segment and the field take [occurrence] or [repetition]")
		}
		return fail(i, "the path goes deeper than a subcomponent")
	}
	return p, nil
}

// position parses a 1-based position; msg says why it is not one.
func position(s string) (int, string) {
	if s == "" {
		return 0, "empty"
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, "not a number"
		}
		n = n*10 + int(c-'0')
		if n > maxPosition {
			return 0, fmt.Sprintf("larger than %d", maxPosition)
		}
	}
	if n == 0 {
		return 0, "positions start at 1"
	}
	return n, ""
}

// MustParsePath is ParsePath for paths known to be valid; it panics on an
// error.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String writes the path in its canonical form: dots, occurrence and
// repetition in brackets only when given (1 is omitted), * for Any.
func (p Path) String() string {
	b := make([]byte, 0, 24)
	b = append(b, p.Segment...)
	b = appendIndex(b, p.Occurrence)
	if p.Field <= 0 {
		return string(b)
	}
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(p.Field), 10)
	b = appendIndex(b, p.Repetition)
	for _, n := range [...]int{p.Component, p.Subcomponent} {
		if n <= 0 {
			break
		}
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return string(b)
}

func appendIndex(b []byte, n int) []byte {
	switch {
	case n == Any:
		return append(b, "[*]"...)
	case n > 1:
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(n), 10)
		return append(b, ']')
	}
	return b
}

// Wildcard reports whether the path can select several values (a * for the
// occurrence or the repetition).
func (p Path) Wildcard() bool { return p.Occurrence == Any || p.Repetition == Any }

// valid reports whether p can select anything: a three-character segment,
// positions in range, and no level given below one that is not.
func (p Path) valid() bool {
	if len(p.Segment) != 3 {
		return false
	}
	if p.Occurrence < Any || p.Repetition < Any || p.Field < 0 || p.Component < 0 || p.Subcomponent < 0 {
		return false
	}
	if p.Field == 0 && (p.Repetition != 0 || p.Component != 0) || p.Component == 0 && p.Subcomponent != 0 {
		return false
	}
	return true
}
