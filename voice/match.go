package voice

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Method says which stage of a matcher decided a phrase.
type Method string

// The methods.
const (
	// MethodExact: the phrase's normalised words occur in a row.
	MethodExact Method = "exact"
	// MethodFuzzy: a window of words is similar enough (partial ratio).
	MethodFuzzy Method = "fuzzy"
	// MethodLLM: the LLM judge decided, on a quote that was verified.
	MethodLLM Method = "llm"
	// MethodNone: every stage ran and none found the phrase.
	MethodNone Method = "none"
)

// Match is a matcher's answer for one phrase.
type Match struct {
	// Phrase is the phrase as asked.
	Phrase string `json:"phrase"`
	// Found says whether the phrase was found.
	Found bool `json:"found"`
	// Turn is the 0-based index, in the whole transcript, of the turn where
	// the match starts; -1 when not found.
	Turn int `json:"turn"`
	// Quote is the original text matched (turns joined by " / " when a
	// phrase runs across consecutive turns of one speaker); "" when not
	// found.
	Quote string `json:"quote"`
	// Method is the stage that decided.
	Method Method `json:"method"`
	// Similarity is the fuzzy stage's partial ratio (1 for an exact match).
	Similarity float64 `json:"-"`
	// Reason explains a decision where a stage gives one (the judge's
	// reason, or why its answer was not accepted).
	Reason string `json:"reason,omitempty"`
}

// Matcher decides whether phrases are present in the turns of a speaker
// (Any: every turn) and says how. It returns one Match per phrase, in
// order, or an error when it could not decide (an LLM endpoint that
// failed): the check then reports status error. Implementations are safe
// for concurrent use.
type Matcher interface {
	Match(ctx context.Context, t *Transcript, speaker Speaker, phrases []string) ([]Match, error)
}

// DefaultThreshold is the partial ratio at or above which the fuzzy stage
// accepts a window: 0.85, so a phrase of 20 letters survives 3 edits
// (two misheard letters and a split word) and a phrase of fewer than 7
// letters must match exactly (spaces aside).
const DefaultThreshold = 0.85

// Phrases longer than these are matched exactly only: an edit distance
// over a long text is costly and a long phrase is rarely misheard in one
// place only.
const (
	maxFuzzyWords = 64
	maxFuzzyRunes = 512
)

// Loose is the deterministic default matcher: every phrase and turn is
// normalised (see Normalize), then an exact token-sequence search runs,
// then a fuzzy window match. Its zero value uses DefaultThreshold.
type Loose struct {
	// Threshold is the fuzzy stage's minimum partial ratio in (0, 1];
	// <= 0 means DefaultThreshold, > 1 turns the fuzzy stage off.
	Threshold float64
}

// Match implements Matcher. It never fails.
func (l Loose) Match(ctx context.Context, t *Transcript, speaker Speaker, phrases []string) ([]Match, error) {
	out := make([]Match, len(phrases))
	v := t.viewOf(speaker)
	var lev levenshtein
	for i, p := range phrases {
		out[i] = l.match(t, v, p, &lev)
	}
	return out, nil
}

func (l Loose) threshold() float64 {
	if l.Threshold <= 0 {
		return DefaultThreshold
	}
	return l.Threshold
}

func (l Loose) match(t *Transcript, v *view, phrase string, lev *levenshtein) Match {
	m := Match{Phrase: phrase, Turn: -1, Method: MethodNone}
	p := newPattern(phrase)
	if len(p.toks) == 0 {
		m.Reason = "the phrase has no words to match"
		return m
	}
	if s, ok := v.exact(p.toks); ok {
		return Match{Phrase: phrase, Found: true, Turn: v.toks[s].turn, Quote: t.quote(v.toks[s], v.toks[s+len(p.toks)-1]),
			Method: MethodExact, Similarity: 1}
	}
	th := l.threshold()
	if th > 1 || len(p.toks) > maxFuzzyWords || len(p.compact) > maxFuzzyRunes {
		return m
	}
	if sim, s, n := v.fuzzy(&p, th, lev); n > 0 && sim >= th {
		return Match{Phrase: phrase, Found: true, Turn: v.toks[s].turn, Quote: t.quote(v.toks[s], v.toks[s+n-1]),
			Method: MethodFuzzy, Similarity: sim}
	}
	return m
}

