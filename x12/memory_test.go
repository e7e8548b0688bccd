package x12_test

import (
	"runtime"
	"testing"

	"github.com/assaykit/assay/x12"
)

// TestParseMemory bounds what parsing a large interchange (over 1 MiB, so
// that the segment index waits for first use) allocates: a few bytes per
// transaction set, not a record of tens of bytes each, and nothing else in
// proportion to the input. ParseString reads the string it is given; Parse
// makes one copy of its []byte (a string cannot share a slice's memory
// without unsafe), and no more than that one.
func TestParseMemory(t *testing.T) {
	const sets = 2000
	data := largeInterchange(t, sets)
	if len(data) <= 1<<20 {
		t.Fatalf("the input is %d bytes, not over 1 MiB", len(data))
	}
	s := string(data)
	for _, tc := range []struct {
		name  string
		parse func() (*x12.Interchange, error)
		copy  int // bytes of the one copy of the input the parse may make
	}{
		{"Parse", func() (*x12.Interchange, error) { return x12.Parse(data) }, len(data)},
		{"ParseString", func() (*x12.Interchange, error) { return x12.ParseString(s) }, 0},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		x, err := tc.parse()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		limit := uint64(tc.copy + 8*sets + 8<<10)
		if got > limit {
			t.Errorf("%s of %d bytes, %d transaction sets allocated %d bytes; want at most %d", tc.name, len(data), sets, got, limit)
		}
		t.Logf("%s of %d bytes, %d transaction sets: %d bytes allocated", tc.name, len(data), sets, got)
		if n := len(x.Transactions()); n != sets {
			t.Errorf("%s: %d transaction sets, want %d", tc.name, n, sets)
		}
	}
}
