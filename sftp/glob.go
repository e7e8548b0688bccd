package sftp

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// PatternError reports a path or path_pattern that cannot name anything in
// the tree: empty, the root itself, climbing out with "..", a NUL byte, or
// a pattern that ends in a lone escaping backslash.
type PatternError struct {
	// Pattern is the path or pattern as written.
	Pattern string
	// Reason says what is wrong.
	Reason string
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("path %q: %s", e.Pattern, e.Reason)
}

// ErrBadPattern is wrapped by every *PatternError.
var ErrBadPattern = errors.New("invalid path or pattern")

// Unwrap returns ErrBadPattern.
func (e *PatternError) Unwrap() error { return ErrBadPattern }

// Pattern is a compiled path_pattern: "/"-separated segments relative to
// the tree's root, where "*" matches any run of characters within a
// segment, "?" one character, a whole segment "**" zero or more segments,
// and a backslash makes the next character literal. Every other character
// (brackets and braces included) stands for itself. A wildcard never
// matches a name that starts with "." unless the pattern segment itself
// starts with a literal "."; so "*.json" skips ".claim.json" and "**" does
// not enter hidden folders. A Pattern is immutable and safe for concurrent
// use.
type Pattern struct {
	raw    string
	segs   []segment
	prefix string // the longest literal folder prefix
	path   string // the literal path, when literal
	// literal is true when no segment has a wildcard: the pattern names
	// one path.
	literal bool
	// star2 is the index of the one "**" segment, or -1 when there are
	// none or several (the general matcher then runs).
	star2 int
}

// segment is one compiled pattern segment.
type segment struct {
	star2 bool    // "**"
	lit   string  // the literal text, when !wild
	wild  bool    // holds "*" or "?"
	toks  []token // the tokens between pre and suf, when wild
	dot   bool    // starts with a literal "."
	// pre and suf are the literal text a wild segment starts and ends
	// with, checked before the tokens between them; any is true when
	// those tokens are one "*" (nothing more to check).
	pre, suf string
	any      bool
}

// token is a literal run, '?' or '*'.
type token struct {
	kind byte // 0 literal, '?' or '*'
	text string
}

// CompilePattern compiles a path_pattern. A leading "/" means the root;
// repeated "/" and "." segments are dropped; ".." is an error (a pattern
// cannot climb out of the root), as are an empty pattern, one that names
// the root itself, a NUL byte, and a trailing lone backslash.
func CompilePattern(pattern string) (*Pattern, error) {
	raw, err := splitClean(pattern)
	if err != nil {
		return nil, err
	}
	p := &Pattern{raw: pattern, literal: true, star2: -1}
	lits := make([]string, 0, len(raw))
	for _, s := range raw {
		seg, err := compileSegment(s)
		if err != nil {
			return nil, &PatternError{Pattern: pattern, Reason: err.Error()}
		}
		p.segs = append(p.segs, seg)
		if seg.star2 || seg.wild {
			p.literal = false
		}
		if p.literal {
			lits = append(lits, seg.lit)
		}
	}
	for i, seg := range p.segs {
		if seg.star2 {
			if p.star2 >= 0 {
				p.star2 = -1
				break
			}
			p.star2 = i
		}
	}
	if p.literal {
		p.path = strings.Join(lits, "/")
		p.prefix = strings.Join(lits[:len(lits)-1], "/")
	} else {
		p.prefix = strings.Join(lits, "/")
	}
	return p, nil
}

// CleanPath normalises a literal path as sftp-file-present reads its path
// key: relative to the root (a leading "/" means the root), "/" runs and
// "." segments dropped. ".." segments, NUL bytes, and a path that names the
// root itself are errors.
func CleanPath(p string) (string, error) {
	segs, err := splitClean(p)
	if err != nil {
		return "", err
	}
	return strings.Join(segs, "/"), nil
}

func splitClean(p string) ([]string, error) {
	if p == "" {
		return nil, &PatternError{Pattern: p, Reason: "it is empty"}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return nil, &PatternError{Pattern: p, Reason: "it holds a NUL byte"}
	}
	var out []string
	for s := range strings.SplitSeq(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, &PatternError{Pattern: p, Reason: `".." cannot climb out of the root; name paths from the root down`}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, &PatternError{Pattern: p, Reason: "it names the root folder, not a file"}
	}
	return out, nil
}

