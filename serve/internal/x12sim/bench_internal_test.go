package x12sim

import (
	"net/http"
	"os"
	"testing"
)

// Benchmark271 answers a 270 asking three service types (30, MR, AL):
// decide, write, check with assay's parser, record. Goal: at least 20,000
// per second on one core (-cpu 1).
func Benchmark271(b *testing.B) {
	req, err := os.ReadFile("testdata/requests/270_jane.x12")
	if err != nil {
		b.Fatal(err)
	}
	rs, _ := newTestRun(b)
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%10000 == 0 {
			rs.records, rs.size = nil, 0
		}
		if o := rs.exchange(req, transportX12); o.status != http.StatusOK || o.transaction != "271" {
			b.Fatalf("%d %s", o.status, o.message)
		}
	}
}

// Benchmark278 answers a 278 of three services, each a ledger row.
func Benchmark278(b *testing.B) {
	req, err := os.ReadFile("testdata/requests/278_three.x12")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	rs, _ := newTestRun(b)
	for i := 0; b.Loop(); i++ {
		if i%1000 == 0 {
			rs, _ = newTestRun(b) // a fresh ledger: rows accumulate
		}
		if o := rs.exchange(req, transportX12); o.status != http.StatusOK || o.transaction != "278" {
			b.Fatalf("%d %s", o.status, o.message)
		}
	}
}
