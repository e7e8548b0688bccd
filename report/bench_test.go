package report_test

import (
	"io"
	"runtime"
	"strconv"
	"testing"

	"github.com/assaykit/assay/report"
)

// BenchmarkBenchmarkWriter writes a benchmark of b.N runs as JSON lines and
// reports the heap in use at the end per run: it stays near the size of a
// failing run's name per criterion, whatever b.N is (go test ./report -bench
// BenchmarkWriter -benchmem).
func BenchmarkBenchmarkWriter(b *testing.B) {
	task := task()
	b.ReportAllocs()
	bw, err := report.NewBenchmarkWriter(io.Discard, report.JSONL, report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := bw.Add(report.Run{Name: "run-" + strconv.Itoa(i), Result: task}); err != nil {
			b.Fatal(err)
		}
	}
	bm, err := bw.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/float64(b.N), "heap-B/run")
	if len(bm.Criteria) != 3 {
		b.Fatal(bm.Criteria)
	}
}
