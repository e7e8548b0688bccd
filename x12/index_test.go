package x12

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// refExtents computes each loop's last segment the slow way, by walking
// the segment index backwards: the first segment that reaches a loop (or
// a loop nested in it) is its last.
func refExtents(segs []segment, loops []loop) []int32 {
	last := make([]int32, len(loops))
	for l := range last {
		last[l] = -1
	}
	for i := int32(len(segs)) - 1; i >= 0; i-- {
		for l := segs[i].loop; l >= 0 && last[l] < 0; l = loops[l].parent {
			last[l] = i
		}
	}
	return last
}

// checkIndex compares the index Parse built (in its pass, for an input
// this small) with the one built on first use and with a scan of the
// input (each segment's text and delimiters, read from its start), and
// the loop extents the indexer recorded with refExtents.
func checkIndex(t *testing.T, name string, x *Interchange) {
	t.Helper()
	segs, loops := x.loopIndex()
	if len(segs) != x.Len() {
		t.Fatalf("%s: %d segments indexed, Len %d", name, len(segs), x.Len())
	}
	sc := x.scan()
	for i := 0; ; i++ {
		start, end, ok := sc.next()
		if !ok {
			if i != len(segs) {
				t.Fatalf("%s: the scan finds %d segments, the index has %d", name, i, len(segs))
			}
			break
		}
		if i >= len(segs) || segs[i].start != int32(start) {
			t.Fatalf("%s: segment %d starts at %d in the scan, not in the index", name, i, start)
		}
		if txt, d := x.segmentAt(int32(start)); txt != x.data[start:end] || *d != sc.d {
			t.Fatalf("%s: segment %d reads %q with %+v, the scan %q with %+v", name, i, txt, *d, x.data[start:end], sc.d)
		}
	}
	want := refExtents(segs, loops)
	for l := range loops {
		if loops[l].last != want[l] {
			t.Fatalf("%s: loop %d (%s, first segment %d) ends at segment %d, want %d", name, l, loopNames[loops[l].name], loops[l].first, loops[l].last, want[l])
		}
	}
	lazy := &Interchange{data: x.data, nsegs: x.nsegs, marks: x.marks, delims: x.delims, sets: x.sets, groups: x.groups}
	lsegs, lloops := lazy.loopIndex()
	if !slices.Equal(segs, lsegs) {
		for i := range min(len(segs), len(lsegs)) {
			if segs[i] != lsegs[i] {
				t.Fatalf("%s: segment %d indexed as %+v in the parse, %+v on first use", name, i, segs[i], lsegs[i])
			}
		}
		t.Fatalf("%s: %d segments indexed in the parse, %d on first use", name, len(segs), len(lsegs))
	}
	if !slices.Equal(loops, lloops) {
		t.Fatalf("%s: loops %+v in the parse, %+v on first use", name, loops, lloops)
	}
}

// The loop extents recorded while assigning loops are those a backward
// walk of the index finds, and the index Parse builds in its pass is the
// one built on first use, on every file of testdata.
func TestIndexExtents(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.x12")
	n := 0
	for _, file := range files {
		data, _ := os.ReadFile(file)
		x, err := Parse(data)
		if err != nil {
			continue
		}
		checkIndex(t, file, x)
		n++
	}
	if n < 30 {
		t.Errorf("checked %d files", n)
	}
}

// FuzzIndex: on any input, the loop extents and the index agree as in
// TestIndexExtents.
func FuzzIndex(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.x12")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte(strings.Repeat("x", 10)))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Parse(data)
		if err != nil {
			return
		}
		checkIndex(t, "input", x)
	})
}
