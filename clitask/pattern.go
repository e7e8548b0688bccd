package clitask

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// MatchTimeout bounds one match of a pattern against one command string, so
// that a pattern with catastrophic backtracking cannot hang a check.
const MatchTimeout = time.Second

// Pattern is a cli-bench pattern: a JavaScript regular expression (ECMAScript
// syntax, no flags, unanchored search), or, when the text is not a valid
// regular expression, a plain case-sensitive substring. It is compiled once
// and is safe for concurrent use.
type Pattern struct {
	text    string
	re      *regexp2.Regexp
	literal bool // no metacharacter: a substring search is the same match, and faster
	// prefix is set for a regular expression of the form ^?TEXT(\b)?,
	// matched without the regular expression engine: most cli-bench
	// patterns are a command's beginning, and compiling one with regexp2
	// cost more than a one-shot evaluation's matching.
	prefix  *prefixPattern
	invalid error // why text is not a regular expression; nil when it is one
}

// regexMeta are the characters that make a pattern more than a literal.
const regexMeta = `\^$.|?*+()[]{}`

// patterns caches compiled patterns by text: suites repeat the same ones
// (not_ran: rm -rf) across tasks, and a Pattern is immutable. The cache
// stops growing at maxCachedPatterns.
var (
	patterns      sync.Map // string -> *Pattern
	patternsCount atomic.Int64
)

const maxCachedPatterns = 4096

// CompilePattern compiles text. It never fails: an invalid regular expression
// becomes a substring pattern whose Fallback says why.
func CompilePattern(text string) *Pattern {
	if p, ok := patterns.Load(text); ok {
		return p.(*Pattern)
	}
	p := compilePattern(text)
	if patternsCount.Load() < maxCachedPatterns {
		if _, loaded := patterns.LoadOrStore(text, p); !loaded {
			patternsCount.Add(1)
		}
	}
	return p
}

func compilePattern(text string) *Pattern {
	p := &Pattern{text: text}
	if !strings.ContainsAny(text, regexMeta) {
		p.literal = true
		return p
	}
	if pp, ok := parsePrefix(text); ok {
		p.prefix = &pp
		return p
	}
	re, err := regexp2.Compile(text, regexp2.ECMAScript)
	if err != nil {
		p.invalid = err
		return p
	}
	re.MatchTimeout = MatchTimeout
	p.re = re
	return p
}

// String returns the pattern as written.
func (p *Pattern) String() string { return p.text }

// Fallback returns why the pattern is matched as a plain substring: the
// regular expression syntax error, or nil when it is a regular expression.
func (p *Pattern) Fallback() error { return p.invalid }

// Mode is "regex", or "substring" for a pattern that fell back.
func (p *Pattern) Mode() string {
	if p.invalid != nil {
		return "substring"
	}
	return "regex"
}

// MatchString reports whether the pattern occurs in s. The error is non-nil
// only when a regular expression match ran past MatchTimeout.
func (p *Pattern) MatchString(s string) (bool, error) {
	if p.prefix != nil {
		return p.prefix.match(s), nil
	}
	if p.re == nil {
		return strings.Contains(s, p.text), nil
	}
	ok, err := p.re.MatchString(s)
	if err != nil {
		return false, fmt.Errorf("pattern %q: %w", p.text, err)
	}
	return ok, nil
}

// matchRunes is MatchString for a regular expression pattern, on the
// string's runes.
func (p *Pattern) matchRunes(r []rune) (bool, error) {
	ok, err := p.re.MatchRunes(r)
	if err != nil {
		return false, fmt.Errorf("pattern %q: %w", p.text, err)
	}
	return ok, nil
}

// fallbackNote is the clause a result adds when its pattern fell back.
func (p *Pattern) fallbackNote() string {
	if p.invalid == nil {
		return ""
	}
	return fmt.Sprintf(" (%q is not a valid regular expression, so it was matched as plain text: %v)", p.text, p.invalid)
}

// patterned is what the pattern kinds (ran, not_ran, run_count) are.
type patterned interface{ patternOf() *Pattern }

func (c ranCheck) patternOf() *Pattern      { return c.pattern }
func (c runCountCheck) patternOf() *Pattern { return c.pattern }

// PatternFallbacks lists, as sentences for assay validate's warnings, every
// pattern of the suite's tasks that is not a valid JavaScript regular
// expression and will therefore be matched as a plain substring: valid
// input, but rarely what its author meant.
func (s *Suite) PatternFallbacks() []string {
	var out []string
	for _, t := range s.Tasks {
		for i, a := range t.Assert {
			p, ok := a.(patterned)
			if !ok || p.patternOf().Fallback() == nil {
				continue
			}
			pat := p.patternOf()
			out = append(out, fmt.Sprintf("task %q, assertion %d (%s): pattern %q is not a valid regular expression (%v); it will be matched as a plain substring",
				t.ID, i+1, a.Kind(), pat.text, pat.Fallback()))
		}
	}
	return out
}

// prefixPattern is a regular expression that is printable ASCII text with
// no metacharacter, after an optional ^ and before an optional \b: it
// matches where the text occurs (at the start only, with ^) and, with \b,
// is followed by a word boundary (see isWordRune).
// FuzzPrefixPatternAsRegexp2 holds it to regexp2's ECMAScript matching.
type prefixPattern struct {
	text     string
	anchored bool
	boundary bool
}

// parsePrefix reads pattern as a prefixPattern; false when it is not one.
func parsePrefix(pattern string) (prefixPattern, bool) {
	var p prefixPattern
	rest := pattern
	if strings.HasPrefix(rest, "^") {
		p.anchored, rest = true, rest[1:]
	}
	if strings.HasSuffix(rest, `\b`) {
		p.boundary, rest = true, rest[:len(rest)-2]
	}
	if rest == "" || strings.ContainsAny(rest, regexMeta) {
		return prefixPattern{}, false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < ' ' || rest[i] > '~' {
			return prefixPattern{}, false
		}
	}
	p.text = rest
	return p, true
}

func (p *prefixPattern) match(s string) bool {
	if p.anchored {
		return strings.HasPrefix(s, p.text) && p.boundaryAt(s, len(p.text))
	}
	for from := 0; ; {
		i := strings.Index(s[from:], p.text)
		if i < 0 {
			return false
		}
		if p.boundaryAt(s, from+i+len(p.text)) {
			return true
		}
		from += i + 1
	}
}

// boundaryAt reports whether the text, matched up to s[end], may end there.
func (p *prefixPattern) boundaryAt(s string, end int) bool {
	if !p.boundary {
		return true
	}
	after := false
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		after = isWordRune(r)
	}
	return isWordRune(rune(p.text[len(p.text)-1])) != after
}

// isWordRune reports whether r is a word character of \b as regexp2 has it
// in ECMAScript mode: a letter, a nonspacing mark, a decimal digit or a
// connector punctuation (so é is one, unlike in JavaScript proper).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	return unicode.In(r, unicode.L, unicode.Mn, unicode.Nd, unicode.Pc)
}
