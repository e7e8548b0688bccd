package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"github.com/assaykit/assay/assert"
)

// MaxLimit is the largest page a list asks for.
const MaxLimit = 100

// DefaultMaxPages is how many pages All and ListAll fetch at most in one
// listing unless ListOptions.MaxPages says otherwise: 10,000 pages of 100
// is a million criteria, far beyond any task, and a server that keeps
// handing out fresh cursors cannot make a listing run forever.
const DefaultMaxPages = 10000

// ErrRepeatedCursor is wrapped by the *ResponseError of a listing whose
// next cursor equals a cursor already used in it: following it would loop.
var ErrRepeatedCursor = errors.New("the API repeated a cursor")

// ErrTooManyPages is wrapped by the *ResponseError of a listing that has
// more pages than its limit (ListOptions.MaxPages, DefaultMaxPages).
var ErrTooManyPages = errors.New("the list has more pages than the limit")

// CriteriaService holds the calls on /criteria. Criteria are
// assert.Criterion values, so a list fetched here feeds assert.Evaluate as
// it is.
type CriteriaService struct {
	client *Client
}

// ListOptions selects one page of a list.
type ListOptions struct {
	// Limit is the page size, 1..MaxLimit; 0 lets the API choose (List) or
	// asks for MaxLimit (All, ListAll).
	Limit int
	// Cursor is the Response.NextCursor of the previous page; "" is the
	// first page.
	Cursor string
	// MaxPages bounds how many pages All and ListAll fetch; 0 means
	// DefaultMaxPages. List ignores it.
	MaxPages int
}

// listPage is one page of a list response. The next page's cursor is
// _meta.next or, from APIs that put it there, a top-level next_cursor.
type listPage struct {
	Data *[]assert.Criterion `json:"data"`
	Meta struct {
		Next string `json:"next"`
	} `json:"_meta"`
	NextCursor string          `json:"next_cursor"`
	Error      json.RawMessage `json:"error"`
}

// List returns one page of the criteria of a task, newest first as the API
// orders them, and the cursor of the next page in Response.NextCursor.
// taskID "" leaves the task_id parameter out.
func (s *CriteriaService) List(ctx context.Context, taskID string, opts *ListOptions) ([]assert.Criterion, *Response, error) {
	q := url.Values{}
	if taskID != "" {
		q.Set("task_id", taskID)
	}
	if opts != nil {
		if opts.Limit != 0 {
			if opts.Limit < 1 || opts.Limit > MaxLimit {
				return nil, nil, fmt.Errorf("client: list limit %d is outside 1..%d", opts.Limit, MaxLimit)
			}
			q.Set("limit", strconv.Itoa(opts.Limit))
		}
		if opts.Cursor != "" {
			q.Set("cursor", opts.Cursor)
		}
	}
	resp, body, err := s.client.do(ctx, http.MethodGet, "/criteria", q, nil)
	if err != nil {
		return nil, nil, err
	}
	return s.client.decodeList(resp, body)
}

// decodeList reads a list page into criteria and resp.NextCursor.
func (c *Client) decodeList(resp *Response, body []byte) ([]assert.Criterion, *Response, error) {
	items, next, err := c.readList(resp, body)
	if err != nil {
		return nil, resp, err
	}
	resp.NextCursor = next
	return items, resp, nil
}

func (c *Client) readList(resp *Response, body []byte) ([]assert.Criterion, string, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		// A bare array is a single, last page.
		var list []assert.Criterion
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, "", listError(resp, trimmed, "", err)
		}
		for i := range list {
			c.redactCriterion(&list[i])
		}
		return list, "", nil
	}
	var page listPage
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, "", listError(resp, body, "/data", err)
	}
	if err := c.errorMember(resp, body, page.Error); err != nil {
		return nil, "", err
	}
	if page.Data == nil {
		return nil, "", resp.decodeError(`not a list response: no "data" array`, nil)
	}
	next := page.Meta.Next
	if next == "" {
		next = page.NextCursor
	}
	for i := range *page.Data {
		c.redactCriterion(&(*page.Data)[i])
	}
	return *page.Data, c.redact(next), nil
}

