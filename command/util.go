package command

import (
	"sort"
	"strconv"
	"strings"
)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// indent indents every line after the first.
func indent(s, prefix string) string { return strings.ReplaceAll(s, "\n", "\n"+prefix) }
