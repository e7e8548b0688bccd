package x12_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assaykit/assay/x12"
)

// largeInterchange repeats the transaction set of janedoe_271.x12 n times in
// one functional group, with its own control numbers: about 750 bytes and
// 22 segments per transaction set.
func largeInterchange(tb testing.TB, n int) []byte {
	s := string(mustRead(tb, "own/janedoe_271.x12"))
	head := s[:strings.Index(s, "ST*")]
	tx := s[strings.Index(s, "ST*"):strings.Index(s, "GE*")]
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		b.WriteString(strings.ReplaceAll(tx, "*2001", fmt.Sprintf("*%04d", i%10000)))
	}
	fmt.Fprintf(&b, "GE*%d*9700~\nIEA*1*000009700~\n", n)
	return []byte(b.String())
}

// readPaths are the ten reads of the benchmarks.
var readPaths = []string{
	"BHT03", "NM1[IL]09", "2100C/NM1[IL]03", "2110C/EB01", "EB03[2]",
	"2110C/EB(*)11", "2120C/NM103", "HI01-2", "ISA06", "SE01",
}

func compiled(tb testing.TB) []x12.Path {
	ps := make([]x12.Path, len(readPaths))
	for i, s := range readPaths {
		ps[i] = x12.MustParsePath(s)
	}
	return ps
}

// BenchmarkParse is parsing alone (envelope checks and loop assignment
// included) of a 1,000-transaction-set interchange.
func BenchmarkParse(b *testing.B) {
	data := largeInterchange(b, 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x12.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseLoops is parsing followed by loop recognition (the segment
// index and the loops of every transaction set), as the first loop path
// read triggers it, on the 1,000-transaction-set interchange.
func BenchmarkParseLoops(b *testing.B) {
	data := largeInterchange(b, 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		x, err := x12.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if x.Segment(0).LoopPath() != "" {
			b.Fatal("the ISA is in a loop")
		}
	}
}

// BenchmarkParseRead parses one 271 response (what an x12-response check
// does per record) and reads ten paths.
func BenchmarkParseRead(b *testing.B) { benchParseRead(b, mustRead(b, "own/janedoe_271.x12")) }

// BenchmarkParseReadLarge is BenchmarkParseRead on the large interchange:
// each read without a loop or with (*) scans it all.
func BenchmarkParseReadLarge(b *testing.B) { benchParseRead(b, largeInterchange(b, 1000)) }

// benchParseRead parses data and reads the ten benchmark paths from it.
func benchParseRead(b *testing.B, data []byte) {
	paths := compiled(b)
	var buf []string
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		x, err := x12.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range paths {
			buf = p.AppendValues(buf[:0], x)
		}
	}
}

// BenchmarkGet is one read through Interchange.Get, path compilation
// included.
func BenchmarkGet(b *testing.B) {
	x, err := x12.Parse(mustRead(b, "own/janedoe_271.x12"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Get("2000C/2100C/2110C(4)/EB11"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLargeInterchange(t *testing.T) {
	x, err := x12.Parse(largeInterchange(t, 1000))
	if err != nil || len(x.Findings()) > 0 {
		t.Fatalf("%v %v", err, x.Findings())
	}
	if n := len(x.Transactions()); n != 1000 {
		t.Fatalf("%d transaction sets", n)
	}
	if got, _ := x.Get("2000C(1000)/NM1[IL]09"); len(got) != 1 || got[0] != "W123456789" {
		t.Errorf("got %q", got)
	}
}
