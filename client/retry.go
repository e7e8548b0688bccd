package client

import (
	"context"
	"net/http"
	"time"

	"github.com/assaykit/assay/internal/retry"
)

// Retry defaults. They are the ones every HTTP client of assay shares (the
// FHIR search client and the LLM judge use the same policy).
const (
	// DefaultMaxRetries is how many times a request is retried after its
	// first attempt: 3 retries, 4 attempts in all.
	DefaultMaxRetries = retry.DefaultMaxRetries
	// DefaultMinWait is the first backoff step.
	DefaultMinWait = retry.DefaultMinWait
	// DefaultMaxWait caps every wait between attempts, Retry-After
	// included.
	DefaultMaxWait = retry.DefaultMaxWait
)

// CheckRetry decides, after an attempt, whether the request should be sent
// again. resp is nil when err is not (the attempt got no response); resp's
// body has been read and can be read again. Returning a non-nil error stops
// the call with that error. ctx is the caller's context.
//
// The client consults CheckRetry only for requests it may retry (GET, PATCH
// and DELETE, and POST when RetryPolicy.RetryPOST is set), at most
// RetryPolicy.MaxRetries times, and never for a 4xx answer other than 408
// and 429, which is final whatever CheckRetry would say.
type CheckRetry = retry.CheckRetry

// Backoff returns how long to wait before retry number attempt (0 for the
// first retry) after resp (nil when the attempt got no response). The client
// caps the result at maxWait.
type Backoff = retry.Backoff

// RetryPolicy says which failed requests are sent again and how long to wait
// in between. Use DefaultRetryPolicy and change what you need; zero
// durations and nil functions take the defaults, but MaxRetries 0 means no
// retries.
type RetryPolicy = retry.RetryPolicy

// DefaultRetryPolicy returns the policy New uses: at most 3 retries (4
// attempts) of GET, PATCH and DELETE on 408, 429, 5xx (but 501) and
// connection failures, waiting DefaultBackoff between attempts, capped at
// 30 s.
func DefaultRetryPolicy() RetryPolicy { return retry.DefaultRetryPolicy() }

// DefaultCheckRetry retries a 408 (Request Timeout), a 429 (Too Many
// Requests), any 5xx status except 501 (Not Implemented, which no retry
// fixes), and an attempt that got no response (a refused or reset
// connection, an attempt timeout), except when the failure cannot heal: a
// TLS certificate the client does not trust. Every other 4xx is final. It
// never retries once ctx has ended, and then returns ctx's error.
func DefaultCheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	return retry.DefaultCheckRetry(ctx, resp, err)
}

// DefaultBackoff honours a 429 or 503 response's Retry-After header (delay
// seconds or an HTTP date), up to maxWait; otherwise it waits
// minWait*2^attempt, capped at maxWait, with "equal jitter".
func DefaultBackoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	return retry.DefaultBackoff(minWait, maxWait, attempt, resp)
}