func compileSegment(s string) (segment, error) {
	if s == "**" {
		return segment{star2: true}, nil
	}
	var seg segment
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			seg.toks = append(seg.toks, token{text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 == len(s) {
				return segment{}, errors.New(`a "\" at the end of a segment escapes nothing`)
			}
			i++
			lit.WriteByte(s[i])
		case '*', '?':
			flush()
			seg.wild = true
			if c == '*' && len(seg.toks) > 0 && seg.toks[len(seg.toks)-1].kind == '*' {
				continue // "**" inside a segment is one "*"
			}
			seg.toks = append(seg.toks, token{kind: c})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	seg.dot = len(seg.toks) > 0 && seg.toks[0].kind == 0 && strings.HasPrefix(seg.toks[0].text, ".")
	if !seg.wild {
		if len(seg.toks) == 1 {
			seg.lit = seg.toks[0].text
		}
		seg.toks = nil
		return seg, nil
	}
	// A wild segment has a wildcard token, so a literal first token and
	// a literal last token are two different tokens.
	if t := seg.toks[0]; t.kind == 0 {
		seg.pre, seg.toks = t.text, seg.toks[1:]
	}
	if t := seg.toks[len(seg.toks)-1]; t.kind == 0 {
		seg.suf, seg.toks = t.text, seg.toks[:len(seg.toks)-1]
	}
	seg.any = len(seg.toks) == 1 && seg.toks[0].kind == '*'
	return seg, nil
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.raw }

// Prefix is the longest folder path, relative to the root, that every match
// lies below: the literal segments before the first wildcard ("" for the
// root). A walk for the pattern need list nothing else.
func (p *Pattern) Prefix() string { return p.prefix }

// Literal reports whether the pattern has no wildcard, and then the one
// path it names.
func (p *Pattern) Literal() (string, bool) { return p.path, p.literal }

// Match reports whether name, a path relative to the root without a
// leading "/" (as Source.Walk returns them), matches the pattern.
func (p *Pattern) Match(name string) bool {
	if p.star2 >= 0 {
		return p.matchOneStar2(name)
	}
	// Most names fail on their last segment: check it first.
	if n := len(p.segs); n > 0 && !p.segs[n-1].star2 {
		last := name[strings.LastIndexByte(name, '/')+1:]
		if !p.segs[n-1].matchSegment(last) {
			return false
		}
	}
	// The segment-level form of the classic wildcard match: "**" plays
	// the part of "*", a segment matcher that of a character. Greedy with
	// one backtrack point, so linear in practice and never exponential.
	si, pi := 0, 0 // position in name (byte offset of a segment), index in segs
	starP, starS := -1, 0
	for {
		if si > len(name) { // past the end: every segment consumed
			for pi < len(p.segs) && p.segs[pi].star2 {
				pi++
			}
			if pi == len(p.segs) {
				return true
			}
			// retry below
		} else {
			end := strings.IndexByte(name[si:], '/')
			var seg string
			next := 0
			if end < 0 {
				seg, next = name[si:], len(name)+1
			} else {
				seg, next = name[si:si+end], si+end+1
			}
			if pi < len(p.segs) {
				ps := &p.segs[pi]
				if ps.star2 {
					starP, starS = pi, si
					pi++
					continue
				}
				if ps.matchSegment(seg) {
					si, pi = next, pi+1
					continue
				}
			}
		}
		// Backtrack: let the last "**" swallow one more segment, if that
		// segment is not hidden.
		if starP < 0 || starS > len(name) {
			return false
		}
		end := strings.IndexByte(name[starS:], '/')
		var seg string
		if end < 0 {
			seg = name[starS:]
			starS = len(name) + 1
		} else {
			seg = name[starS : starS+end]
			starS += end + 1
		}
		if strings.HasPrefix(seg, ".") || seg == "" {
			return false
		}
		si, pi = starS, starP+1
	}
}

// matchOneStar2 matches a pattern with exactly one "**": the segments
// before it match the name's first segments, those after it the name's
// last ones, and "**" takes what lies between, which must hold no hidden
// segment.
func (p *Pattern) matchOneStar2(name string) bool {
	head, tail := p.segs[:p.star2], p.segs[p.star2+1:]
	lo := 0 // start of the middle
	for i := range head {
		if lo > len(name) {
			return false
		}
		end := strings.IndexByte(name[lo:], '/')
		seg, next := name[lo:], len(name)+1
		if end >= 0 {
			seg, next = name[lo:lo+end], lo+end+1
		}
		if !head[i].matchSegment(seg) {
			return false
		}
		lo = next
	}
	hi := len(name) // end of the middle (exclusive)
	for i := len(tail) - 1; i >= 0; i-- {
		if hi < lo {
			return false
		}
		start := strings.LastIndexByte(name[lo:hi], '/')
		seg, prev := name[lo:hi], lo-1
		if start >= 0 {
			seg, prev = name[lo+start+1:hi], lo+start
		}
		if !tail[i].matchSegment(seg) {
			return false
		}
		hi = prev
	}
	if hi <= lo { // "**" takes no segment
		return true
	}
	mid := name[lo:hi]
	return !strings.HasPrefix(mid, ".") && !strings.Contains(mid, "/.")
}

// matchSegment matches one name segment.
func (s *segment) matchSegment(name string) bool {
	if !s.wild {
		return name == s.lit
	}
	if !s.dot && strings.HasPrefix(name, ".") {
		return false
	}
	if len(name) < len(s.pre)+len(s.suf) || !strings.HasPrefix(name, s.pre) || !strings.HasSuffix(name, s.suf) {
		return false
	}
	if s.any {
		return true
	}
	return matchTokens(s.toks, name[len(s.pre):len(name)-len(s.suf)])
}

// matchTokens is the classic single-backtrack wildcard match over tokens,
// '?' taking one character (rune).
func matchTokens(toks []token, name string) bool {
	ti, ni := 0, 0
	starT, starN := -1, 0
	for {
		if ti < len(toks) {
			t := toks[ti]
			switch t.kind {
			case '*':
				starT, starN = ti, ni
				ti++
				continue
			case '?':
				if ni < len(name) {
					_, w := utf8.DecodeRuneInString(name[ni:])
					ni += w
					ti++
					continue
				}
			default:
				if strings.HasPrefix(name[ni:], t.text) {
					ni += len(t.text)
					ti++
					continue
				}
			}
		} else if ni == len(name) {
			return true
		}
		if starT < 0 || starN >= len(name) {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[starN:])
		starN += w
		ti, ni = starT+1, starN
	}
}
