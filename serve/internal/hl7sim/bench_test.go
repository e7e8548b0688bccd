package hl7sim_test

import (
	"bufio"
	"fmt"
	"net"
	"testing"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/simtest"
)

// BenchmarkMLLP sends messages into one run over MLLP, each waiting for
// its ACK: one connection (Serial) or one per parallel goroutine
// (Parallel). Every message is parsed, captured and recorded as an event.
func BenchmarkMLLP(b *testing.B) {
	msg := order("BENCH-1", "72148")
	frame := []byte("\x0b" + msg + "\x1c\r")
	send := func(b *testing.B, addr string, n func() bool) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for n() {
			if _, err := c.Write(frame); err != nil {
				b.Error(err)
				return
			}
			ack, err := r.ReadSlice(0x1c)
			if err != nil || len(ack) < 20 {
				b.Errorf("ACK %q: %v", ack, err)
				return
			}
			r.ReadByte()
		}
	}
	for _, parallel := range []bool{false, true} {
		b.Run(map[bool]string{false: "Serial", true: "Parallel"}[parallel], func(b *testing.B) {
			sb := simtest.Start(b, seed, serve.Options{MaxEvents: 1 << 30})
			run := sb.NewRun(fmt.Sprintf(`{"id": "bench-%d"}`, b.N))
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			b.ResetTimer()
			if parallel {
				b.RunParallel(func(pb *testing.PB) { send(b, run.Endpoints["hl7_mllp"], pb.Next) })
			} else {
				i := 0
				send(b, run.Endpoints["hl7_mllp"], func() bool { i++; return i <= b.N })
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
