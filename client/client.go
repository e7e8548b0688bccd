package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/internal/retry"
)

// APIKeyEnv is the environment variable New reads the API key from when no
// WithAPIKey option is given.
const APIKeyEnv = "ASSAY_API_KEY"

// DefaultUserAgent is the User-Agent header New sends unless told otherwise.
const DefaultUserAgent = "assay-go-client"

// DefaultTimeout bounds each attempt of a request (sending it and reading
// the whole response) unless WithTimeout says otherwise.
const DefaultTimeout = 30 * time.Second

// maxResponseBody bounds the response bodies the client reads. A page of
// 100 criteria is a few hundred kilobytes; anything near this is not an
// answer of this API.
const maxResponseBody = 32 << 20

// Client talks to the criteria API. Its services (Criteria) hold the calls.
// A Client is safe for concurrent use.
type Client struct {
	// Criteria holds the calls on /criteria.
	Criteria *CriteriaService

	base      string        // scheme://host/path, without a trailing slash
	home      origin.Origin // the base URL's scheme, host and port
	key       *origin.Secret
	http      *http.Client
	userAgent string
	retry     RetryPolicy
	timeout   time.Duration
	logger    *slog.Logger
}

// String describes the client without its key.
func (c *Client) String() string {
	key := "none"
	if c.key.Value() != "" {
		key = "set"
	}
	return fmt.Sprintf("client.Client{base: %s, api key: %s}", c.base, key)
}

// GoString is String, so that %#v does not print the key either.
func (c *Client) GoString() string { return c.String() }

// Option configures a Client.
type Option func(*settings)

type settings struct {
	apiKey    *string
	http      *http.Client
	userAgent string
	retry     *RetryPolicy
	timeout   *time.Duration
	logger    *slog.Logger
}

// WithAPIKey sets the key sent as "Authorization: Bearer KEY". It wins over
// ASSAY_API_KEY, even when empty (an empty key sends no Authorization
// header).
func WithAPIKey(key string) Option { return func(s *settings) { s.apiKey = &key } }

// WithHTTPClient sets the *http.Client requests go through (its transport,
// proxy, TLS settings). By default the client uses a new http.Client over
// http.DefaultTransport.
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.http = hc } }

// WithUserAgent sets the User-Agent header (default DefaultUserAgent).
func WithUserAgent(ua string) Option { return func(s *settings) { s.userAgent = ua } }

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(s *settings) { s.retry = &p } }

// WithTimeout bounds each attempt of a request (default DefaultTimeout); 0
// or less leaves attempts bounded only by the context. The whole call,
// retries and waits included, is bounded by the context passed to it.
func WithTimeout(d time.Duration) Option { return func(s *settings) { s.timeout = &d } }

// WithLogger logs every attempt (at debug level) and every retry (at info
// level): method, URL, status, attempt, wait and request id. Nothing logged
// carries the API key or a body. By default the client logs nothing.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// New returns a client of the API at baseURL (such as
// "https://api.example.com/v1"; endpoints are appended to its path).
//
// baseURL must be absolute http or https, without credentials, query or
// fragment; otherwise New returns a *ConfigError. The API key comes from
// WithAPIKey or else from the ASSAY_API_KEY environment variable.
func New(baseURL string, opts ...Option) (*Client, error) {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	key := os.Getenv(APIKeyEnv)
	if s.apiKey != nil {
		key = *s.apiKey
	}
	if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, &ConfigError{Setting: "API key", Reason: "contains control characters (the key is not shown)"}
	}
	c := &Client{
		base:      base,
		home:      origin.Of(mustParse(base)),
		key:       origin.NewSecret(key),
		http:      s.http,
		userAgent: s.userAgent,
		retry:     DefaultRetryPolicy(),
		timeout:   DefaultTimeout,
		logger:    s.logger,
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	c.http = origin.Guard(c.http, c.home, key)
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if s.retry != nil {
		c.retry = *s.retry
	}
	c.retry = c.retry.WithDefaults()
	if s.timeout != nil {
		c.timeout = *s.timeout
	}
	c.Criteria = &CriteriaService{client: c}
	return c, nil
}

