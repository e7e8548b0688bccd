package client

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/retry"
)

// scripted answers the i-th request with statuses[i] (the last one
// repeating); 0 drops the connection.
func scripted(t *testing.T, calls *atomic.Int32, statuses ...int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		i := int(calls.Add(1)) - 1
		status := statuses[min(i, len(statuses)-1)]
		switch status {
		case 0:
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Fatal("no hijacker")
			}
			conn, _, _ := hj.Hijack()
			conn.Close()
		case 200, 201:
			w.WriteHeader(status)
			fmt.Fprint(w, `{"id":"c1","label":"x","assertion":{"assert":"ran","ran":"x"}}`)
		case 204:
			w.WriteHeader(status)
		default:
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"code":"e%d","message":"status %d"}}`, status, status)
		}
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name         string
		method       string
		retryPOST    bool
		statuses     []int
		wantAttempts int
		wantStatus   int // of the APIError; 0 when the call succeeds, -1 for a RequestError
	}{
		{"GET 429 then 200", "GET", false, []int{429, 200}, 2, 0},
		{"GET 500 502 503 then 200", "GET", false, []int{500, 502, 503, 200}, 4, 0},
		{"GET 500 forever gives up after 4 attempts", "GET", false, []int{500}, 4, 500},
		{"GET 501 is not retried", "GET", false, []int{501, 200}, 1, 501},
		{"GET 404 is not retried", "GET", false, []int{404, 200}, 1, 404},
		{"GET dropped connection then 200", "GET", false, []int{0, 200}, 2, 0},
		{"GET dropped connection forever", "GET", false, []int{0}, 4, -1},
		{"PATCH 503 then 200", "PATCH", false, []int{503, 200}, 2, 0},
		{"DELETE 429 then 204", "DELETE", false, []int{429, 204}, 2, 0},
		{"POST 503 is not retried", "POST", false, []int{503, 201}, 1, 503},
		{"POST dropped connection is not retried", "POST", false, []int{0, 201}, 1, -1},
		{"POST 503 retried when opted in", "POST", true, []int{503, 201}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			policy := fastRetries()
			policy.RetryPOST = tt.retryPOST
			cl, mux := setup(t, WithRetryPolicy(policy))
			var calls atomic.Int32
			mux.HandleFunc("/v1/", scripted(t, &calls, tt.statuses...))
			ctx := context.Background()
			var err error
			switch tt.method {
			case "GET":
				_, _, err = cl.Criteria.Get(ctx, "c1")
			case "PATCH":
				_, _, err = cl.Criteria.Update(ctx, "c1", CriterionUpdate{Label: Ptr("x")})
			case "DELETE":
				_, err = cl.Criteria.Delete(ctx, "c1")
			case "POST":
				_, _, err = cl.Criteria.Create(ctx, criterionFixture())
			}
			if got := int(calls.Load()); got != tt.wantAttempts {
				t.Errorf("%d attempts, want %d", got, tt.wantAttempts)
			}
			var apiErr *APIError
			var reqErr *RequestError
			switch {
			case tt.wantStatus == 0 && err != nil:
				t.Errorf("error %v", err)
			case tt.wantStatus > 0 && (!errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantStatus || apiErr.Attempts != tt.wantAttempts):
				t.Errorf("error %v, want an APIError with status %d after %d attempts", err, tt.wantStatus, tt.wantAttempts)
			case tt.wantStatus < 0 && (!errors.As(err, &reqErr) || reqErr.Attempts != tt.wantAttempts):
				t.Errorf("error %T %v, want a RequestError after %d attempts", err, err, tt.wantAttempts)
			}
		})
	}
}

func TestNoRetriesPolicy(t *testing.T) {
	cl, mux := setup(t, WithRetryPolicy(RetryPolicy{}))
	var calls atomic.Int32
	mux.HandleFunc("/v1/", scripted(t, &calls, 503, 200))
	if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err == nil || calls.Load() != 1 {
		t.Errorf("%d attempts, error %v", calls.Load(), err)
	}
}

// TestRetryAfterHonouredUpToCap: a 429 asking for 1 s is retried after the
// policy's cap (60 ms here), not sooner and not 1 s later.
func TestRetryAfterHonouredUpToCap(t *testing.T) {
	var waits []time.Duration
	var mu sync.Mutex
	policy := DefaultRetryPolicy()
	policy.MaxWait = 60 * time.Millisecond
	policy.Backoff = func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
		d := DefaultBackoff(minWait, maxWait, attempt, resp)
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return d
	}
	cl, mux := setup(t, WithRetryPolicy(policy))
	var calls atomic.Int32
	mux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, `{"id":"c1","assertion":{}}`)
	})
	start := time.Now()
	if _, _, err := cl.Criteria.Get(context.Background(), "c1"); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if len(waits) != 1 || waits[0] != 60*time.Millisecond {
		t.Errorf("waits %v, want [60ms]", waits)
	}
	if elapsed < 60*time.Millisecond || elapsed > 900*time.Millisecond {
		t.Errorf("took %v", elapsed)
	}
}

func TestContextCancelledMidRetry(t *testing.T) {
	cl, mux := setup(t, WithRetryPolicy(DefaultRetryPolicy())) // real waits: 10 s asked, 30 s cap
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	mux.HandleFunc("/v1/criteria/c1", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "10")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":"unavailable","message":"try later"}}`)
		time.AfterFunc(20*time.Millisecond, cancel) // while the client waits
	})
	start := time.Now()
	_, _, err := cl.Criteria.Get(ctx, "c1")
	if time.Since(start) > 2*time.Second {
		t.Errorf("the call outlived its context by %v", time.Since(start))
	}
	var reqErr *RequestError
	if !errors.As(err, &reqErr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %T %v, want a RequestError wrapping context.Canceled", err, err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Errorf("the last answer is not reachable: %v", err)
	}
	if calls.Load() != 1 || reqErr.Attempts != 1 {
		t.Errorf("%d calls, %d attempts", calls.Load(), reqErr.Attempts)
	}

	// A context that is already done sends nothing.
	_, _, err = cl.Criteria.Get(ctx, "c1")
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Errorf("after cancel: %v, %d calls", err, calls.Load())
	}
}

