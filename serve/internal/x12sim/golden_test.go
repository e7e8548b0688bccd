package x12sim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/internal/golden"
)

// TestLoops answers each request of testdata/requests and writes every
// segment of the answer with the loops assay's loop recognition puts it
// in, as testdata/golden/NAME.loops: each segment lands in the loop the
// 005010 guide puts it in (EB and MSG in 2110C, AAA in 2100B/2100C, STC
// in 2200D, HCR in 2000F...). -update rewrites the files.
func TestLoops(t *testing.T) {
	files, _ := filepath.Glob("testdata/requests/*.x12")
	if len(files) == 0 {
		t.Fatal("no requests")
	}
	tr := newFrame(t, nil).newRun("loops")
	for _, file := range files {
		req, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		x := tr.answer(string(req))
		var b strings.Builder
		for i := range x.Len() {
			s := x.Segment(i)
			fmt.Fprintf(&b, "%-28s %s\n", or(s.LoopPath(), "-"), s)
		}
		golden.Compare(t, filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(file), ".x12")+".loops"), []byte(b.String()), *update)
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
