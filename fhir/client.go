package fhir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/internal/retry"
	"github.com/tidwall/gjson"
)

// MaxPages is how many pages one search may follow; a search with more is
// an error (a server that pages for ever must not hang a check).
const MaxPages = 10000

// DefaultTimeout bounds one HTTP attempt of the client.
const DefaultTimeout = 30 * time.Second

// Client searches any FHIR R4 server over REST. It is a Source. Every
// request sends Accept: application/fhir+json and Prefer: handling=strict;
// a search follows the Bundle's next links to the end (see Search). Create
// one with NewClient; it is safe for concurrent use.
type Client struct {
	base     *url.URL
	home     origin.Origin
	http     *http.Client
	tokens   TokenSource
	secret   *origin.Secret // every token sent, scrubbed from what the client reports
	policy   retry.RetryPolicy
	maxBody  int64
	maxTotal int64
	timeout  time.Duration
	maxPages int
	selfLink bool
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient sets the HTTP client (its CheckRedirect is wrapped so that
// a redirect to another origin is refused: see Search).
func WithHTTPClient(h *http.Client) ClientOption {
	return func(c *Client) {
		if h != nil {
			cp := *h
			c.http = &cp
		}
	}
}

// WithBearerToken sends a static bearer token.
func WithBearerToken(token string) ClientOption {
	return func(c *Client) { c.tokens = StaticToken(token) }
}

// WithTokenSource gets the bearer token from ts before every request (a
// BackendServices source caches it until it expires).
func WithTokenSource(ts TokenSource) ClientOption { return func(c *Client) { c.tokens = ts } }

// WithRetryPolicy sets the retry policy (client.RetryPolicy is the same
// type); the default is the shared policy of every assay HTTP client.
func WithRetryPolicy(p retry.RetryPolicy) ClientOption {
	return func(c *Client) { c.policy = p.WithDefaults() }
}

// WithMaxBodySize caps each response body (<= 0: check.DefaultMaxFileSize).
func WithMaxBodySize(n int64) ClientOption {
	return func(c *Client) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithMaxTotalSize caps the bytes of all the pages of one search together
// (<= 0: check.DefaultMaxTotalSize, 256 MiB); a search past it is an error
// wrapping check.ErrTotalTooLarge that names the cap.
func WithMaxTotalSize(n int64) ClientOption {
	return func(c *Client) {
		if n > 0 {
			c.maxTotal = n
		}
	}
}

// WithTimeout bounds each HTTP attempt (default DefaultTimeout); the
// caller's ctx bounds the whole search.
func WithTimeout(d time.Duration) ClientOption {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithMaxPages lowers the page cap (default and maximum MaxPages).
func WithMaxPages(n int) ClientOption {
	return func(c *Client) {
		if n > 0 && n < MaxPages {
			c.maxPages = n
		}
	}
}

// WithoutSelfLinkCheck turns off the check that a searchset's self link
// names every parameter asked, for servers known to leave the self link
// out. Without it, a server that ignored a parameter returns everything
// and a check could pass on a resource the search should have excluded.
func WithoutSelfLinkCheck() ClientOption { return func(c *Client) { c.selfLink = false } }

// NewClient returns a client for the FHIR server at base (http or https,
// e.g. "https://fhir.example.org/r4").
func NewClient(base string, opts ...ClientOption) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil {
		return nil, fmt.Errorf("fhir: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("fhir: base URL %q is not an http or https URL", base)
	}
	u.RawQuery, u.Fragment = "", ""
	c := &Client{base: u, home: origin.Of(u), http: &http.Client{}, secret: origin.NewSecret(), policy: retry.DefaultRetryPolicy(),
		maxBody: check.DefaultMaxFileSize, maxTotal: check.DefaultMaxTotalSize, timeout: DefaultTimeout, maxPages: MaxPages, selfLink: true}
	for _, o := range opts {
		o(c)
	}
	c.http = origin.Confine(c.http, c.home)
	return c, nil
}

// Base returns the server's base URL.
func (c *Client) Base() string { return c.base.String() }

// HTTPError is a response the client could not use: a status other than
// 200 without an OperationOutcome, or a body that is not a FHIR JSON
// searchset (an HTML error page, a login form).
type HTTPError struct {
	URL        string
	StatusCode int
	// ContentType and Snippet (at most 200 bytes of the body) say what
	// came back.
	ContentType, Snippet string
	Reason               string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d (%s): %s: %q", e.URL, e.StatusCode, e.ContentType, e.Reason, e.Snippet)
}

// OperationOutcomeError is a server's OperationOutcome sent in place of a
// searchset (whatever the status, 200 included).
type OperationOutcomeError struct {
	URL        string
	StatusCode int
	Issues     []Issue
}

// Issue is one OperationOutcome issue.
type Issue struct {
	Severity, Code, Diagnostics string
}

func (e *OperationOutcomeError) Error() string {
	parts := make([]string, 0, len(e.Issues))
	for _, is := range e.Issues {
		s := is.Severity + " " + is.Code
		if is.Diagnostics != "" {
			s += ": " + is.Diagnostics
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("GET %s: HTTP %d OperationOutcome: %s", e.URL, e.StatusCode, strings.Join(parts, "; "))
}

// ErrPaging is wrapped by the errors of a search whose paging cannot be
// trusted: a next link on another origin (the token must not go there), a
// next link seen before (a loop), or more than MaxPages pages.
var ErrPaging = errors.New("bad search paging")

// IgnoredParameterError reports a searchset whose self link does not name
// a parameter the search asked for: the server ignored it, so the results
// are not the search's.
type IgnoredParameterError struct {
	URL      string
	Missing  []string
	SelfLink string
}

func (e *IgnoredParameterError) Error() string {
	if e.SelfLink == "" {
		return fmt.Sprintf("GET %s: the searchset has no self link, so the server may have ignored parameters; refusing its results", e.URL)
	}
	return fmt.Sprintf("GET %s: the server ignored %s (its self link is %s); refusing its results", e.URL, strings.Join(e.Missing, ", "), e.SelfLink)
}

// Search runs GET [base]/{resourceType}?{params}, follows link[next] (as
// sent: absolute, relative or host-relative, never re-encoded) on the
// base's origin only, and returns the entries whose search.mode is match
// (or, when a server sends no mode, the entries of resourceType).
//
// What it reads is bounded and confined: each page at most the body cap
// (WithMaxBodySize), all pages together at most the total cap
// (WithMaxTotalSize), at most MaxPages pages; a redirect to another origin,
// of the first request or of any page, is an error, as is a redirect loop,
// and neither is retried, nor is a body over its cap. Every token sent is
// scrubbed from what the search reports: a server that echoes the
// Authorization header into an OperationOutcome, an error page, a header
// or a resource does not put it into errors, details or evidence.
func (c *Client) Search(ctx context.Context, resourceType string, params url.Values) ([]Resource, error) {
	out, err := c.search(ctx, resourceType, params)
	return out, c.secret.Error(err)
}

func (c *Client) search(ctx context.Context, resourceType string, params url.Values) ([]Resource, error) {
	if !validType(resourceType) {
		return nil, fmt.Errorf("fhir: %q is not a resource type", resourceType)
	}
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + "/" + resourceType
	u.RawPath = ""
	u.RawQuery = encodeParams(params) // a space as %20, a + as %2B (rule 25)
	first := u.String()
	seen := map[string]bool{}
	var out []Resource
	var total int64
	page := first
	for n := 0; page != ""; n++ {
		if n >= c.maxPages {
			return nil, fmt.Errorf("fhir: %s: %w: more than %d pages", first, ErrPaging, c.maxPages)
		}
		if seen[page] {
			return nil, fmt.Errorf("fhir: %s: %w: the next link %s was already followed (a loop)", first, ErrPaging, page)
		}
		seen[page] = true
		body, err := c.get(ctx, page)
		if err != nil {
			return nil, err
		}
		if total += int64(len(body)); total > c.maxTotal {
			return nil, fmt.Errorf("fhir: %s: %w: its first %d pages hold %d bytes, past the %d-byte (%d MiB) cap on one search",
				first, check.ErrTotalTooLarge, n+1, total, c.maxTotal, c.maxTotal>>20)
		}
		doc := gjson.ParseBytes(body)
		if n == 0 && c.selfLink {
			if err := checkSelf(page, doc, params); err != nil {
				return nil, err
			}
		}
		doc.Get("entry").ForEach(func(_, e gjson.Result) bool {
			mode := e.Get("search.mode")
			res := e.Get("resource")
			rt := res.Get("resourceType").Str
			if mode.Str == "match" || (!mode.Exists() && rt == resourceType) {
				out = append(out, Resource{Type: rt, ID: res.Get("id").Str, Version: res.Get("meta.versionId").Str, JSON: []byte(res.Raw)})
			}
			return true
		})
		next := ""
		doc.Get("link").ForEach(func(_, l gjson.Result) bool {
			if l.Get("relation").Str == "next" {
				next = l.Get("url").Str
				return false
			}
			return true
		})
		if next == "" {
			break
		}
		cur, _ := url.Parse(page)
		ref, err := url.Parse(next)
		if err != nil {
			return nil, fmt.Errorf("fhir: %s: %w: next link %q: %v", first, ErrPaging, next, err)
		}
		abs := cur.ResolveReference(ref)
		if origin.Of(abs) != c.home {
			return nil, fmt.Errorf("fhir: %s: %w: next link %s leaves the server's origin %s", first, ErrPaging, abs, c.home)
		}
		page = abs.String()
	}
	return out, nil
}

// checkSelf verifies that the searchset's self link names every parameter
// asked (by name, modifier included; values may be normalised).
func checkSelf(page string, doc gjson.Result, params url.Values) error {
	self := ""
	doc.Get("link").ForEach(func(_, l gjson.Result) bool {
		if l.Get("relation").Str == "self" {
			self = l.Get("url").Str
			return false
		}
		return true
	})
	if len(params) == 0 {
		return nil
	}
	if self == "" {
		return &IgnoredParameterError{URL: page}
	}
	names := map[string]bool{}
	raw := self
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[i+1:]
	} else {
		raw = ""
	}
	for _, kv := range strings.Split(raw, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		names[k] = true
	}
	var missing []string
	for k := range params {
		if !names[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sortStrings(missing)
		return &IgnoredParameterError{URL: page, Missing: missing, SelfLink: self}
	}
	return nil
}

// get fetches one page with retries and returns its body, a FHIR JSON
// searchset.
func (c *Client) get(ctx context.Context, page string) ([]byte, error) {
	p := c.policy
	refreshed := false
	for attempt := 0; ; attempt++ {
		resp, body, err := c.once(ctx, page)
		if retry.IsFinal(err) {
			// A body over the cap, a redirect loop or to another
			// origin: the same would come back.
			return nil, fmt.Errorf("fhir: GET %s: %w", page, err)
		}
		if err == nil && resp.StatusCode == http.StatusUnauthorized && !refreshed {
			// A token the server no longer takes: ask for a new one, once.
			if inv, ok := c.tokens.(interface{ Invalidate() }); ok {
				inv.Invalidate()
				refreshed = true
				attempt--
				continue
			}
		}
		retryable := p.Retries(http.MethodGet) && attempt < p.MaxRetries
		if retryable {
			again, cerr := p.CheckRetry(ctx, resp, err)
			if cerr != nil {
				return nil, fmt.Errorf("fhir: GET %s: %w", page, cerr)
			}
			if again {
				if werr := retry.Sleep(ctx, retry.CapWait(p.Backoff(p.MinWait, p.MaxWait, attempt, resp), p.MaxWait)); werr != nil {
					return nil, fmt.Errorf("fhir: GET %s: %w", page, werr)
				}
				continue
			}
		}
		if err != nil {
			return nil, fmt.Errorf("fhir: GET %s: %w", page, err)
		}
		return body, judgeResponse(page, resp, body)
	}
}

// once sends one attempt and reads its body, capped.
func (c *Client) once(ctx context.Context, page string) (*http.Response, []byte, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, page, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/fhir+json")
	req.Header.Set("Prefer", "handling=strict")
	if c.tokens != nil && origin.Of(req.URL) == c.home {
		tok, err := c.tokens.Token(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("getting a token: %w", err)
		}
		c.secret.Add(tok)
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return resp, nil, fmt.Errorf("reading the response: %w", err)
	}
	if int64(len(body)) > c.maxBody {
		return resp, nil, retry.Final(fmt.Errorf("the response is over the %d-byte cap on one page", c.maxBody))
	}
	// What the server sent is scrubbed before anything reads it.
	c.secret.RedactResponse(resp)
	body = c.secret.RedactBytes(body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, body, nil
}

// judgeResponse turns a response that is not a 200 FHIR JSON searchset into
// a typed error.
func judgeResponse(page string, resp *http.Response, body []byte) error {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	isJSON := mt == "application/fhir+json" || mt == "application/json" || strings.HasSuffix(mt, "+json")
	snippet := string(body[:min(len(body), 200)])
	doc := gjson.ParseBytes(body)
	if isJSON && jsonvalue.Valid(body) && doc.Get("resourceType").Str == "OperationOutcome" {
		e := &OperationOutcomeError{URL: page, StatusCode: resp.StatusCode}
		doc.Get("issue").ForEach(func(_, is gjson.Result) bool {
			e.Issues = append(e.Issues, Issue{Severity: is.Get("severity").Str, Code: is.Get("code").Str, Diagnostics: is.Get("diagnostics").Str})
			return true
		})
		return e
	}
	fail := func(reason string) error {
		return &HTTPError{URL: page, StatusCode: resp.StatusCode, ContentType: ct, Snippet: snippet, Reason: reason}
	}
	switch {
	case resp.StatusCode != http.StatusOK:
		return fail("not 200 OK")
	case !isJSON:
		return fail("not FHIR JSON")
	case !jsonvalue.Valid(body):
		return fail("the body is not JSON")
	case doc.Get("resourceType").Str != "Bundle":
		return fail("not a Bundle")
	case doc.Get("type").Str != "searchset":
		return fail("not a searchset Bundle")
	}
	return nil
}