func TestDefaultBackoff(t *testing.T) {
	resp := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	const minWait, maxWait = 100 * time.Millisecond, 30 * time.Second
	tests := []struct {
		name     string
		attempt  int
		resp     *http.Response
		low, top time.Duration
	}{
		{"first retry", 0, nil, 50 * time.Millisecond, 100 * time.Millisecond},
		{"third retry", 2, resp(500, ""), 200 * time.Millisecond, 400 * time.Millisecond},
		{"capped", 20, nil, 15 * time.Second, 30 * time.Second},
		{"huge attempt", 5000, nil, 15 * time.Second, 30 * time.Second},
		{"429 Retry-After seconds", 0, resp(429, "7"), 7 * time.Second, 7 * time.Second},
		{"503 Retry-After over the cap", 0, resp(503, "120"), 30 * time.Second, 30 * time.Second},
		{"429 Retry-After absurd", 0, resp(429, "99999999999999999999999"), 30 * time.Second, 30 * time.Second},
		{"429 Retry-After zero", 1, resp(429, "0"), 0, 0},
		{"429 Retry-After date in the past", 0, resp(429, "Mon, 02 Jan 2006 15:04:05 GMT"), 0, 0},
		{"429 Retry-After garbage falls back", 0, resp(429, "soon"), 50 * time.Millisecond, 100 * time.Millisecond},
		{"500 Retry-After ignored", 0, resp(500, "9"), 50 * time.Millisecond, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				got := DefaultBackoff(minWait, maxWait, tt.attempt, tt.resp)
				if got < tt.low || got > tt.top {
					t.Fatalf("%v, want within [%v, %v]", got, tt.low, tt.top)
				}
			}
		})
	}
	// An HTTP date in the future.
	future := time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat)
	if got := DefaultBackoff(minWait, maxWait, 0, resp(429, future)); got < 3*time.Second || got > 5*time.Second {
		t.Errorf("Retry-After %s: %v", future, got)
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 3 ", 3 * time.Second, true},
		{"-3", 0, false},
		{"3.5", 0, false},
		{"Wed, 01 Jan 2025 00:00:10 GMT", 10 * time.Second, true},
		{"Tue, 31 Dec 2024 23:59:00 GMT", 0, true},
		{"tomorrow", 0, false},
	}
	for _, tt := range tests {
		got, ok := retry.RetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDefaultCheckRetry(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		status  int
		err     error
		want    bool
		wantErr bool
	}{
		{"200", context.Background(), 200, nil, false, false},
		{"404", context.Background(), 404, nil, false, false},
		{"429", context.Background(), 429, nil, true, false},
		{"500", context.Background(), 500, nil, true, false},
		{"501", context.Background(), 501, nil, false, false},
		{"504", context.Background(), 504, nil, true, false},
		{"connection refused", context.Background(), 0, &url.Error{Op: "Get", URL: "http://x", Err: errors.New("connection refused")}, true, false},
		{"untrusted certificate", context.Background(), 0, &url.Error{Op: "Get", URL: "https://x", Err: x509.UnknownAuthorityError{}}, false, false},
		{"context done", done, 500, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp *http.Response
			if tt.status != 0 {
				resp = &http.Response{StatusCode: tt.status}
			}
			got, err := DefaultCheckRetry(tt.ctx, resp, tt.err)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %v, %v", got, err)
			}
		})
	}
}
