package x12

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// within reports whether loop l is loop a or nested in it.
func within(loops []loop, l, a int32) bool {
	for ; l >= 0; l = loops[l].parent {
		if l == a {
			return true
		}
	}
	return false
}

// checkIndex compares the segment index with a scan of the input (each
// segment's start, and its text and delimiters read from there), and
// checks the loop extents: every segment of a loop or its nested loops
// lies within the loop's first and last segments, its first segment is
// its own, and its last is inside it.
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
	for i, sg := range segs {
		for l := sg.loop; l >= 0; l = loops[l].parent {
			if int32(i) < loops[l].first || int32(i) > loops[l].last {
				t.Fatalf("%s: segment %d is in loop %d (%s), which spans segments %d to %d", name, i, l, loops[l].id(), loops[l].first, loops[l].last)
			}
		}
	}
	for l := range loops {
		if lp := loops[l]; segs[lp.first].loop != int32(l) || !within(loops, segs[lp.last].loop, int32(l)) {
			t.Fatalf("%s: loop %d (%s) spans segments %d to %d, which are not its own", name, l, lp.id(), lp.first, lp.last)
		}
	}
	// An input of up to eagerLimit bytes is indexed as it is parsed, a
	// larger one on first use by buildIndex: both ways give one index.
	lazySegs, lazyLoops := x.buildIndex()
	if !slices.Equal(segs, lazySegs) || !slices.Equal(loops, lazyLoops) {
		t.Fatalf("%s: the index built on first use (%d segments, %d loops) differs from the one in use (%d segments, %d loops)", name, len(lazySegs), len(lazyLoops), len(segs), len(loops))
	}
}

// The segment index and the loop extents hold together on every file of
// testdata.
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

// FuzzIndex: on any input, the index and the loop extents hold together as
// in TestIndexExtents.
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

// Segments of many lengths from 0 to 200 bytes, at many offsets, end where
// a scan of the input ends them; and a second interchange with other
// delimiters switches the terminator.
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
