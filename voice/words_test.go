package voice

import (
	"slices"
	"strings"
	"testing"
)

// Binary search needs every list sorted, without duplicates.
func TestWordListsSorted(t *testing.T) {
	sets := map[string]wordSet{"judgeWords": judgeWords, "guards": guards, "sIsWords": sIsWords, "hasNext": hasNext,
		"isNext": isNext, "hadNext": hadNext, "fillers": fillers}
	for name, s := range sets {
		if !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) {
			t.Errorf("%s is not sorted, or repeats a word: %q", name, s)
		}
	}
	checkMap(t, "contractionWords", contractionWords)
	checkMap(t, "abbreviations", abbreviations)
	checkMap(t, "months", months)
	checkMap(t, "speakerNames", speakerNames)
	checkMap(t, "numberWords", numberWords)
}

func checkMap[V any](t *testing.T, name string, m wordMap[V]) {
	t.Helper()
	for i := 1; i < len(m); i++ {
		if strings.Compare(m[i-1].word, m[i].word) >= 0 {
			t.Errorf("%s: %q before %q", name, m[i-1].word, m[i].word)
		}
	}
	for _, e := range m {
		if _, ok := m.get(e.word); !ok {
			t.Errorf("%s: %q not found", name, e.word)
		}
	}
	if _, ok := m.get("no such word"); ok {
		t.Errorf("%s: found a word it does not hold", name)
	}
}

// The table of number words is the rule it was written from: units, teens
// and tens with their ordinals, "fourty", hundred, and the scales.
func TestNumberWordsByRule(t *testing.T) {
	want := numberWordsByRule()
	if len(numberWords) != len(want) {
		t.Errorf("%d number words, want %d", len(numberWords), len(want))
	}
	for w, nw := range want {
		if got, ok := numberWords.get(w); !ok || got != nw {
			t.Errorf("%q: %+v, %v; want %+v", w, got, ok, nw)
		}
	}
}

func numberWordsByRule() map[string]numWord {
	m := map[string]numWord{}
	units := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	unitOrd := []string{"zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"}
	for i, u := range units {
		m[u] = numWord{kind: numUnit, value: uint64(i)}
		m[unitOrd[i]] = numWord{kind: numUnit, value: uint64(i), ordinal: true}
	}
	teens := []string{"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	teenOrd := []string{"tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"}
	for i, t := range teens {
		m[t] = numWord{kind: numTeen, value: uint64(10 + i)}
		m[teenOrd[i]] = numWord{kind: numTeen, value: uint64(10 + i), ordinal: true}
	}
	tens := []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	tensOrd := []string{"twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth", "eightieth", "ninetieth"}
	for i, t := range tens {
		m[t] = numWord{kind: numTens, value: uint64(20 + 10*i)}
		m[tensOrd[i]] = numWord{kind: numTens, value: uint64(20 + 10*i), ordinal: true}
	}
	m["fourty"] = m["forty"]
	m["hundred"] = numWord{kind: numHundred, value: 100}
	m["hundredth"] = numWord{kind: numHundred, value: 100, ordinal: true}
	scales := []string{"thousand", "million", "billion", "trillion"}
	v := uint64(1000)
	for _, s := range scales {
		m[s] = numWord{kind: numScale, value: v}
		m[s+"th"] = numWord{kind: numScale, value: v, ordinal: true}
		v *= 1000
	}
	return m
}

// BenchmarkWordLookup looks ten transcript words up in the three lists
// normalisation consults most: number words, contractions, fillers.
func BenchmarkWordLookup(b *testing.B) {
	words := []string{"the", "agent", "confirmed", "twenty", "dont", "um", "march", "approved", "ninth", "zzz"}
	b.ReportAllocs()
	found := 0
	for b.Loop() {
		for _, w := range words {
			if _, ok := numberWords.get(w); ok {
				found++
			}
			if _, ok := contractionWords.get(w); ok {
				found++
			}
			if fillers.has(w) {
				found++
			}
		}
	}
	if found == 0 {
		b.Fatal("no word found")
	}
}

// The fast path for words whose only characters outside ASCII are
// typographic apostrophes folds them as the full folding does.
func TestStraightenApostrophesAsFolding(t *testing.T) {
	for _, w := range []string{"member’s", "Member‘S", "Oʼbrien", "don’t", "’", "’’x’", "rock’n’roll", "ID’s", "a’b’c"} {
		t.Run(w, func(t *testing.T) {
			fast, ok := straightenApostrophes(w)
			if !ok {
				t.Fatal("not taken")
			}
			if want := strings.Map(straightApostrophe, foldSlow(w)); strings.ToLower(fast) != want {
				t.Errorf("fast %q, folding %q", strings.ToLower(fast), want)
			}
		})
	}
	for _, w := range []string{"café’s", "´s", "′", "naïve"} {
		if _, ok := straightenApostrophes(w); ok {
			t.Errorf("%q: taken, though it holds more than apostrophes outside ASCII", w)
		}
	}
}
