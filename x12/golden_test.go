package x12

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// dump renders a parsed interchange for review: its delimiters,
// transaction sets, findings, and every segment with its loop path.
func dump(x *Interchange) string {
	var b strings.Builder
	for k, d := range x.delims {
		rep := "none"
		if d.Repetition != 0 {
			rep = fmt.Sprintf("%q", d.Repetition)
		}
		fmt.Fprintf(&b, "# interchange %d: element %q, repetition %s, component %q, segment %q\n", k+1, d.Element, rep, d.Component, d.Segment)
	}
	for _, tx := range x.Transactions() {
		fmt.Fprintf(&b, "# transaction set %s %s (%s): segments %d to %d\n", tx.Code, tx.Control, tx.Version, tx.Start+1, tx.End+1)
	}
	for _, f := range x.findings {
		fmt.Fprintf(&b, "# finding: %s\n", f)
	}
	for i := range x.Len() {
		s := x.Segment(i)
		fmt.Fprintf(&b, "%4d  %-38s %s\n", i+1, s.LoopPath(), s)
	}
	return b.String()
}

// TestGolden parses every X12 file in testdata and compares the dump with
// testdata/golden/NAME.golden (go test -run TestGolden -update rewrites
// them). Files that cannot be parsed record their error instead.
func TestGolden(t *testing.T) {
	corpus, _ := filepath.Glob("testdata/corpus/*.x12")
	own, _ := filepath.Glob("testdata/own/*.x12")
	files := append(corpus, own...)
	if len(files) < 31 {
		t.Fatalf("found %d X12 files in testdata; the corpus alone has 31", len(files))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			x, err := Parse(data)
			if err != nil {
				got = "# error: " + err.Error() + "\n"
			} else {
				got = dump(x)
			}
			golden.Compare(t, filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".x12")+".golden"), []byte(got), *update)
		})
	}
}
