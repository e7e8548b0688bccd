package voice

// ControlWords returns every word control phrases are made of, for tests.
func ControlWords() []string {
	var out []string
	for _, l := range [][]string{controlAdjectives, controlNouns, controlVerbs} {
		out = append(out, l...)
	}
	return out
}
