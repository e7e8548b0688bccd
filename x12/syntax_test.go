package x12_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSyntaxDoc checks every example of the two tables of SYNTAX.md that
// read a known file: the documentation cannot drift from the code.
func TestSyntaxDoc(t *testing.T) {
	doc, err := os.ReadFile("SYNTAX.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (null|`([^`]*)`) \\|")
	text := string(doc)
	overview := text[strings.Index(text, "## Overview"):strings.Index(text, "Composite elements")]
	composite := text[strings.Index(text, "Composite elements"):strings.Index(text, "## Loops")]
	loops := text[strings.Index(text, "## Loops"):strings.Index(text, "## When ISA11")]
	fileCol := regexp.MustCompile("^\\| `[^`]+` \\| (?:null|`[^`]*`) \\| `([^`]+)` \\|")
	n := 0
	check := func(section string, fileFor func(path string) string) {
		for _, line := range strings.Split(section, "\n") {
			m := row.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			var want []string
			if m[2] != "null" {
				var v any
				if err := json.Unmarshal([]byte(m[3]), &v); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				switch v := v.(type) {
				case string:
					want = []string{v}
				case []any:
					for _, s := range v {
						want = append(want, s.(string))
					}
				}
			}
			got, err := mustParse(t, fileFor(m[1])).Get(m[1])
			if err != nil || !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("SYNTAX.md says %s selects %q; it selects %q (%v)", m[1], want, got, err)
			}
		}
	}
	check(overview, func(string) string { return "own/janedoe_271.x12" })
	check(composite, func(p string) string {
		switch {
		case strings.HasPrefix(p, "HI"):
			return "own/janedoe_278_request.x12"
		case strings.HasPrefix(p, "SVC"):
			return "corpus/lfh_276_claim_level.x12"
		}
		return "own/janedoe_271.x12"
	})
	before := n
	check(loops, func(p string) string {
		for _, line := range strings.Split(loops, "\n") {
			if strings.HasPrefix(line, "| `"+p+"` |") {
				if m := fileCol.FindStringSubmatch(line); m != nil {
					return m[1]
				}
			}
		}
		t.Fatalf("Loops table row %s names no file", p)
		return ""
	})
	if n-before < 10 {
		t.Errorf("checked %d rows of the Loops table; it has 10", n-before)
	}
	if n < 40 {
		t.Errorf("checked %d examples; the tables have more", n)
	}
}
