package x12

import (
	"context"
	"testing"

	"github.com/assaykit/assay/check"
)

// TestSourcesParseOnce: records from FolderSource and MemorySource share
// one parse across copies (the checks of a snapshot receive the records by
// value, and each criterion reads them again), while records built by hand
// parse on every call.
func TestSourcesParseOnce(t *testing.T) {
	recs, err := FolderSource(check.DirFS("testdata/records"), 0).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("no records")
	}
	mem, _ := MemorySource(Record{Response: recs[0].Response}).Records(context.Background())
	for name, rs := range map[string][]Record{"FolderSource": recs, "MemorySource": mem} {
		first, second := rs[0], rs[0]
		a, _, err := first.interchanges()
		if err != nil {
			t.Fatal(err)
		}
		b, _, _ := second.interchanges()
		if a != b {
			t.Fatalf("two copies of a %s record parsed their response twice", name)
		}
	}
	byHand := Record{Response: recs[0].Response}
	c, _, _ := byHand.interchanges()
	d, _, _ := byHand.interchanges()
	if c == d || c == nil {
		t.Fatal("a hand-built record shared a parse it has no cache for")
	}
}
