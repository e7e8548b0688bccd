package report_test

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/report"
)

// FuzzJSONLReader: no input panics the reader of a benchmark's JSON lines,
// and every record it returns is a run or a benchmark.
func FuzzJSONLReader(f *testing.F) {
	if data, err := os.ReadFile("testdata/shard.jsonl"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"run":"a","score":1,"verdict":"pass","axes":{},"criteria":[],"counts":{"passed":0,"failed":0,"error":0,"skipped":0}}` + "\n" + `{"benchmark":{"score":1}}`))
	f.Add([]byte("\n\n{\"run\": null}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		jr := report.NewJSONLReader(bytes.NewReader(data), 1<<16)
		for range 10000 {
			rec, err := jr.Next()
			if err != nil {
				return
			}
			if (rec.Run == nil) == (rec.Benchmark == nil) {
				t.Fatalf("line %d is neither a run nor a benchmark, or both", rec.Line)
			}
		}
	})
}

// FuzzEscape: whatever the input, the escaped text holds no control
// character, is valid UTF-8 and is one line; printable input is unchanged.
func FuzzEscape(f *testing.F) {
	f.Add("x\n== fake  score 1.000\x1b]0;t\x07")
	f.Add("plain ünïcode")
	f.Add("\xff\u202e\x9b")
	f.Fuzz(func(t *testing.T, s string) {
		got := report.Escape(s)
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\x1b\x07\x00") {
			t.Fatalf("Escape(%q) = %q", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("Escape(%q) = %q holds %U", s, got, r)
			}
		}
	})
}

// A benchmark written as JSON lines reads back to the same benchmark.
func TestJSONLReaderRoundTrip(t *testing.T) {
	var b bytes.Buffer
	bw, err := report.NewBenchmarkWriter(&b, report.JSONL, report.Options{Shard: "1/3"})
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := runs()
	for _, r := range rs {
		if err := bw.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	want, err := bw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if *updateScreenshot { // -update rewrites the fuzz seed too
		if err := os.WriteFile("testdata/shard.jsonl", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jr := report.NewJSONLReader(&b, 0)
	var builder assert.BenchmarkBuilder
	var got *assert.BenchmarkResult
	for {
		rec, err := jr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Shard != "1/3" {
			t.Errorf("line %d: shard %q", rec.Line, rec.Shard)
		}
		if rec.Run != nil {
			builder.Add(rec.Run.Name, rec.Run.Result)
		} else {
			got = rec.Benchmark
		}
	}
	if got == nil || got.Score != want.Score || len(got.Criteria) != len(want.Criteria) || builder.Result().Score != want.Score {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}
