package voice

import (
	"slices"
	"strings"
)

// The word lists of normalisation and matching are sorted slices of
// constants, not map literals: a slice of constants is data in the binary,
// while a map literal is built by code that runs when any program importing
// the package starts, voice check or not. A test keeps them sorted and
// free of duplicates, which their binary search needs.

// wordSet is a sorted list of words.
type wordSet []string

func (s wordSet) has(w string) bool {
	_, ok := slices.BinarySearch(s, w)
	return ok
}

// wordMap is a list of words with a value each, sorted by word.
type wordMap[V any] []wordEntry[V]

type wordEntry[V any] struct {
	word  string
	value V
}

func (m wordMap[V]) get(w string) (V, bool) {
	i, ok := slices.BinarySearchFunc(m, w, func(e wordEntry[V], w string) int { return strings.Compare(e.word, w) })
	if !ok {
		var zero V
		return zero, false
	}
	return m[i].value, true
}
