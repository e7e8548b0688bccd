package sftp_test

import (
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assaykit/assay/sftp"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		nomatch []string
	}{
		{"*.json", []string{"a.json", ".json.json"[1:], "x.y.json"}, []string{".a.json", "a.json.part", "d/a.json", "a.jso", "json"}},
		{"claims/*.json", []string{"claims/a.json"}, []string{"claims/.a.json", "claims/x/a.json", "claims/a.json.part", "Claims/a.json"}},
		{"/claims/*.json", []string{"claims/a.json"}, []string{"x/claims/a.json"}},
		{"**/a.json", []string{"a.json", "x/a.json", "x/y/z/a.json"}, []string{"x/.h/a.json", ".h/a.json", "xa.json", "x/b.json"}},
		{"a/**", []string{"a", "a/b", "a/b/c"}, []string{"b", "a/.b", "ab"}},
		{"a/**/b/**/c", []string{"a/b/c", "a/x/b/y/c", "a/b/b/c", "a/x/y/b/c"}, []string{"a/c", "a/b/x", "a/.x/b/c"}},
		{"**", []string{"a", "a/b"}, []string{".a", "a/.b"}},
		{"**/**/x", []string{"x", "a/x", "a/b/x"}, []string{"a/y"}},
		{"?.json", []string{"a.json", "é.json"}, []string{"ab.json", ".json", "..json"}},
		{"a*b*c", []string{"abc", "aXbYc", "abbbc", "acbc"}, []string{"ab", "acb", "a/b/c"}},
		{"a**b", []string{"ab", "aXb"}, []string{"a/b"}},
		{"[ab].json", []string{"[ab].json"}, []string{"a.json"}},
		{"[.json", []string{"[.json"}, nil},
		{`\*.json`, []string{"*.json"}, []string{"a.json"}},
		{`a\?`, []string{"a?"}, []string{"ab"}},
		{".*", []string{".a", ".claim.json"}, []string{"a"}},
		{"./a//b/", []string{"a/b"}, []string{"a"}},
		{"*/", []string{"a"}, []string{"a/b"}},
		{"{a,b}.json", []string{"{a,b}.json"}, []string{"a.json"}},
	}
	for _, tt := range tests {
		p, err := sftp.CompilePattern(tt.pattern)
		if err != nil {
			t.Errorf("%q: %v", tt.pattern, err)
			continue
		}
		for _, m := range tt.match {
			if !p.Match(m) {
				t.Errorf("%q does not match %q", tt.pattern, m)
			}
		}
		for _, m := range tt.nomatch {
			if p.Match(m) {
				t.Errorf("%q matches %q", tt.pattern, m)
			}
		}
	}
}

