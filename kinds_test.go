package assay_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	_ "github.com/assaykit/assay/sandbox" // every built-in kind
)

// KINDS.md's table of evidence names the sixteen kinds of the design once
// each, and its "always" column is what the kind's Register says its evidence always
// holds (assert.Reports), which assay schema result requires.
func TestKindsEvidenceTable(t *testing.T) {
	data, err := os.ReadFile("KINDS.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "| kind | always | sometimes |\n|---|---|---|\n")
	if !ok {
		t.Fatal("KINDS.md has no table of evidence (| kind | always | sometimes |)")
	}
	names := func(cell string) []string {
		var out []string
		for f := range strings.SplitSeq(cell, "`") {
			if f = strings.TrimSpace(f); f != "" && !strings.HasPrefix(f, ",") && !strings.HasPrefix(f, "(") {
				out = append(out, f)
			}
		}
		return out
	}
	listed := map[string]bool{}
	for line := range strings.SplitSeq(table, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("KINDS.md: a row of the table of evidence has %d cells: %s", len(cells), line)
		}
		always := names(cells[1])
		for _, kind := range names(cells[0]) {
			if listed[kind] {
				t.Errorf("KINDS.md lists %s twice", kind)
			}
			listed[kind] = true
			if got := assert.DefaultRegistry().EvidenceKeys(kind); !slices.Equal(got, always) {
				t.Errorf("KINDS.md says %s always reports %v; its Register says %v", kind, always, got)
			}
		}
	}
	// A kind added since need not be listed (it touches only its package
	// and sandbox/), but the sixteen of the design are.
	if len(listed) < 16 {
		t.Errorf("KINDS.md's table of evidence lists %d kinds, want the sixteen of the design", len(listed))
	}
}