func parseBaseURL(raw string) (string, error) {
	bad := func(value, reason string) error {
		return &ConfigError{Setting: "base URL", Value: value, Reason: reason}
	}
	if strings.TrimSpace(raw) == "" {
		return "", bad("", "is empty")
	}
	if !strings.Contains(raw, "://") {
		return "", noScheme(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's message quotes the whole URL, credentials and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", bad("", "cannot be parsed: "+err.Error())
	}
	shown := u.Redacted()
	switch {
	case u.User != nil:
		return "", bad(shown, "must not hold credentials (the API key goes in WithAPIKey or ASSAY_API_KEY)")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad(shown, "scheme "+u.Scheme+" is not http or https")
	case u.Host == "":
		return "", bad(shown, "has no host")
	case u.RawQuery != "" || u.ForceQuery:
		return "", bad(shown, "must not have a query")
	case u.Fragment != "":
		return "", bad(shown, "must not have a fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// noScheme reports a base URL written without a scheme ("api.example.com",
// "localhost:8080"), suggesting http for a loopback host and https for
// others, and never showing credentials.
func noScheme(raw string) error {
	scheme := "https://"
	host := strings.TrimPrefix(raw, "//")
	for _, local := range []string{"localhost", "127.", "[::1]"} {
		if strings.HasPrefix(host, local) {
			scheme = "http://"
		}
	}
	err := &ConfigError{Setting: "base URL", Value: raw, Reason: "has no scheme"}
	if u, perr := url.Parse(scheme + host); perr == nil {
		if u.User != nil {
			err.Value = strings.TrimPrefix(u.Redacted(), scheme)
		}
		err.Reason += fmt.Sprintf(" (want %q)", u.Redacted())
	} else if strings.Contains(raw, "@") {
		err.Value = ""
	}
	return err
}

// maxShownURL bounds the request URL quoted in errors and logs.
const maxShownURL = 256

// Response is an API response. Its body has already been read and decoded;
// Body is a reader over the bytes read.
type Response struct {
	*http.Response
	// RequestID is the X-Request-Id (or Request-Id) header.
	RequestID string
	// NextCursor is, for a list, the cursor of the next page; "" on the
	// last page.
	NextCursor string
	// Attempts is how many times the request was sent.
	Attempts int

	method, url string  // for messages
	client      *Client // for scrubbing messages
}

func requestID(h http.Header) string {
	if id := h.Get("X-Request-Id"); id != "" {
		return id
	}
	return h.Get("Request-Id")
}

// do sends one API call, retrying as the policy allows, and returns the
// final 2xx response with its body. Every other outcome is an error:
// *APIError for an error answer (including a 2xx whose body is an error
// object), *RequestError when no usable answer came, *ResponseError for an
// unexpected status.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, payload []byte) (*Response, []byte, error) {
	if ctx == nil {
		return nil, nil, errors.New("client: nil context")
	}
	target := c.base + path
	shown := path
	if len(query) > 0 {
		q := query.Encode()
		target += "?" + q
		shown += "?" + q
	}
	// A query may hold what the server sent (a cursor), so what errors and
	// logs show is scrubbed, and cut when long.
	shown = c.redact(shown)
	if len(shown) > maxShownURL {
		shown = fmt.Sprintf("%s... (%d bytes)", strings.ToValidUTF8(shown[:maxShownURL], ""), len(shown))
	}
	retries := c.retry.Retries(method)
	var last error
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, &RequestError{Method: method, URL: shown, Attempts: attempt - 1, Err: err, Last: last}
		}
		start := time.Now()
		resp, body, err := c.send(ctx, method, target, payload)
		var outcome error
		switch {
		case err != nil:
			outcome = c.scrubError(err)
		case resp.StatusCode >= 400:
			outcome = c.apiError(method, shown, resp, body, attempt)
		}
		if c.logger != nil {
			attrs := []any{"method", method, "url", shown, "attempt", attempt, "duration", time.Since(start)}
			if resp != nil {
				attrs = append(attrs, "status", resp.StatusCode, "request_id", requestID(resp.Header))
			} else {
				attrs = append(attrs, "error", c.redact(err.Error()))
			}
			c.logger.DebugContext(ctx, "criteria API request", attrs...)
		}
		if outcome == nil || !retries || attempt > c.retry.MaxRetries || finalStatus(resp) || retry.IsFinal(err) {
			return c.finish(method, shown, resp, body, outcome, attempt, last)
		}
		again, checkErr := c.retry.CheckRetry(ctx, resp, err)
		if checkErr != nil {
			return nil, nil, &RequestError{Method: method, URL: shown, Attempts: attempt, Err: c.scrubError(checkErr), Last: outcome}
		}
		if !again {
			return c.finish(method, shown, resp, body, outcome, attempt, last)
		}
		wait := retry.CapWait(c.retry.Backoff(c.retry.MinWait, c.retry.MaxWait, attempt-1, resp), c.retry.MaxWait)
		if c.logger != nil {
			c.logger.InfoContext(ctx, "criteria API retry", "method", method, "url", shown, "attempt", attempt,
				"wait", wait, "reason", strings.TrimPrefix(outcome.Error(), "client: "))
		}
		last = outcome
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, nil, &RequestError{Method: method, URL: shown, Attempts: attempt, Err: ctx.Err(), Last: last}
		case <-timer.C:
		}
	}
}

