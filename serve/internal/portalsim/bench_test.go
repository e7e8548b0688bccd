package portalsim_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchCall sends the same request b.N times through the frame over a
// kept-alive connection and reports requests per second and the 99th
// percentile of their latency.
func benchCall(b *testing.B, method, url, token, body string, want int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	lat := make([]time.Duration, 0, b.N)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			b.Fatalf("%s %s: %d", method, url, resp.StatusCode)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds()), "p99-µs")
}

// BenchmarkSubmit: POST prior-auths through the frame (auth, routing, the
// strict decode, the payer's ledger, the event).
func BenchmarkSubmit(b *testing.B) {
	sb := newSandbox(b, nil)
	tr := sb.newRun("bench")
	benchCall(b, "POST", tr.apiURL("/prior-auths"), tr.token,
		`{"patient_member_id": "W123456789", "procedure_code": "73721", "provider_npi": "1234567893", "service_date": "2026-03-10", "diagnosis_codes": ["M25.561"], "units": 1}`, 201)
}

// BenchmarkRead: GET prior-auths/{auth_number} through the frame, with a
// thousand requests in the run's ledger.
func BenchmarkRead(b *testing.B) {
	sb := newSandbox(b, nil)
	tr := sb.newRun("bench")
	for range 1000 {
		if r := tr.api("POST", "/prior-auths", `{"patient_member_id": "W123456789", "procedure_code": "97110"}`); r.status != 201 {
			b.Fatal(r.body)
		}
	}
	benchCall(b, "GET", tr.apiURL("/prior-auths/PA-000500"), tr.token, "", 200)
}
