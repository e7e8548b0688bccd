package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry defaults.
const (
	// DefaultMaxRetries is how many times a request is retried after its
	// first attempt: 3 retries, 4 attempts in all.
	DefaultMaxRetries = 3
	// DefaultMinWait is the first backoff step.
	DefaultMinWait = 500 * time.Millisecond
	// DefaultMaxWait caps every wait between attempts, Retry-After
	// included.
	DefaultMaxWait = 30 * time.Second
)

// CheckRetry decides, after an attempt, whether the request should be sent
// again. resp is nil when err is not (the attempt got no response); resp's
// body has been read and can be read again. Returning a non-nil error stops
// the call with that error. ctx is the caller's context.
//
// The client consults CheckRetry only for requests it may retry (GET, PATCH
// and DELETE, and POST when RetryPolicy.RetryPOST is set), and at most
// RetryPolicy.MaxRetries times.
type CheckRetry func(ctx context.Context, resp *http.Response, err error) (bool, error)

// Backoff returns how long to wait before retry number attempt (0 for the
// first retry) after resp (nil when the attempt got no response). The client
// caps the result at maxWait.
type Backoff func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration

// RetryPolicy says which failed requests are sent again and how long to wait
// in between. Use DefaultRetryPolicy and change what you need; zero
// durations and nil functions take the defaults, but MaxRetries 0 means no
// retries.
type RetryPolicy struct {
	// MaxRetries is how many times a request may be retried after its
	// first attempt; 0 disables retrying.
	MaxRetries int
	// MinWait is the first backoff step (default DefaultMinWait); MaxWait
	// caps every wait, Retry-After included (default DefaultMaxWait).
	MinWait, MaxWait time.Duration
	// RetryPOST lets Create retry. It is off by default: a POST whose
	// response was lost may have created the criterion, and sending it
	// again could create a second one.
	RetryPOST bool
	// CheckRetry decides what is worth retrying; nil means
	// DefaultCheckRetry.
	CheckRetry CheckRetry
	// Backoff decides how long to wait; nil means DefaultBackoff.
	Backoff Backoff
}

// DefaultRetryPolicy returns the policy every assay HTTP client starts
// from: at most 3 retries (4 attempts) of GET, PATCH and DELETE on 408, 429,
// 5xx (but 501) and connection failures, waiting DefaultBackoff between
// attempts, capped at 30 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries: DefaultMaxRetries,
		MinWait:    DefaultMinWait,
		MaxWait:    DefaultMaxWait,
		CheckRetry: DefaultCheckRetry,
		Backoff:    DefaultBackoff,
	}
}

// WithDefaults fills the zero fields.
func (p RetryPolicy) WithDefaults() RetryPolicy {
	p.MaxRetries = max(p.MaxRetries, 0)
	if p.MinWait <= 0 {
		p.MinWait = DefaultMinWait
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultMaxWait
	}
	p.MinWait = min(p.MinWait, p.MaxWait)
	if p.CheckRetry == nil {
		p.CheckRetry = DefaultCheckRetry
	}
	if p.Backoff == nil {
		p.Backoff = DefaultBackoff
	}
	return p
}

// Final marks err as a failure that no retry heals: a response body over
// its cap (the server sends the same body again), a redirect loop, a
// redirect to another origin. Clients return such an error at once,
// whatever a CheckRetry would say (DESIGN.md section 12 rule 17). The text
// and the chain of err are kept.
func Final(err error) error {
	if err == nil {
		return nil
	}
	return &finalError{err}
}

// IsFinal reports whether err, or an error it wraps, was marked by Final.
func IsFinal(err error) bool {
	var f *finalError
	return errors.As(err, &f)
}

type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// DefaultCheckRetry retries a 408 (Request Timeout), a 429 (Too Many Requests), any 5xx status except
// 501 (Not Implemented, which no retry fixes), and an attempt that got no
// response (a refused or reset connection, an attempt timeout), except when
// the failure cannot heal: a TLS certificate the client does not trust, an
// error marked Final. It never retries once ctx has ended, and then returns
// ctx's error.
func DefaultCheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	if err != nil {
		if IsFinal(err) {
			return false, nil
		}
		var unknownAuthority x509.UnknownAuthorityError
		var invalidCert x509.CertificateInvalidError
		var hostname x509.HostnameError
		if errors.As(err, &unknownAuthority) || errors.As(err, &invalidCert) || errors.As(err, &hostname) {
			return false, nil
		}
		return true, nil
	}
	if resp == nil {
		return false, nil
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout ||
		(resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented), nil
}

// DefaultBackoff honours a 429 or 503 response's Retry-After header (delay
// seconds or an HTTP date), up to maxWait; otherwise it waits
// minWait*2^attempt, capped at maxWait, with "equal jitter": half of that step, plus a random
// amount up to the other half, so that clients that failed together do not
// retry together.
func DefaultBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if wait, ok := RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return CapWait(wait, maxWait)
		}
	}
	step := float64(minWait) * math.Pow(2, float64(attempt))
	if step > float64(maxWait) || math.IsNaN(step) || step < 0 {
		step = float64(maxWait)
	}
	half := time.Duration(step / 2)
	if half <= 0 {
		return time.Duration(step)
	}
	return half + rand.N(half+1)
}

// CapWait keeps a wait within [0, maxWait].
func CapWait(wait, maxWait time.Duration) time.Duration {
	return min(max(wait, 0), maxWait)
}

// RetryAfter reads a Retry-After value: a non-negative number of seconds or
// an HTTP date (a date in the past means now). Anything else is ignored.
func RetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if value[0] >= '0' && value[0] <= '9' {
		secs, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			// Too many seconds to count: as long as the cap allows.
			if errors.Is(err, strconv.ErrRange) {
				return math.MaxInt64, true
			}
			return 0, false
		}
		if secs > uint64(math.MaxInt64/int64(time.Second)) {
			return math.MaxInt64, true
		}
		return time.Duration(secs) * time.Second, true
	}
	when, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(when.Sub(now), 0), true
}

// Retries reports whether a client may send method again.
func (p RetryPolicy) Retries(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodDelete, http.MethodPut, http.MethodOptions:
		return p.MaxRetries > 0
	case http.MethodPost:
		return p.MaxRetries > 0 && p.RetryPOST
	}
	return false
}

// Sleep waits d or until ctx ends, whichever comes first, and returns ctx's
// error in the second case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