// finalStatus reports a 4xx answer other than 408 and 429: no retry fixes
// a bad request, a missing key or a missing criterion, so it is final
// whatever the policy's CheckRetry says.
func finalStatus(resp *http.Response) bool {
	if resp == nil || resp.StatusCode < 400 || resp.StatusCode > 499 {
		return false
	}
	return resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests
}

// finish turns the last attempt into the call's result.
func (c *Client) finish(method, shown string, resp *http.Response, body []byte, outcome error, attempts int, last error) (*Response, []byte, error) {
	if outcome != nil {
		var apiErr *APIError
		if errors.As(outcome, &apiErr) {
			return nil, nil, apiErr
		}
		return nil, nil, &RequestError{Method: method, URL: shown, Attempts: attempts, Err: outcome, Last: last}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, &ResponseError{Method: method, URL: shown, StatusCode: resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"), Offset: -1, Reason: "unexpected status " + c.redact(resp.Status)}
	}
	return &Response{Response: resp, RequestID: requestID(resp.Header), Attempts: attempts, method: method, url: shown, client: c}, body, nil
}

// errorMember reports an "error" member of a 2xx body (some gateways answer
// an error with status 200) as an *APIError; member is that member as the
// body's decoder found it.
func (c *Client) errorMember(r *Response, body []byte, member json.RawMessage) error {
	member = bytes.TrimSpace(member)
	if len(member) == 0 || string(member) == "null" {
		return nil
	}
	return c.apiError(r.method, r.url, r.Response, body, r.Attempts)
}

// decodeError reports a 2xx body that is not what the call expects. The
// reason and the cause are scrubbed of the key, since both may quote the
// body.
func (r *Response) decodeError(reason string, err error) *ResponseError {
	return &ResponseError{Method: r.method, URL: r.url, StatusCode: r.StatusCode,
		ContentType: r.Header.Get("Content-Type"), Offset: jsonOffset(err),
		Reason: r.client.redact(reason), Err: r.client.scrubError(err)}
}

// send makes one attempt: it sends the request and reads the whole
// response body within the attempt's timeout.
func (c *Client) send(ctx context.Context, method, target string, payload []byte) (*http.Response, []byte, error) {
	attemptCtx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		attemptCtx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(attemptCtx, method, target, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	origin.Authorize(req, c.home, c.key.Value())
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := readBody(resp.Body, resp.ContentLength)
	resp.Request = c.withoutCredentials(resp.Request)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the response body: %w", err)
	}
	if len(data) > maxResponseBody {
		// The same body would come back: never retried.
		return nil, nil, retry.Final(fmt.Errorf("response body larger than %d bytes", maxResponseBody))
	}
	// Whatever the server sent back is scrubbed before anything reads it:
	// a server (or a proxy) that echoes the Authorization header into a
	// header, the status line or the body does not make the client report
	// the key.
	c.key.RedactResponse(resp)
	data = c.key.RedactBytes(data)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, data, nil
}

// readBody reads a response body of up to maxResponseBody+1 bytes, sized
// from Content-Length when the server sent one.
func readBody(r io.Reader, contentLength int64) ([]byte, error) {
	size := int64(bytes.MinRead)
	if contentLength > 0 && contentLength <= maxResponseBody {
		size += contentLength
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r, maxResponseBody+1))
	return buf.Bytes(), err
}