// view is the normalised words of one speaker's turns (Any: every turn).
// They fall in blocks, runs of consecutive turns of one speaker read as one
// text, so that a phrase split across those turns is found; no match
// crosses from one block into the next.
type view struct {
	toks []token
	end  []int32 // end[i]: one past the last word of word i's block
	// first[w] is word w's first position, next[i] the next position of
	// word i's word (-1 after its last): the positions of a word in order,
	// with no list allocated per word.
	first map[string]int32
	next  []int32
	runes []int32 // runes[i]: runes in toks[:i], for window lengths
	// digits[i] and guarded[i]: words with digits and guard words in
	// toks[:i], so that a window is rejected without reading it
	digits, guarded []int32
	flags           []uint8 // per word: flagDigit, flagGuard
}

const (
	flagDigit = 1 << iota
	flagGuard
)

// viewOf returns the view of speaker's turns, building it once.
func (t *Transcript) viewOf(speaker Speaker) *view {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.views[speaker]; ok {
		return v
	}
	var toks []token
	var end []int32
	var raw []rawWord
	open := false
	var cur Speaker
	flush := func() {
		if open {
			toks = append(toks, normalizeWords(raw)...)
			for len(end) < len(toks) {
				end = append(end, int32(len(toks)))
			}
		}
		raw, open = raw[:0], false
	}
	for i, turn := range t.turns {
		if speaker != Any && turn.Speaker != speaker {
			flush()
			continue
		}
		if open && turn.Speaker != cur {
			flush()
		}
		open, cur = true, turn.Speaker
		raw = splitWords(turn.Text, i, raw)
	}
	flush()
	v := newView(toks, end)
	if t.views == nil {
		t.views = map[Speaker]*view{}
	}
	t.views[speaker] = v
	return v
}

// newView indexes toks; end gives each word's block end (nil: one block).
func newView(toks []token, end []int32) *view {
	n := len(toks)
	if end == nil {
		end = make([]int32, n)
		for i := range end {
			end[i] = int32(n)
		}
	}
	v := &view{toks: toks, end: end, first: make(map[string]int32, n/4+1), next: make([]int32, n), runes: make([]int32, n+1),
		digits: make([]int32, n+1), guarded: make([]int32, n+1), flags: make([]uint8, n)}
	for i := n - 1; i >= 0; i-- {
		w := toks[i].text
		if j, ok := v.first[w]; ok {
			v.next[i] = j
		} else {
			v.next[i] = -1
		}
		v.first[w] = int32(i)
	}
	for i, tk := range toks {
		v.runes[i+1] = v.runes[i] + int32(utf8.RuneCountInString(tk.text))
		v.digits[i+1], v.guarded[i+1] = v.digits[i], v.guarded[i]
		if hasDigit(tk.text) {
			v.flags[i] |= flagDigit
			v.digits[i+1]++
		}
		if guards.has(tk.text) {
			v.flags[i] |= flagGuard
			v.guarded[i+1]++
		}
	}
	return v
}

// at returns word w's first position in the view, -1 when it has none.
func (v *view) at(w string) int {
	if i, ok := v.first[w]; ok {
		return int(i)
	}
	return -1
}

// quote returns the original text from token a to token b.
func (t *Transcript) quote(a, b token) string {
	if a.turn == b.eturn {
		return t.turns[a.turn].Text[a.start:b.end]
	}
	parts := []string{t.turns[a.turn].Text[a.start:]}
	for k := a.turn + 1; k < b.eturn; k++ {
		parts = append(parts, t.turns[k].Text)
	}
	parts = append(parts, t.turns[b.eturn].Text[:b.end])
	return strings.Join(parts, " / ")
}

// exact finds the first position where words occur in a row, within one
// block.
func (v *view) exact(words []string) (int, bool) {
	for i := v.at(words[0]); i >= 0; i = int(v.next[i]) {
		if i+len(words) > int(v.end[i]) {
			continue
		}
		ok := true
		for j := 1; j < len(words); j++ {
			if v.toks[i+j].text != words[j] {
				ok = false
				break
			}
		}
		if ok {
			return i, true
		}
	}
	return 0, false
}

// pattern is a phrase compiled for matching.
type pattern struct {
	toks    []string
	compact []rune   // the words without spaces
	digits  []string // words with digits, in order
	guards  []string // guard words, in order
}

// guards are the words the fuzzy stage never lets differ: negations and
// personal pronouns, so that a misspelling is tolerated but a change of
// whether, or of who, is not ("you do not need" is not "i do not need").
var guards = wordSet{
	"he", "her", "hers", "him", "his", "i", "me", "mine", "my", "neither",
	"never", "no", "nobody", "none", "nor", "not", "nothing", "our", "ours", "she",
	"their", "theirs", "them", "they", "us", "we", "without", "you", "your", "yours",
}