func TestPatternPrefix(t *testing.T) {
	for _, tt := range []struct {
		pattern, prefix string
		literal         bool
	}{
		{"a/b/*.json", "a/b", false},
		{"/a/b/c.json", "a/b", true},
		{"**/x", "", false},
		{"a/**/x", "a", false},
		{"x.json", "", true},
		{`a\*/b*`, "a*", false},
		{"a/?/c", "a", false},
	} {
		p, err := sftp.CompilePattern(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if _, lit := p.Literal(); p.Prefix() != tt.prefix || lit != tt.literal {
			t.Errorf("%q: prefix %q literal %v, want %q %v", tt.pattern, p.Prefix(), lit, tt.prefix, tt.literal)
		}
	}
}

func TestPatternErrors(t *testing.T) {
	for _, bad := range []string{"", "/", "//.", "..", "a/../b", "../*", `a\`, "a\x00b"} {
		_, err := sftp.CompilePattern(bad)
		var pe *sftp.PatternError
		if !errors.As(err, &pe) || !errors.Is(err, sftp.ErrBadPattern) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestPatternLinear: patterns built to make a backtracking matcher
// exponential finish at once.
func TestPatternLinear(t *testing.T) {
	p, err := sftp.CompilePattern(strings.Repeat("*a", 50) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if p.Match(strings.Repeat("a", 10000)) {
		t.Fatal("matched")
	}
	p, err = sftp.CompilePattern(strings.Repeat("**/a/", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if p.Match(strings.Repeat("a/", 2000) + "c") {
		t.Fatal("matched")
	}
}

// FuzzPattern compiles arbitrary patterns and matches arbitrary paths:
// never a panic, a compiled pattern's Prefix is a prefix of every path it
// matches, and a literal pattern matches exactly its own path.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"claims/**/*.json", "*.json", "a/?/b", `\*`, "[", "**", "../x", ".*", "a**b/**/c"} {
		f.Add(s, "claims/2024/claim.json")
	}
	if data, err := os.ReadFile("testdata/patterns.txt"); err == nil {
		for l := range strings.SplitSeq(string(data), "\n") {
			if l != "" {
				f.Add(l, "a/b/c.json")
			}
		}
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := sftp.CompilePattern(pattern)
		if err != nil {
			return
		}
		if !strings.Contains(pattern, `\`) && !strings.Contains(name, "//") && name != "" &&
			!strings.HasPrefix(name, "/") && !strings.HasSuffix(name, "/") && utf8.ValidString(name) && utf8.ValidString(pattern) {
			if got, want := p.Match(name), referenceMatch(pattern, name); got != want {
				t.Fatalf("%q on %q: %v, the reference says %v", pattern, name, got, want)
			}
		}
		if p.Match(name) {
			if pre := p.Prefix(); pre != "" && name != pre && !strings.HasPrefix(name, pre+"/") {
				t.Fatalf("%q matched %q outside its prefix %q", pattern, name, pre)
			}
		}
		if lit, ok := p.Literal(); ok {
			if !p.Match(lit) {
				t.Fatalf("literal %q does not match its path %q", pattern, lit)
			}
			if clean := path.Clean(lit); clean != lit || strings.HasPrefix(lit, "/") {
				t.Fatalf("literal path %q is not clean", lit)
			}
		}
	})
}

// referenceMatch is a slow, obviously correct matcher for patterns
// without escapes: segment by segment, recursively, each wild segment a
// regular expression.
func referenceMatch(pattern, name string) bool {
	var segs []string
	for s := range strings.SplitSeq(pattern, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	var rec func(ps, ns []string) bool
	rec = func(ps, ns []string) bool {
		if len(ps) == 0 {
			return len(ns) == 0
		}
		if ps[0] == "**" {
			if rec(ps[1:], ns) {
				return true
			}
			return len(ns) > 0 && !strings.HasPrefix(ns[0], ".") && rec(ps, ns[1:])
		}
		if len(ns) == 0 {
			return false
		}
		seg := ps[0]
		if strings.ContainsAny(seg, "*?") && strings.HasPrefix(ns[0], ".") && !strings.HasPrefix(seg, ".") {
			return false
		}
		var re strings.Builder
		re.WriteString("^")
		for _, r := range seg {
			switch r {
			case '*':
				re.WriteString(".*")
			case '?':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString("$")
		return regexp.MustCompile("(?s)"+re.String()).MatchString(ns[0]) && rec(ps[1:], ns[1:])
	}
	return rec(segs, strings.Split(name, "/"))
}

func ExampleCompilePattern() {
	p, _ := sftp.CompilePattern("/outbox/**/*.json")
	for _, name := range []string{"outbox/claim.json", "outbox/2024/05/claim.json", "outbox/.claim.json", "outbox/claim.json.part", "inbox/claim.json"} {
		fmt.Println(name, p.Match(name))
	}
	fmt.Printf("walks below %q\n", p.Prefix())
	// Output:
	// outbox/claim.json true
	// outbox/2024/05/claim.json true
	// outbox/.claim.json false
	// outbox/claim.json.part false
	// inbox/claim.json false
	// walks below "outbox"
}
