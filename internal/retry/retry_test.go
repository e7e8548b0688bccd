package retry_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/retry"
)

func TestDefaultRetryPolicy(t *testing.T) {
	p := retry.DefaultRetryPolicy()
	if p.MaxRetries != 3 || p.MinWait != 500*time.Millisecond || p.MaxWait != 30*time.Second || p.RetryPOST || p.CheckRetry == nil || p.Backoff == nil {
		t.Fatalf("%+v", p)
	}
}

func TestDefaultCheckRetry(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	resp := func(code int) *http.Response { return &http.Response{StatusCode: code} }
	tests := []struct {
		name    string
		ctx     context.Context
		resp    *http.Response
		err     error
		retry   bool
		wantErr error
	}{
		{"408", context.Background(), resp(408), nil, true, nil},
		{"429", context.Background(), resp(429), nil, true, nil},
		{"500", context.Background(), resp(500), nil, true, nil},
		{"503", context.Background(), resp(503), nil, true, nil},
		{"501 is not fixed by a retry", context.Background(), resp(501), nil, false, nil},
		{"404 is final", context.Background(), resp(404), nil, false, nil},
		{"200", context.Background(), resp(200), nil, false, nil},
		{"no response", context.Background(), nil, errors.New("connection reset"), true, nil},
		{"an untrusted certificate cannot heal", context.Background(), nil, fmt.Errorf("get: %w", x509.UnknownAuthorityError{}), false, nil},
		{"a wrong host name cannot heal", context.Background(), nil, x509.HostnameError{Host: "x"}, false, nil},
		{"neither response nor error", context.Background(), nil, nil, false, nil},
		{"a final error is never retried", context.Background(), nil, fmt.Errorf("get: %w", retry.Final(errors.New("body over the cap"))), false, nil},
		{"ctx ended", ended, resp(503), nil, false, context.Canceled},
	}
	for _, tt := range tests {
		got, err := retry.DefaultCheckRetry(tt.ctx, tt.resp, tt.err)
		if got != tt.retry || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Errorf("%s: retry %v, err %v; want %v, %v", tt.name, got, err, tt.retry, tt.wantErr)
		}
	}
}

func TestDefaultBackoff(t *testing.T) {
	const minWait, maxWait = 100 * time.Millisecond, 2 * time.Second
	// Equal jitter: half the step, plus up to the other half.
	for attempt, step := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, maxWait, maxWait} {
		for range 50 {
			if w := retry.DefaultBackoff(minWait, maxWait, attempt, nil); w < step/2 || w > step {
				t.Fatalf("attempt %d: waited %s, want within [%s, %s]", attempt, w, step/2, step)
			}
		}
	}
	if w := retry.DefaultBackoff(minWait, maxWait, 5000, nil); w < maxWait/2 || w > maxWait {
		t.Errorf("a huge attempt waited %s", w)
	}
	retryAfter := func(code int, value string) *http.Response {
		return &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {value}}}
	}
	for _, tt := range []struct {
		resp *http.Response
		want time.Duration
	}{
		{retryAfter(429, "1"), time.Second},
		{retryAfter(503, "7"), maxWait}, // capped
		{retryAfter(503, "0"), 0},
	} {
		if got := retry.DefaultBackoff(minWait, maxWait, 0, tt.resp); got != tt.want {
			t.Errorf("%d Retry-After %s: waited %s, want %s", tt.resp.StatusCode, tt.resp.Header.Get("Retry-After"), got, tt.want)
		}
	}
	// Retry-After is read only from 429 and 503.
	if w := retry.DefaultBackoff(minWait, maxWait, 0, retryAfter(500, "1")); w > minWait {
		t.Errorf("a 500's Retry-After was honoured: %s", w)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"120", 2 * time.Minute, true},
		{" 3 ", 3 * time.Second, true},
		{"99999999999999999999999", math.MaxInt64, true},
		{"9223372037", math.MaxInt64, true},
		{"Tue, 24 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Tue, 24 Nov 2026 11:00:00 GMT", 0, true},
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := retry.RetryAfter(tt.value, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%q: %s %v, want %s %v", tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	p := retry.RetryPolicy{MaxRetries: -2, MinWait: time.Minute, MaxWait: time.Second}.WithDefaults()
	if p.MaxRetries != 0 || p.MinWait != time.Second || p.MaxWait != time.Second || p.CheckRetry == nil || p.Backoff == nil {
		t.Errorf("%+v", p)
	}
	z := retry.RetryPolicy{}.WithDefaults()
	if z.MinWait != retry.DefaultMinWait || z.MaxWait != retry.DefaultMaxWait || z.MaxRetries != 0 {
		t.Errorf("zero policy: %+v", z)
	}
}

func TestRetries(t *testing.T) {
	p := retry.DefaultRetryPolicy()
	for method, want := range map[string]bool{"GET": true, "PATCH": true, "DELETE": true, "PUT": true, "POST": false, "CONNECT": false} {
		if got := p.Retries(method); got != want {
			t.Errorf("%s: %v, want %v", method, got, want)
		}
	}
	p.RetryPOST = true
	if !p.Retries("POST") {
		t.Error("RetryPOST does not let POST retry")
	}
	p.MaxRetries = 0
	if p.Retries("GET") {
		t.Error("MaxRetries 0 retries")
	}
}

func TestSleepAndCapWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := retry.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("Sleep on an ended ctx: %v after %s", err, time.Since(start))
	}
	if err := retry.Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
	if err := retry.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on an ended ctx: %v", err)
	}
	for _, tt := range []struct{ wait, want time.Duration }{{-time.Second, 0}, {time.Second, time.Second}, {time.Hour, time.Minute}} {
		if got := retry.CapWait(tt.wait, time.Minute); got != tt.want {
			t.Errorf("CapWait(%s) = %s", tt.wait, got)
		}
	}
}

func TestFinal(t *testing.T) {
	cause := errors.New("the response is over the 10-byte cap")
	err := retry.Final(cause)
	if err.Error() != cause.Error() || !errors.Is(err, cause) || !retry.IsFinal(fmt.Errorf("x: %w", err)) {
		t.Errorf("Final: %v", err)
	}
	if retry.IsFinal(cause) || retry.IsFinal(nil) || retry.Final(nil) != nil {
		t.Error("an unmarked error is final")
	}
}
