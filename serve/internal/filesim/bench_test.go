package filesim_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/simtest"
)

// BenchmarkPut writes 1 KiB files into one run, each PUT over HTTP with
// keep-alive (HTTP) or each upload a create, write and close over one SFTP
// session (SFTP). Names cycle through 1000, so most writes replace a file.
func BenchmarkPut(b *testing.B) {
	body := bytes.Repeat([]byte("x"), 1<<10)
	b.Run("HTTP", func(b *testing.B) {
		sb := simtest.Start(b, seed, serve.Options{MaxEvents: 1 << 30})
		run := sb.NewRun(fmt.Sprintf(`{"id": "bench-%d"}`, b.N))
		base := run.Endpoints["files"]
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/bench/%d.txt", base, i%1000), bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+run.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 201 && resp.StatusCode != 200 {
				b.Fatalf("PUT: %d", resp.StatusCode)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	})
	b.Run("SFTP", func(b *testing.B) {
		sb := simtest.Start(b, seed, serve.Options{MaxEvents: 1 << 30})
		run := sb.NewRun(fmt.Sprintf(`{"id": "bench-%d"}`, b.N))
		c := mustDial(b, sb.Srv.SFTPAddr(), run)
		c.Mkdir("/bench")
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			f, err := c.Create(fmt.Sprintf("/bench/%d.txt", i%1000))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Write(body); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	})
}
