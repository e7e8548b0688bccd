package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"expected", "path", "portal-state-match", "hl7-structural", "correlate_by"}
	for word, want := range map[string]string{
		"expect":             "expected",
		"Path":               "path",
		"portal-state-matc":  "portal-state-match",
		"hl7-structure":      "hl7-structural",
		"corelate_by":        "correlate_by",
		"zzz":                "",
		"completely-unknown": "",
	} {
		if got := Nearest(word, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
	if Distance("kitten", "sitting") != 3 || Distance("", "abc") != 3 {
		t.Error("distance")
	}
}
