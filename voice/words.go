package voice

// The word lists of normalisation and matching are sorted slices of
// constants, not map literals: a slice of constants is data in the binary,
// while a map literal is built by code that runs when any program importing
// the package starts, voice check or not. A test keeps them sorted and
// free of duplicates, which their binary search needs.

// wordSet is a sorted list of words.
type wordSet []string

func (s wordSet) has(w string) bool {
	i := search(len(s), func(i int) bool { return atOrAfter(s[i], w) })
	return i < len(s) && s[i] == w
}

// wordMap is a list of words with a value each, sorted by word.
type wordMap[V any] []wordEntry[V]

type wordEntry[V any] struct {
	word  string
	value V
}

func (m wordMap[V]) get(w string) (V, bool) {
	if i := search(len(m), func(i int) bool { return atOrAfter(m[i].word, w) }); i < len(m) && m[i].word == w {
		return m[i].value, true
	}
	var zero V
	return zero, false
}

// search is sort.Search, written out so that the compiler inlines it and
// its predicate into each lookup: normalising a transcript looks up every
// word in several lists.
func search(n int, atOrAfter func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !atOrAfter(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// atOrAfter is a >= b, deciding on the first bytes where they differ, as
// they do at most steps of a search, without a call to compare strings.
func atOrAfter(a, b string) bool {
	if a != "" && b != "" && a[0] != b[0] {
		return a[0] > b[0]
	}
	return a >= b
}
