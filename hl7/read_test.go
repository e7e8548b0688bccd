package hl7

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// bigBatch is n copies of a test message with distinct control ids, back
// to back, plus a file header and trailer: a batch large enough to be
// indexed.
func bigBatch(t testing.TB, n int) []byte {
	t.Helper()
	msg := readTestdata(t, "own/adt_a01_crlf.hl7")
	var b bytes.Buffer
	b.WriteString("FHS|^~\\&|S|F\r\n")
	for i := range n {
		b.Write(bytes.Replace(msg, []byte("|ADT-0001|"), fmt.Appendf(nil, "|ADT-%05d|", i), 1))
	}
	b.WriteString("FTS|1\r\n")
	return b.Bytes()
}

// TestIndexedReadsMatchScans reads the same paths through the segment
// index and by scanning, batch-wide and per message.
func TestIndexedReadsMatchScans(t *testing.T) {
	b, err := Parse(bigBatch(t, 40))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.segs) <= indexThreshold {
		t.Fatalf("only %d segments: not indexed", len(b.segs))
	}
	paths := []string{"MSH.10", "MSH[7].10", "MSH[40].10", "MSH[41].10", "MSH[*].10", "OBX[*].5", "OBX[3].5", "OBX[100].5", "OBX[121].3.2", "PID.5.1", "ZPI[*]", "FHS.3", "FTS.1", "NK1.1", "EVN[*].2"}
	collect := func(f func(yield func(Value) bool)) []string {
		var out []string
		f(func(v Value) bool { out = append(out, string(v.Bytes())+fmt.Sprint(v.Exists())); return true })
		return out
	}
	ranges := [][2]int{{0, len(b.segs)}}
	for _, m := range b.messages[:3] {
		ranges = append(ranges, [2]int{m.first, m.first + len(m.segs)})
	}
	ranges = append(ranges, [2]int{b.messages[39].first, b.messages[39].first + len(b.messages[39].segs)})
	for _, s := range paths {
		p := MustParsePath(s)
		want := p.Occurrence
		if want == 0 {
			want = 1
		}
		id := packID(p.Segment[0], p.Segment[1], p.Segment[2])
		for _, r := range ranges {
			scan := collect(func(y func(Value) bool) { b.queryScan(r[0], r[1], id, want, &p, y) })
			indexed := collect(func(y func(Value) bool) { b.queryIndexed(r[0], r[1], id, want, &p, y) })
			if !slices.Equal(scan, indexed) {
				t.Errorf("%s in %v: scan %q, index %q", s, r, scan, indexed)
			}
		}
	}
	if got := b.Get(MustParsePath("MSH[40].10")).String(); got != "ADT-00039" {
		t.Errorf("MSH[40].10 = %q", got)
	}
	if got := b.Message(39).ControlID(); got != "ADT-00039" {
		t.Errorf("message 39: %q", got)
	}
}

// TestFieldIterators reads every field, repetition, component and
// subcomponent of a message through the iterators and checks them against
// path reads.
func TestFieldIterators(t *testing.T) {
	m, err := ParseMessage(readTestdata(t, "own/orm_o01_priorauth.hl7"))
	if err != nil {
		t.Fatal(err)
	}
	occ := map[string]int{}
	reads := 0
	for seg := range m.Segments() {
		name := seg.Name()
		occ[name]++
		for n, field := range seg.Fields() {
			reps := 0
			for rep := range field.Repetitions() {
				reps++
				path := Path{Segment: name, Occurrence: occ[name], Field: n, Repetition: reps}
				if got := m.Get(path); !bytes.Equal(got.Bytes(), rep.Bytes()) || got.String() != rep.String() {
					t.Fatalf("%s: path reads %q, iterator %q", path, got.Bytes(), rep.Bytes())
				}
				reads++
				if seg.hdr && n <= 2 {
					continue
				}
				comps := 0
				for comp := range rep.Components() {
					comps++
					cp := path
					cp.Component = comps
					if got := m.Get(cp); got.String() != comp.String() {
						t.Fatalf("%s: path reads %q, iterator %q", cp, got.String(), comp.String())
					}
					subs := 0
					for sub := range comp.Subcomponents() {
						subs++
						sp := cp
						sp.Subcomponent = subs
						if got := m.Get(sp); got.String() != sub.String() {
							t.Fatalf("%s: path reads %q, iterator %q", sp, got.String(), sub.String())
						}
						reads++
					}
				}
			}
		}
	}
	if reads < 100 {
		t.Fatalf("only %d reads", reads)
	}
	// A whole field reads as encoded when it has structure, unescaped
	// when it is a leaf.
	seg := m.Segment(1)
	for n, f := range seg.Fields() {
		if n == 3 && !strings.Contains(f.String(), "~") {
			t.Errorf("PID.3 whole: %q", f.String())
		}
	}
}
