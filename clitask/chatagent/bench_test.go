package chatagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/clitask/chatagent"
	"github.com/assaykit/assay/internal/chat/chattest"
)

// BenchmarkSuite100 runs a suite of 100 tasks (each one command, so two
// model calls) with concurrency 8 against the fake server answering after
// 20 ms, and reports the wall time against the sum of the fake's latencies:
// speedup is their ratio (8 at best), efficiency speedup over 8.
func BenchmarkSuite100(b *testing.B) {
	const latency = 20 * time.Millisecond
	var yaml strings.Builder
	yaml.WriteString("cli: sh\nhelp_modes: [none]\ntasks:\n")
	for i := range 100 {
		fmt.Fprintf(&yaml, "  - {id: t%03d, intent: \"Run `echo %d > out.txt`.\", assert: [{file_exists: out.txt}]}\n", i, i)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cli-bench.yaml"), []byte(yaml.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := clitask.LoadSuite(filepath.Join(dir, "cli-bench.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	// as the assay command is: what commands leave is found among its
	// children, not by reading every process of the machine
	if err := clitask.BecomeSubreaper(); err != nil {
		b.Logf("no subreaper: %v", err)
	}
	var wall, slept time.Duration
	for b.Loop() {
		srv := chattest.NewServer(chattest.WithLatency(latency))
		agent, err := chatagent.New(chatagent.Config{BaseURL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		rep, err := (&clitask.Runner{Agent: agent, Models: []string{"solver"}, Concurrency: 8, TempDir: dir}).Run(context.Background(), s)
		wall += time.Since(start)
		slept += srv.Slept()
		srv.Close()
		if err != nil || len(rep.Runs) != 100 || rep.PassRates["solver"].Passed != 100 {
			b.Fatalf("%v: %+v", err, rep.PassRates)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Milliseconds())/n, "wall-ms")
	b.ReportMetric(float64(slept.Milliseconds())/n, "latency-sum-ms")
	b.ReportMetric(float64(slept)/float64(wall), "speedup")
	b.ReportMetric(float64(slept)/float64(wall)/8, "efficiency")
}
