package x12_test

import (
	"runtime"
	"testing"

	"github.com/assaykit/assay/x12"
)

// TestParseMemory bounds what parsing a large interchange allocates (the
// segment index waits for first use): a few bytes per transaction set, not
// a record of tens of bytes each, and nothing in proportion to the input.
// It parses with ParseString, which reads the string it is given; Parse
// copies its []byte into a string first, which is in proportion.
func TestParseMemory(t *testing.T) {
	const sets = 2000
	data := largeInterchange(t, sets)
	if len(data) <= 1<<20 {
		t.Fatalf("the input is %d bytes, not over 1 MiB", len(data))
	}
	s := string(data)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x, err := x12.ParseString(s)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	got := after.TotalAlloc - before.TotalAlloc
	const limit = 8*sets + 8<<10
	if got > limit {
		t.Errorf("ParseString of %d bytes, %d transaction sets allocated %d bytes; want at most %d", len(data), sets, got, limit)
	}
	t.Logf("ParseString of %d bytes, %d transaction sets: %d bytes allocated", len(data), sets, got)
	if n := len(x.Transactions()); n != sets {
		t.Errorf("%d transaction sets, want %d", n, sets)
	}
}