// withoutCredentials returns a copy of req for responses handed to
// callers: its Authorization header masked, a URL that holds the key (a
// redirect target the server chose, a cursor it echoed) scrubbed, and the
// redirect response that led to it (whose headers the client did not
// scrub) dropped.
func (c *Client) withoutCredentials(req *http.Request) *http.Request {
	if req == nil {
		return nil
	}
	clone := *req
	clone.Response = nil
	if req.Header.Get("Authorization") != "" {
		clone.Header = req.Header.Clone()
		clone.Header.Set("Authorization", "Bearer "+redacted)
	}
	if req.URL != nil {
		if raw := req.URL.String(); c.redact(raw) != raw {
			clean := &url.URL{Scheme: req.URL.Scheme, Host: c.redact(req.URL.Host), Path: "/" + redacted}
			if u, err := url.Parse(c.redact(raw)); err == nil {
				clean = u
			}
			clone.URL = clean
		}
	}
	return &clone
}

// apiError builds the *APIError of an error answer.
func (c *Client) apiError(method, shown string, resp *http.Response, body []byte, attempts int) *APIError {
	kept := body
	if len(kept) > maxErrorBody {
		kept = kept[:maxErrorBody]
	}
	kept = []byte(c.redact(string(kept)))
	resp.Body = io.NopCloser(bytes.NewReader(kept))
	e := &APIError{
		Method:     method,
		URL:        shown,
		StatusCode: resp.StatusCode,
		RequestID:  requestID(resp.Header),
		Attempts:   attempts,
		Body:       kept,
		Response:   resp,
	}
	obj, ok := decodeErrorBody(body)
	if !ok {
		e.Message = http.StatusText(resp.StatusCode) + " (" + describeBody(body, resp.Header.Get("Content-Type")) + ")"
		return e
	}
	e.Code = c.redact(obj.Code)
	e.Message = c.redact(obj.Message)
	if len(obj.Details) > 0 && string(obj.Details) != "null" {
		e.RawDetails = json.RawMessage(c.redact(string(obj.Details)))
		e.Details = parseDetails(e.RawDetails)
		// Decoding undoes escapes the raw scrub could not see
		// ("\u0073k-..."): scrub the decoded text too.
		for i := range e.Details {
			e.Details[i].Field = c.redact(e.Details[i].Field)
			e.Details[i].Message = c.redact(e.Details[i].Message)
		}
	}
	if e.RequestID == "" {
		e.RequestID = c.redact(obj.RequestID)
	}
	return e
}

// redacted replaces the key in what the client reports.
const redacted = origin.Redacted

// redact removes the API key, in every form it may take (as written,
// JSON-escaped, URL-escaped), from text that came from elsewhere, such as a
// server that echoes the Authorization header in its error message.
func (c *Client) redact(s string) string { return c.key.Redact(s) }

// scrubError is err with the key removed from its text (see
// origin.Secret.Error).
func (c *Client) scrubError(err error) error { return c.key.Error(err) }

// redactCriterion scrubs the decoded text fields of a criterion read from
// the API: decoding may undo an escape ("\u0073k-...") that hid the key
// from the scrub of the raw body. The assertion stays as the body (already
// scrubbed) wrote it.
func (c *Client) redactCriterion(cr *assert.Criterion) {
	if len(c.key.Forms()) == 0 {
		return
	}
	for _, f := range []*string{&cr.ID, &cr.TaskID, &cr.InputEntityID, &cr.Label, &cr.Axis} {
		*f = c.redact(*f)
	}
}