func newPattern(phrase string) pattern {
	toks := normalizeText(phrase, 0)
	p := pattern{toks: make([]string, len(toks))}
	var c strings.Builder
	for i, t := range toks {
		p.toks[i] = t.text
		c.WriteString(t.text)
		if hasDigit(t.text) {
			p.digits = append(p.digits, t.text)
		}
		if guards.has(t.text) {
			p.guards = append(p.guards, t.text)
		}
	}
	p.compact = []rune(c.String())
	return p
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// fuzzy finds the window most similar to p: windows of one
// word fewer to one word more than the phrase, compared without spaces by
// partial ratio, 1 - edits/longer length. A window must hold the phrase's
// words with digits exactly and in order, and the same guard words; a
// phrase of two or more words must share at least one word with it.
func (b *view) fuzzy(p *pattern, th float64, lev *levenshtein) (best float64, bestS, bestL int) {
	n := len(p.toks)
	pl := len(p.compact)
	for L := max(n-1, 1); L <= n+1; L++ {
		if L > len(b.toks) {
			break
		}
		try := func(s int) {
			if s+L > int(b.end[s]) {
				return // the window would cross into the next block
			}
			wl := int(b.runes[s+L] - b.runes[s])
			longer := max(wl, pl)
			k := int((1 - th) * float64(longer))
			if abs(wl-pl) > k || int(b.digits[s+L]-b.digits[s]) != len(p.digits) ||
				int(b.guarded[s+L]-b.guarded[s]) != len(p.guards) {
				return
			}
			if !b.sameDigitsAndGuards(p, s, L) {
				return
			}
			d := lev.distance(p.compact, b.window(s, L, lev), k)
			if d > k {
				return
			}
			sim := 1 - float64(d)/float64(longer)
			if sim > best {
				best, bestS, bestL = sim, s, L
			}
		}
		if n == 1 {
			for s := 0; s+L <= len(b.toks); s++ {
				try(s)
			}
			continue
		}
		lev.stamp++
		if len(lev.seen) < len(b.toks) {
			lev.seen = make([]uint32, len(b.toks))
		}
		for _, w := range p.toks {
			for q := b.at(w); q >= 0; q = int(b.next[q]) {
				for s := max(int(q)-L+1, 0); s <= int(q) && s+L <= len(b.toks); s++ {
					if lev.seen[s] != lev.stamp {
						lev.seen[s] = lev.stamp
						try(s)
					}
				}
			}
		}
	}
	return best, bestS, bestL
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sameDigitsAndGuards compares the window's words with digits and guard
// words with the phrase's, in order.
func (b *view) sameDigitsAndGuards(p *pattern, s, L int) bool {
	d, g := 0, 0
	for k := s; k < s+L; k++ {
		f := b.flags[k]
		if f == 0 {
			continue
		}
		t := b.toks[k].text
		if f&flagDigit != 0 {
			if d >= len(p.digits) || p.digits[d] != t {
				return false
			}
			d++
		}
		if f&flagGuard != 0 {
			if g >= len(p.guards) || p.guards[g] != t {
				return false
			}
			g++
		}
	}
	return d == len(p.digits) && g == len(p.guards)
}

// window writes the window's words without spaces into lev's buffer.
func (b *view) window(s, L int, lev *levenshtein) []rune {
	lev.buf = lev.buf[:0]
	for _, t := range b.toks[s : s+L] {
		for _, r := range t.text {
			lev.buf = append(lev.buf, r)
		}
	}
	return lev.buf
}

// levenshtein holds buffers for edit distances.
type levenshtein struct {
	buf       []rune
	prev, cur []int
	// seen marks the window starts tried for the current stamp
	seen  []uint32
	stamp uint32
}

// distance returns the edit distance of a and b, or k+1 when it is more
// than k (a band of width 2k+1 is computed).
func (l *levenshtein) distance(a, b []rune, k int) int {
	if abs(len(a)-len(b)) > k {
		return k + 1
	}
	if len(l.prev) < len(b)+1 {
		l.prev = make([]int, len(b)+1)
		l.cur = make([]int, len(b)+1)
	}
	prev, cur := l.prev[:len(b)+1], l.cur[:len(b)+1]
	big := k + 1
	for j := range prev {
		if j <= k {
			prev[j] = j
		} else {
			prev[j] = big
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		if i <= k {
			cur[0] = i
		} else {
			cur[0] = big
		}
		if lo > 1 {
			cur[lo-1] = big
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[j-1] + cost
			if x := prev[j] + 1; x < v {
				v = x
			}
			if x := cur[j-1] + 1; x < v {
				v = x
			}
			if v > big {
				v = big
			}
			cur[j] = v
			if v < rowMin {
				rowMin = v
			}
		}
		if hi < len(b) {
			cur[hi+1] = big
		}
		if rowMin > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
