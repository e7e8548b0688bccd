package voice_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/assaykit/assay/voice"
)

// readPairs reads a tab-separated file of (group, spoken, written) lines;
// '#' starts a comment line.
func readPairs(t *testing.T, path string) [][3]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][3]string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			t.Fatalf("%s:%d: want 3 tab-separated fields, got %d", path, n, len(parts))
		}
		out = append(out, [3]string{parts[0], parts[1], parts[2]})
	}
	return out
}

// TestPublicPairs pins the number normaliser on spoken/written pairs from
// NeMo text-processing's inverse normalisation tests and Whisper's English
// normaliser tests: the spoken form and the written form must normalise to
// the same words, which is what makes the matcher find one in the other.
func TestPublicPairs(t *testing.T) {
	for _, file := range []string{"testdata/nemo_itn.tsv", "testdata/whisper_english.tsv"} {
		pairs := readPairs(t, file)
		if len(pairs) < 30 {
			t.Fatalf("%s: only %d pairs", file, len(pairs))
		}
		for _, p := range pairs {
			spoken, written := voice.Normalize(p[1]), voice.Normalize(p[2])
			if spoken != written || spoken == "" {
				t.Errorf("%s [%s] %q -> %q, but %q -> %q", file, p[0], p[1], spoken, p[2], written)
			}
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// case folding, NFKC, curly apostrophes, diacritics, punctuation
		{"Hello,   WORLD!", "hello world"},
		{"ＡＢＣ１２３", "abc 123"},
		{"ﬁle", "file"},
		{"José’s café", "jose cafe"},
		{"member’s ID", "member id"},
		{"members' IDs", "members ids"},
		// numbers
		{"thirty six", "36"},
		{"thirty-six", "36"},
		{"five hundred", "500"},
		{"twenty-one", "21"},
		{"a hundred", "100"},
		{"3,000 dollars", "3000 dollars"},
		{"$20", "20 dollars"},
		{"four five six", "456"},
		{"4 5 6", "456"},
		{"5 six", "56"},
		{"twenty zero five", "2005"},
		{"one oh one", "101"},
		{"4 five six", "456"},
		{"2 hundred", "200"},
		{"20 million", "20000000"},
		{"200 and fifty", "200 and 50"},
		{"3 14", "314"}, // Whisper keeps "3 14"; we join digits spoken one by one
		{"555-867-5309", "5558675309"},
		{"(555) 867 5309", "5558675309"},
		{"ten thirty", "1030"},
		{"10:30", "1030"},
		{"oh two three", "023"},
		{"oh, two things", "oh 2 things"},
		{"one two. three four", "12 34"},
		// dates
		{"March fifth", "3/5"},
		{"3/5", "3/5"},
		{"03/05/2024", "3/5 2024"},
		{"the 5th of March", "the 3/5"},
		{"May I help you", "may i help you"},
		// contractions
		{"I can't", "i can not"},
		{"cannot", "can not"},
		{"won't", "will not"},
		{"it's", "it is"},
		{"it’s been approved", "it has been approved"},
		{"the claim's been approved", "the claim has been approved"},
		{"the claim's status", "the claim status"},
		{"I'd like", "i would like"},
		{"you'd better", "you had better"},
		{"gonna wanna kinda gotta", "going to want to kind of got to"},
		{"dont", "do not"},
		{"ID", "id"},
		{"its status", "its status"},
		// fillers, spelled IDs
		{"um, uh, erm, the hmm claim", "the claim"},
		{"W X Y 1 2 3", "wxy 123"},
		{"WXY123", "wxy 123"},
		{"G as in George, four zero zero two one", "g 40021"},
		{"R dash four four seven one", "r 4471"},
		{"Dr. Patel", "doctor patel"},
		// bad input
		{"", ""},
		{"!!! ... ???", ""},
		{"\xff\xfeabc", "abc"},
		{"um uh", ""},
	}
	for _, tt := range tests {
		if got := voice.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
