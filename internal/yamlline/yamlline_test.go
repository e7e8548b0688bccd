package yamlline

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func decodeErr(t testing.TB, doc string) error {
	var n yaml.Node
	err := yaml.NewDecoder(strings.NewReader(doc)).Decode(&n)
	if err == nil {
		t.Fatalf("%q parses", doc)
	}
	return err
}

// Each case names the line a person has to fix; yaml.v3's own line is in
// the comment where it differs.
func TestLocate(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		line      int
		message   string
	}{
		// yaml.v3: line 3.
		{"key under-indented", "- label: a\n  assertion:\n    assert: exit_code\n   exit_code: 0\n", 4,
			"did not find expected key (check the indentation of line 4 against line 3 above it)"},
		// yaml.v3: line 6.
		{"item under-indented", "- label: a\n  weight: 1\n  axis: x\n  assertion:\n    assert: exit_code\n    exit_code: 0\n - label: b\n", 7,
			"did not find expected '-' indicator (check the indentation of line 7 against line 6 above it)"},
		// yaml.v3: line 2.
		{"suite assert item", "cli: git\ntasks:\n  - id: a\n    intent: x\n    assert:\n      - exit_code: 0\n     - ran: y\n", 7,
			"did not find expected key (check the indentation of line 7 against line 6 above it)"},
		{"comment lines skipped", "a:\n  b: 1\n  # note\n\n c: 2\n", 5,
			"did not find expected key (check the indentation of line 5 against line 2 above it)"},
		{"key over-indented", "- id: a\n  assertion:\n    assert: ran\n      ran: x\n", 4,
			"mapping values are not allowed in this context (check the indentation of line 4 against line 3 above it)"},
		{"not indentation", "a: \"x\nb: 1\n", 3, "found unexpected end of stream"},
		{"no line", "\t- a\n", 1, "found character that cannot start any token"},
	} {
		line, msg := Locate([]byte(tc.doc), decodeErr(t, tc.doc))
		if line != tc.line || msg != tc.message {
			t.Errorf("%s: line %d %q, want line %d %q", tc.name, line, msg, tc.line, tc.message)
		}
	}
}

// A document over MaxSearch keeps yaml.v3's line: finding the first line
// that fails would parse it about twenty times.
func TestLocateLargeKeepsYAMLLine(t *testing.T) {
	item := "- label: a\n  assertion:\n    assert: exit_code\n"
	doc := strings.Repeat(item, MaxSearch/len(item)+1) + "   exit_code: 0\n"
	err := decodeErr(t, doc)
	want, _ := split(err.Error())
	if line, _ := Locate([]byte(doc), err); line != want {
		t.Errorf("line %d, want yaml.v3's %d", line, want)
	}
	small := item + "   exit_code: 0\n"
	if line, _ := Locate([]byte(small), decodeErr(t, small)); line != 4 {
		t.Errorf("the small document: line %d, want 4", line)
	}
}

func FuzzLocate(f *testing.F) {
	f.Add([]byte("- label: a\n  assertion:\n    assert: exit_code\n   exit_code: 0\n"))
	f.Add([]byte("cli: git\ntasks:\n  - id: a\n    assert:\n      - exit_code: 0\n     - ran: y"))
	f.Add([]byte("a: \"x\r\nb: [1,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n yaml.Node
		err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&n)
		if err == nil {
			return
		}
		line, msg := Locate(data, err)
		if line < 0 || line > lineBreaks(data)+2 || msg == "" {
			t.Fatalf("Locate = %d %q for %q (%v)", line, msg, data, err)
		}
	})
}

// lineBreaks counts the line breaks of data as YAML does (and yaml.v3
// numbers its lines by): LF, CR, CRLF as one, NEL, LS and PS.
func lineBreaks(data []byte) int {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := 0
	for _, brk := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		n += strings.Count(s, brk)
	}
	return n
}
