package voice

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// adversarial are answers that made the old parser (a decode attempt from
// every '{') quadratic: 64 KiB of them took 4.4 s.
func adversarial(n int) map[string]string {
	return map[string]string{
		"nested":        strings.Repeat(`{"a":`, n/5),
		"nested arrays": `{"a":` + strings.Repeat(`[`, n),
		"open braces":   strings.Repeat("{", n),
		"open strings":  strings.Repeat(`{"a":"x`, n/7),
		"keys":          strings.Repeat(`{"a":1,`, n/7),
	}
}

// TestLastAnswerIsLinear reads 256 KiB of each adversarial shape, and a
// real answer after it, well within a second: a parser that starts over
// at every '{' takes minutes.
func TestLastAnswerIsLinear(t *testing.T) {
	const phrase = "the claim was denied"
	answer := `{"verdicts": [{"phrase": "the claim was denied", "found": true, "turn": 2, "quote": "not approved", "reason": "x"}]}`
	for name, junk := range adversarial(256 << 10) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			got := lastAnswer(junk+"\n"+answer, []string{phrase})
			if d := time.Since(start); d > time.Second {
				t.Errorf("%d bytes took %v", len(junk), d)
			}
			if v, ok := got[phrase]; !ok || !v.Found || v.Quote != "not approved" {
				t.Errorf("the answer after the junk: %+v", got)
			}
		})
	}
}

func BenchmarkLastAnswer(b *testing.B) {
	for name, junk := range adversarial(64 << 10) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(junk)))
			b.ReportAllocs()
			for b.Loop() {
				lastAnswer(junk, []string{"x"})
			}
		})
	}
}

// FuzzLastAnswer: no input makes the parser panic, and every object
// scanObject accepts is valid JSON, as encoding/json reads it.
func FuzzLastAnswer(f *testing.F) {
	for _, s := range []string{
		`{"verdicts": [{"phrase": "a b", "found": true, "turn": 2, "quote": "x", "reason": "y"}]}`,
		`prose {"verdicts": []} more {`, `{"a": [1, -2.5e+3, true, false, null, "\u00e9\n"]}`, `{{"a":}`, `{"a" "b"}`,
		`{"a": 01}`, `{"a": [}`, `{"a": "\x"}`, "```json\n{}\n```", `{"a":{"b":{"c":[[[]]]}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lastAnswer(s, []string{"a b", "x"})
		for i := 0; i < len(s); i++ {
			if s[i] != '{' {
				continue
			}
			end, found := scanObject(s, i, nil)
			if end < i || end > len(s) {
				t.Fatalf("scanObject(%q, %d) = %d", s, i, end)
			}
			whole := end > i && s[end-1] == '}' && json.Valid([]byte(s[i:end]))
			for k, c := range found {
				if c.start < i || c.end > end || c.start >= c.end || !json.Valid([]byte(s[c.start:c.end])) || s[c.start] != '{' {
					t.Fatalf("scanObject(%q, %d) found %q, which is not an object in the scan", s, i, s[c.start:c.end])
				}
				if k > 0 && c.start < found[k-1].end {
					t.Fatalf("scanObject(%q, %d) found overlapping %v", s, i, found)
				}
			}
			if !whole && end < len(s) && json.Valid([]byte(s[i:end+1])) {
				t.Fatalf("scanObject rejected %q at %d, which is JSON", s[i:end+1], end)
			}
		}
	})
}

// The control words are words as Normalize reads them, so that a control
// phrase is checked against the turns' words as they are matched.
func TestControlWords(t *testing.T) {
	for _, l := range [][]string{controlAdjectives, controlNouns, controlVerbs} {
		for _, w := range l {
			if Normalize(w) != w {
				t.Errorf("%q normalises to %q", w, Normalize(w))
			}
		}
	}
	for range 100 {
		if w := madeUpWord(); Normalize(w) != w {
			t.Errorf("made-up %q normalises to %q", w, Normalize(w))
		}
	}
	// every word taken: made-up words stand in
	seen := map[string]bool{}
	taken := func(w string) bool {
		for _, l := range [][]string{controlAdjectives, controlNouns, controlVerbs} {
			for _, x := range l {
				if x == w {
					return true
				}
			}
		}
		return false
	}
	for _, c := range controlPhrases(2, taken, []string{"a b"}) {
		for _, w := range strings.Fields(c) {
			if taken(w) || seen[w] {
				t.Errorf("control %q uses %q", c, w)
			}
			seen[w] = true
		}
	}
}
