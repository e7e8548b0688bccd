// Package suggest finds the name a person most likely meant, for "did you
// mean" in messages about a mistyped key, kind or flag value.
package suggest

import "strings"

// Nearest returns the name in names closest to word (case-insensitively,
// by edit distance), or "" when none is within two edits (a third of
// word's length for longer words) while sharing at least two characters'
// worth of it: "x" suggests nothing.
func Nearest(word string, names []string) string {
	limit := min(max(2, len(word)/3), len(word)-2)
	best, bestDist := "", limit+1
	lw := strings.ToLower(word)
	for _, n := range names {
		if d := Distance(lw, strings.ToLower(n)); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
