package x12

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// Segments of every length from 0 to 200 bytes, at every offset relative
// to the 64-byte blocks the parse searches for terminators in, end where a
// scan of the input ends them; and a second interchange with other
// delimiters switches the terminator mid-block.
func TestTerminatorSearch(t *testing.T) {
	isa1 := "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261119*1401*^*00501*000000001*0*P*:~"
	isa2 := "ISA|00|          |00|          |ZZ|SENDER         |ZZ|RECEIVER       |261119|1401|^|00501|000000002|0|P|:!"
	for pad := 0; pad < 64; pad += 7 {
		for l := 0; l <= 200; l += 3 {
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", pad))
			b.WriteString(isa1 + "\nGS*HB*S*R*20261120*0930*1*X*005010X279A1~ST*271*0001*005010X279A1~")
			b.WriteString("MSG*" + strings.Repeat("A", l) + "~\r\nNM1*IL*1*" + strings.Repeat("B", 200-l) + "~SE*4*0001~GE*1*1~IEA*1*000000001~")
			b.WriteString(isa2 + "GS|HB|S|R|20261120|0930|2|X|005010X279A1!ST|271|0002|005010X279A1!")
			b.WriteString("MSG|" + strings.Repeat("C~", l/2) + "!SE|3|0002!GE|1|2!IEA|1|000000002")
			x, err := ParseString(b.String())
			if err != nil {
				t.Fatal(err)
			}
			checkIndex(t, "pad "+strconv.Itoa(pad)+" length "+strconv.Itoa(l), x)
			if x.Len() != 15 {
				t.Fatalf("pad %d length %d: %d segments, want 15", pad, l, x.Len())
			}
			if got := x.Segment(3).String(); got != "MSG*"+strings.Repeat("A", l) {
				t.Fatalf("pad %d length %d: segment 4 is %q", pad, l, got)
			}
			if got := x.Segment(11).String(); got != "MSG|"+strings.Repeat("C~", l/2) {
				t.Fatalf("pad %d length %d: segment 12 is %q", pad, l, got)
			}
			if f := x.Findings(); len(f) != 1 || !strings.Contains(f[0].Message, "no segment terminator") {
				t.Fatalf("pad %d length %d: findings %v", pad, l, f)
			}
		}
	}
}
