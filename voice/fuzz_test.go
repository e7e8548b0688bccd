package voice_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assaykit/assay/voice"
)

// FuzzParse feeds arbitrary bytes to the transcript loader: it never
// panics, an error is a *ParseError, and a parsed transcript can be
// matched against.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/transcript.json", "testdata/transcript.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"speaker": "agent", "text": "hi", "start_ms": 1e400}]`))
	f.Add([]byte("Agent: \xff\xfe\nCaller:"))
	f.Add([]byte(`{"turns": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := voice.Parse(data, "fuzz")
		if err != nil {
			if _, ok := err.(*voice.ParseError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, turn := range tr.Turns() {
			if !utf8.ValidString(turn.Text) {
				t.Fatalf("invalid UTF-8 kept: %q", turn.Text)
			}
		}
		if _, err := (voice.Loose{}).Match(context.Background(), tr, voice.Any, []string{"hello there", "5"}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzNormalize feeds arbitrary text to the normaliser and the matcher:
// no panic, valid UTF-8 out, single spaces, and any text with words is
// found, exactly, in a transcript of that text, with a quote that is part
// of it.
func FuzzNormalize(f *testing.F) {
	pairs := [][3]string{}
	for _, file := range []string{"testdata/nemo_itn.tsv", "testdata/whisper_english.tsv"} {
		data, _ := os.ReadFile(file)
		for _, line := range strings.Split(string(data), "\n") {
			if parts := strings.Split(line, "\t"); len(parts) == 3 {
				pairs = append(pairs, [3]string{parts[0], parts[1], parts[2]})
			}
		}
	}
	for _, p := range pairs {
		f.Add(p[1])
		f.Add(p[2])
	}
	f.Add("Um, your member’s ID is W one two three, it's 3/5/2024 at 10:30 — $1,500 or 90%!")
	f.Add("G as in George dash double oh seven the 5th of may")
	f.Add("\xff\u0301'''s n't")
	f.Fuzz(func(t *testing.T, s string) {
		n := voice.Normalize(s)
		if !utf8.ValidString(n) || strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Fatalf("Normalize(%q) = %q", s, n)
		}
		if n == "" || strings.ContainsAny(s, "\r\n") {
			return
		}
		tr := voice.NewTranscript([]voice.Turn{{Speaker: voice.Agent, Text: s}})
		ms, err := voice.Loose{}.Match(context.Background(), tr, voice.Agent, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		m := ms[0]
		if !m.Found || m.Method != voice.MethodExact || m.Turn != 0 || !strings.Contains(strings.ToValidUTF8(s, "\uFFFD"), m.Quote) {
			t.Fatalf("%q (normalised %q) not found in itself: %+v", s, n, m)
		}
	})
}
