// Package words writes counts of things in English: "1 row", "2 rows",
// "2 faxes", "3 entries".
package words

import (
	"strconv"
	"strings"
)

// Plural returns noun in its plural form: "es" after s, x, z, ch and sh,
// "ies" for a y after a consonant, else "s".
func Plural(noun string) string {
	lower := strings.ToLower(noun)
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "z"),
		strings.HasSuffix(lower, "ch"), strings.HasSuffix(lower, "sh"):
		return noun + "es"
	case strings.HasSuffix(lower, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(lower[len(lower)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Count returns "N noun", the noun plural unless n is 1.
func Count(n int, noun string) string {
	if n != 1 {
		noun = Plural(noun)
	}
	return strconv.Itoa(n) + " " + noun
}