// listError explains why a list body did not decode; for an invalid item
// it names the item's JSON pointer.
func listError(resp *Response, body []byte, base string, err error) error {
	var ce *assert.CriteriaError
	if !errors.As(err, &ce) {
		if len(bytes.TrimSpace(body)) == 0 {
			return resp.decodeError("empty body", nil)
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return resp.decodeError("the body is not valid JSON", err)
		}
		return resp.decodeError("the body is not a criteria list", err)
	}
	var items []json.RawMessage
	if base == "" {
		_ = json.Unmarshal(body, &items)
	} else {
		var raw struct {
			Data []json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(body, &raw)
		items = raw.Data
	}
	for i, item := range items {
		var c assert.Criterion
		if itemErr := c.UnmarshalJSON(item); itemErr != nil {
			return resp.decodeError("invalid criterion at "+assert.IndexPointer(base, i), itemErr)
		}
	}
	return resp.decodeError("invalid criterion", err)
}

// All iterates over every criterion of a task, fetching page after page
// (MaxLimit at a time unless opts says otherwise, starting at opts.Cursor).
// It stops after yielding the first error. A listing whose next cursor
// equals any cursor already used in it (the starting one included) stops
// with a *ResponseError wrapping ErrRepeatedCursor, and one with more pages
// than opts.MaxPages (default DefaultMaxPages) with ErrTooManyPages, so a
// faulty or hostile server cannot make it loop or grow forever.
//
//	for c, err := range cl.Criteria.All(ctx, "task_1", nil) {
//		if err != nil { ... }
//	}
func (s *CriteriaService) All(ctx context.Context, taskID string, opts *ListOptions) iter.Seq2[assert.Criterion, error] {
	return func(yield func(assert.Criterion, error) bool) {
		o := ListOptions{Limit: MaxLimit}
		maxPages := DefaultMaxPages
		if opts != nil {
			o.Cursor = opts.Cursor
			if opts.Limit != 0 {
				o.Limit = opts.Limit
			}
			if opts.MaxPages > 0 {
				maxPages = opts.MaxPages
			}
		}
		// Cursors are remembered by their hash: a server's cursors may be
		// long, and a listing may use thousands.
		used := map[[sha256.Size]byte]bool{sha256.Sum256([]byte(o.Cursor)): true}
		for pages := 1; ; pages++ {
			page, resp, err := s.List(ctx, taskID, &o)
			if err != nil {
				yield(assert.Criterion{}, err)
				return
			}
			for _, c := range page {
				if !yield(c, nil) {
					return
				}
			}
			next := resp.NextCursor
			if next == "" {
				return
			}
			if pages >= maxPages {
				yield(assert.Criterion{}, resp.decodeError(fmt.Sprintf("page %d of a listing limited to %d pages has a next cursor", pages, maxPages), ErrTooManyPages))
				return
			}
			sum := sha256.Sum256([]byte(next))
			if used[sum] {
				yield(assert.Criterion{}, resp.decodeError(fmt.Sprintf("page %d's next cursor %s was already used in this listing: the list does not advance", pages, quoteCursor(next)), ErrRepeatedCursor))
				return
			}
			used[sum] = true
			o.Cursor = next
		}
	}
}

// quoteCursor quotes a cursor for a message, cut to 64 bytes.
func quoteCursor(c string) string {
	const shown = 64
	if len(c) <= shown {
		return strconv.Quote(c)
	}
	return strconv.Quote(c[:shown]) + fmt.Sprintf(" (%d bytes)", len(c))
}

// ListAll returns every criterion of a task, following every page (at most
// DefaultMaxPages); the result feeds assert.Evaluate directly. On an error
// it returns no criteria, not a partial list.
func (s *CriteriaService) ListAll(ctx context.Context, taskID string) ([]assert.Criterion, error) {
	var out []assert.Criterion
	for c, err := range s.All(ctx, taskID, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Get returns one criterion.
func (s *CriteriaService) Get(ctx context.Context, id string) (*assert.Criterion, *Response, error) {
	path, err := criterionPath(id)
	if err != nil {
		return nil, nil, err
	}
	resp, body, err := s.client.do(ctx, http.MethodGet, path, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	return s.client.decodeCriterion(resp, body)
}

// createBody is what Create sends: the criterion without the fields the API
// assigns (id, created_at), so that a fetched criterion can be copied.
type createBody struct {
	TaskID        string      `json:"task_id,omitempty"`
	InputEntityID string      `json:"input_entity_id,omitempty"`
	Label         string      `json:"label"`
	Assertion     assert.Spec `json:"assertion"`
	Weight        *float64    `json:"weight,omitempty"`
	Axis          string      `json:"axis,omitempty"`
}

// Create adds a criterion and returns it as the API stored it (with its id
// and created_at). It sends task_id, input_entity_id, label, assertion,
// weight and axis, leaving out empty optional ones (a nil Weight means the
// API's default, 1); the assertion goes out exactly as written, with
// insignificant whitespace compacted. The API, not the client, validates
// the criterion. Create is retried only when RetryPolicy.RetryPOST is set.
func (s *CriteriaService) Create(ctx context.Context, c assert.Criterion) (*assert.Criterion, *Response, error) {
	if c.Weight != nil && (math.IsNaN(*c.Weight) || math.IsInf(*c.Weight, 0)) {
		return nil, nil, fmt.Errorf("client: create: weight %v is not a JSON number", *c.Weight)
	}
	payload, err := marshal(createBody{
		TaskID: c.TaskID, InputEntityID: c.InputEntityID, Label: c.Label,
		Assertion: c.Assertion, Weight: c.Weight, Axis: c.Axis,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("client: create: %w", err)
	}
	resp, body, err := s.client.do(ctx, http.MethodPost, "/criteria", nil, payload)
	if err != nil {
		return nil, nil, err
	}
	return s.client.decodeCriterion(resp, body)
}

// Update changes the fields u sets (PATCH: nothing else is sent) and returns
// the criterion as the API stored it.
func (s *CriteriaService) Update(ctx context.Context, id string, u CriterionUpdate) (*assert.Criterion, *Response, error) {
	path, err := criterionPath(id)
	if err != nil {
		return nil, nil, err
	}
	payload, err := u.MarshalJSON()
	if err != nil {
		return nil, nil, fmt.Errorf("client: update %s: %w", id, err)
	}
	resp, body, err := s.client.do(ctx, http.MethodPatch, path, nil, payload)
	if err != nil {
		return nil, nil, err
	}
	return s.client.decodeCriterion(resp, body)
}

// Delete removes a criterion.
func (s *CriteriaService) Delete(ctx context.Context, id string) (*Response, error) {
	path, err := criterionPath(id)
	if err != nil {
		return nil, err
	}
	resp, body, err := s.client.do(ctx, http.MethodDelete, path, nil, nil)
	if err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' {
		var probe struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(trimmed, &probe) == nil {
			if err := s.client.errorMember(resp, body, probe.Error); err != nil {
				return resp, err
			}
		}
	}
	return resp, nil
}

func criterionPath(id string) (string, error) {
	if id == "" || id == "." || id == ".." {
		return "", fmt.Errorf("client: invalid criterion id %q", id)
	}
	return "/criteria/" + url.PathEscape(id), nil
}

// decodeCriterion reads a single-criterion answer: the criterion object, or
// the same wrapped as {"data": {...}}.
func (c *Client) decodeCriterion(resp *Response, body []byte) (*assert.Criterion, *Response, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, resp, resp.decodeError("empty body, expected a criterion", nil)
	}
	var probe struct {
		Error json.RawMessage `json:"error"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, resp, resp.decodeError("the body is not valid JSON", err)
		}
		return nil, resp, resp.decodeError("the body is not a criterion object", err)
	}
	if err := c.errorMember(resp, body, probe.Error); err != nil {
		return nil, resp, err
	}
	obj := body
	if d := bytes.TrimSpace(probe.Data); len(d) > 0 && d[0] == '{' {
		obj = d
	}
	var cr assert.Criterion
	if err := cr.UnmarshalJSON(obj); err != nil {
		return nil, resp, resp.decodeError("invalid criterion", err)
	}
	if cr.ID == "" {
		return nil, resp, resp.decodeError(`the criterion has no "id"`, nil)
	}
	c.redactCriterion(&cr)
	return &cr, resp, nil
}

// marshal encodes v without HTML escaping, so that "<", ">" and "&" in
// labels and assertions travel as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Ptr returns a pointer to v, for the optional fields of CriterionUpdate
// (Label: client.Ptr("new label")).
func Ptr[T any](v T) *T { return &v }
