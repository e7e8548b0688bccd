package x12sim_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkHTTP sends 270s to the clearinghouse over HTTP from 8
// clients at once, through the whole sandbox (auth, routing, the answer,
// its check, the record, the event), and reports requests per second and
// the 99th percentile latency. A run takes 20,000 exchanges, then the
// next run goes on.
func BenchmarkHTTP(b *testing.B) {
	req, err := os.ReadFile("testdata/requests/270_jane.x12")
	if err != nil {
		b.Fatal(err)
	}
	f := newFrame(b, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var mu sync.Mutex
	var lat []time.Duration
	runs := 0
	var tr *testRun
	newRun := func() {
		runs++
		tr = f.newRun("bench" + strconv.Itoa(runs))
	}
	newRun()
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	b.SetParallelism(8) // 8 clients per GOMAXPROCS
	b.ResetTimer()
	begin := time.Now()
	var count int
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			count++
			if count%20000 == 0 {
				newRun()
			}
			url, token := tr.endpoints["x12"], tr.token
			mu.Unlock()
			httpReq, _ := http.NewRequest("POST", url, bytes.NewReader(req))
			httpReq.Header.Set("Authorization", "Bearer "+token)
			t0 := time.Now()
			resp, err := client.Do(httpReq)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			d := time.Since(t0)
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		}
	})
	elapsed := time.Since(begin)
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}
