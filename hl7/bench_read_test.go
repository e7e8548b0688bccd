package hl7_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/assaykit/assay/hl7"
)

// bigInput is n copies of the CRLF ADT test message with distinct control
// ids, back to back: the shape of a large file `assay hl7 get` reads.
func bigInput(b *testing.B, n int) []byte {
	msg, err := os.ReadFile("testdata/own/adt_a01_crlf.hl7")
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for i := range n {
		buf.Write(bytes.Replace(msg, []byte("|ADT-0001|"), fmt.Appendf(nil, "|ADT-%06d|", i), 1))
	}
	return buf.Bytes()
}

// BenchmarkBatchWideReads parses a batch of N messages and reads MSH[i].10
// for every i, as `assay hl7 get FILE 'MSH[N].10'` would for each message:
// with the segment index the time per read stays flat as N grows (linear
// in the batch); scanning from the start it grows with N (quadratic).
func BenchmarkBatchWideReads(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			data := bigInput(b, n)
			paths := make([]hl7.Path, n)
			for i := range paths {
				paths[i] = hl7.MustParsePath(fmt.Sprintf("MSH[%d].10", i+1))
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				batch, err := hl7.Parse(data)
				if err != nil {
					b.Fatal(err)
				}
				for i, p := range paths {
					if v := batch.Get(p); len(v.Bytes()) != 10 {
						b.Fatalf("MSH[%d].10 = %q", i+1, v.Bytes())
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/read")
		})
	}
}

// BenchmarkParseLarge parses an 8 MB batch (a big file's first step).
func BenchmarkParseLarge(b *testing.B) {
	data := bigInput(b, 12000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := hl7.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadEveryFieldByPath reads every field of every segment of
// every message of the mixed corpus through Message.Get, one path per
// field (SEG[occ].N), as a program that dumps a message would.
func BenchmarkReadEveryFieldByPath(b *testing.B) {
	inputs, total, _ := loadBench(b)
	type read struct {
		m     *hl7.Message
		paths []hl7.Path
	}
	var reads []read
	for _, data := range inputs {
		batch, _ := hl7.Parse(data)
		for _, m := range batch.Messages() {
			r := read{m: m}
			occ := map[string]int{}
			for seg := range m.Segments() {
				name := seg.Name()
				occ[name]++
				fields := strings.Count(string(seg.Bytes()), string(m.Delimiters().Field))
				for f := 1; f <= fields; f++ {
					r.paths = append(r.paths, hl7.Path{Segment: name, Occurrence: occ[name], Field: f})
				}
			}
			reads = append(reads, r)
		}
	}
	var buf []byte
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, r := range reads {
			for _, p := range r.paths {
				buf = r.m.Get(p).AppendText(buf[:0])
			}
		}
	}
}

// BenchmarkReadEveryFieldByIterator reads the same fields, and every
// component of them, with the segment and field iterators: one pass over
// each segment.
func BenchmarkReadEveryFieldByIterator(b *testing.B) {
	inputs, total, _ := loadBench(b)
	var msgs []*hl7.Message
	for _, data := range inputs {
		batch, _ := hl7.Parse(data)
		msgs = append(msgs, batch.Messages()...)
	}
	var buf []byte
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, m := range msgs {
			for i := range m.Len() { // Segments works too, but three nested range-over-func loops allocate
				seg := m.Segment(i)
				for _, f := range seg.Fields() {
					for rep := range f.Repetitions() {
						for c := range rep.Components() {
							buf = c.AppendText(buf[:0])
						}
					}
				}
			}
		}
	}
}

// BenchmarkSelectLarge reads two paths from an 8 MB batch in one pass
// without a segment table, as `assay hl7 get` can: compare
// BenchmarkParseLarge, which only builds the table.
func BenchmarkSelectLarge(b *testing.B) {
	data := bigInput(b, 12000)
	paths := []hl7.Path{hl7.MustParsePath("MSH[11000].10"), hl7.MustParsePath("MSH[*].9.2")}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out, err := hl7.Select(data, paths...)
		if err != nil || len(out[0]) != 1 || len(out[1]) != 12000 {
			b.Fatal(err)
		}
	}
}
