package clienttest

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/criterionbody"
)

// Limits of the list endpoint.
const (
	// DefaultLimit is the page size when a list names none.
	DefaultLimit = 20
	// MaxLimit is the largest page size a list may ask for.
	MaxLimit = 100
)

// maxBody bounds request bodies; larger ones get 413.
const maxBody = 1 << 20

// Server is an in-memory criteria API served by an httptest.Server on
// 127.0.0.1. Use its URL as the client's base URL and Close it when done.
// A Server is safe for concurrent use.
type Server struct {
	*httptest.Server
	api *api
}

// Option configures a Server.
type Option func(*api)

// WithAPIKey makes the server require "Authorization: Bearer KEY"; other
// requests get 401 unauthorized. Without it any key, or none, is accepted.
func WithAPIKey(key string) Option { return func(a *api) { a.key = key } }

// WithClock sets the clock that stamps created_at (default: time.Now in
// UTC).
func WithClock(now func() time.Time) Option { return func(a *api) { a.now = now } }

// WithRegistry makes the server decode every assertion it is given through
// r, answering 422 with one detail per schema violation (field
// "/assertion/..."), as an API that validates assertions would. Without it
// the server only checks that the assertion is a JSON object. Importing
// clienttest registers every built-in kind in assert.DefaultRegistry(), so
// WithRegistry(assert.DefaultRegistry()) validates all of them.
func WithRegistry(r *assert.Registry) Option { return func(a *api) { a.registry = r } }

// WithTopLevelNextCursor makes lists carry the next page's cursor in a
// top-level "next_cursor" instead of "_meta": {"next": ...}; clients must
// read both.
func WithTopLevelNextCursor() Option { return func(a *api) { a.topLevelCursor = true } }

// NewServer starts a server. Close it when done.
func NewServer(opts ...Option) *Server {
	a := &api{
		now:    func() time.Time { return time.Now().UTC() },
		byID:   map[string]*record{},
		byTask: map[string][]*record{},
	}
	for _, o := range opts {
		o(a)
	}
	return &Server{Server: httptest.NewServer(a), api: a}
}

// Fault is a canned answer the server gives, in place of the real one, to
// the next Times requests that match Method and Path.
type Fault struct {
	// Method ("" for any) and Path (a prefix of the request path, "" for
	// any) select the requests.
	Method, Path string
	// Status is the HTTP status (default 500).
	Status int
	// RetryAfter, when set, is sent as the Retry-After header ("2", or an
	// HTTP date).
	RetryAfter string
	// Body replaces the default body, an {"error": {...}} object whose code
	// follows the status (rate_limited, unavailable, internal_error, ...).
	// ContentType defaults to application/json for the default body and
	// to what net/http detects for others ("text/html; charset=utf-8").
	Body, ContentType string
	// Delay holds the answer back (until the client gives up, if sooner).
	Delay time.Duration
	// Abort closes the connection without answering, as a crashed server
	// or a reset connection would. net/http itself resends an idempotent
	// request once when a reused connection drops, so it takes Times: 2 to
	// make a GET fail.
	Abort bool
	// Times is how many requests the fault answers; 0 means 1.
	Times int
}

// Inject queues a fault. Faults answer before authentication and routing,
// in the order injected.
func (s *Server) Inject(f Fault) {
	if f.Times <= 0 {
		f.Times = 1
	}
	if f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	s.api.mu.Lock()
	defer s.api.mu.Unlock()
	s.api.faults = append(s.api.faults, &f)
}

// Request is a request the server received.
type Request struct {
	Method string
	// Path is the request path as sent (escaped).
	Path  string
	Query url.Values
	Body  []byte
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.api.mu.Lock()
	defer s.api.mu.Unlock()
	return append([]Request(nil), s.api.requests...)
}

// Add stores criteria directly, as if created, and returns them as stored.
// An empty ID gets a fresh one ("crit_N"), a zero CreatedAt the clock's
// time, a nil Weight 1; a criterion whose ID is taken replaces the old one.
// It checks what POST /criteria checks and returns the first problem.
func (s *Server) Add(criteria ...assert.Criterion) ([]assert.Criterion, error) {
	a := s.api
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]assert.Criterion, 0, len(criteria))
	for i, c := range criteria {
		if c.TaskID == "" {
			return out, fmt.Errorf("clienttest: Add: criterion %d has no TaskID", i)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, c.Assertion) != nil || compact.Len() == 0 || compact.Bytes()[0] != '{' {
			return out, fmt.Errorf("clienttest: Add: criterion %d: the assertion must be a JSON object", i)
		}
		weight := []byte("1")
		if c.Weight != nil {
			if w := *c.Weight; math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
				return out, fmt.Errorf("clienttest: Add: criterion %d: weight %v is not a number >= 0", i, w)
			}
			weight = strconv.AppendFloat(nil, *c.Weight, 'g', -1, 64)
		}
		r := &record{
			id: c.ID, taskID: c.TaskID, label: c.Label, assertion: compact.Bytes(),
			weight: weight, createdAt: c.CreatedAt.UTC(),
		}
		if c.InputEntityID != "" {
			r.inputEntityID = &c.InputEntityID
		}
		if c.Axis != "" {
			r.axis = &c.Axis
		}
		if old, taken := a.byID[r.id]; taken && r.id != "" {
			a.remove(old)
		}
		a.insert(r)
		out = append(out, r.criterion())
	}
	return out, nil
}

// Criteria returns the stored criteria of a task, newest first.
func (s *Server) Criteria(taskID string) []assert.Criterion {
	a := s.api
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.byTask[taskID]
	out := make([]assert.Criterion, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, list[i].criterion())
	}
	return out
}

// record is one stored criterion.
type record struct {
	seq           int64
	id, taskID    string
	inputEntityID *string
	label         string
	assertion     []byte // compacted, otherwise as received
	weight        []byte // the JSON number as received
	axis          *string
	createdAt     time.Time
	rendered      []byte // the criterion object, cached
}

// before reports whether r sorts before o, oldest first.
func (r *record) before(createdAt time.Time, seq int64) bool {
	if !r.createdAt.Equal(createdAt) {
		return r.createdAt.Before(createdAt)
	}
	return r.seq < seq
}

func (r *record) render() {
	b := make([]byte, 0, 160+len(r.assertion))
	b = append(b, `{"id":`...)
	b = appendString(b, r.id)
	b = append(b, `,"task_id":`...)
	b = appendString(b, r.taskID)
	b = append(b, `,"input_entity_id":`...)
	b = appendNullable(b, r.inputEntityID)
	b = append(b, `,"label":`...)
	b = appendString(b, r.label)
	b = append(b, `,"assertion":`...)
	b = append(b, r.assertion...)
	b = append(b, `,"weight":`...)
	b = append(b, r.weight...)
	b = append(b, `,"axis":`...)
	b = appendNullable(b, r.axis)
	b = append(b, `,"created_at":"`...)
	b = r.createdAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `"}`...)
	r.rendered = b
}

func (r *record) criterion() assert.Criterion {
	var c assert.Criterion
	_ = c.UnmarshalJSON(r.rendered) // rendered by render, always valid
	return c
}

func appendString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

func appendNullable(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendString(dst, *s)
}

// api is the handler and its store. Each task's records are kept oldest
// first, so that a new criterion is appended and a page, newest first, is
// read backwards from the cursor.
type api struct {
	key            string
	now            func() time.Time
	registry       *assert.Registry
	topLevelCursor bool

	mu       sync.Mutex
	seq      int64
	reqs     int64
	byID     map[string]*record
	byTask   map[string][]*record
	faults   []*Fault
	requests []Request
}

// insert stores r, giving it a sequence number, an id and a creation time
// when it has none. The caller holds mu.
func (a *api) insert(r *record) {
	a.seq++
	r.seq = a.seq
	if r.id == "" {
		for n := a.seq; ; n++ {
			id := "crit_" + strconv.FormatInt(n, 10)
			if _, taken := a.byID[id]; !taken {
				r.id = id
				break
			}
		}
	}
	if r.createdAt.IsZero() {
		r.createdAt = a.now().UTC()
	}
	r.render()
	a.place(r)
}

// place indexes r by id and puts it in its task's list at its place in
// time. The caller holds mu.
func (a *api) place(r *record) {
	a.byID[r.id] = r
	list := a.byTask[r.taskID]
	i := sort.Search(len(list), func(i int) bool { return !list[i].before(r.createdAt, r.seq) })
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = r
	a.byTask[r.taskID] = list
}

// remove deletes r. The caller holds mu.
func (a *api) remove(r *record) {
	delete(a.byID, r.id)
	list := a.byTask[r.taskID]
	for i, x := range list {
		if x == r {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(a.byTask, r.taskID)
	} else {
		a.byTask[r.taskID] = list
	}
}

// detail is one entry of an error's details.
type detail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code, message string, details []detail) {
	var body struct {
		Error struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Details []detail `json:"details,omitempty"`
		} `json:"error"`
	}
	body.Error.Code, body.Error.Message, body.Error.Details = code, message, details
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // strings only
	writeJSON(w, status, buf.Bytes())
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	a.mu.Lock()
	a.reqs++
	w.Header().Set("X-Request-Id", "req_"+strconv.FormatInt(a.reqs, 10))
	a.requests = append(a.requests, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Body: body})
	fault := a.takeFault(r)
	a.mu.Unlock()
	if fault != nil {
		serveFault(w, r, fault)
		return
	}
	if a.key != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(a.key)) != 1 {
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or invalid API key", nil)
			return
		}
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the request body could not be read", nil)
		return
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the request body exceeds %d bytes", maxBody), nil)
		return
	}
	path := r.URL.EscapedPath()
	switch {
	case path == "/criteria":
		switch r.Method {
		case http.MethodGet:
			a.list(w, r)
		case http.MethodPost:
			a.create(w, body)
		default:
			methodNotAllowed(w, "GET, POST")
		}
	case strings.HasPrefix(path, "/criteria/") && !strings.Contains(path[len("/criteria/"):], "/"):
		id, err := url.PathUnescape(path[len("/criteria/"):])
		if err != nil || id == "" {
			writeError(w, http.StatusNotFound, "not_found", "no such criterion", nil)
			return
		}
		switch r.Method {
		case http.MethodGet:
			a.get(w, id)
		case http.MethodPatch:
			a.update(w, id, body)
		case http.MethodDelete:
			a.delete(w, id)
		default:
			methodNotAllowed(w, "GET, PATCH, DELETE")
		}
	default:
		writeError(w, http.StatusNotFound, "not_found", "no route "+r.Method+" "+path, nil)
	}
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "allowed methods: "+allow, nil)
}

// takeFault returns the first queued fault that matches r, counting it
// down. The caller holds mu.
func (a *api) takeFault(r *http.Request) *Fault {
	for i, f := range a.faults {
		if (f.Method == "" || f.Method == r.Method) && strings.HasPrefix(r.URL.Path, f.Path) {
			f.Times--
			if f.Times == 0 {
				a.faults = append(a.faults[:i], a.faults[i+1:]...)
			}
			return f
		}
	}
	return nil
}

func serveFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if f.Abort {
		panic(http.ErrAbortHandler) // net/http closes the connection quietly
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.Body == "" {
		code := map[int]string{
			http.StatusTooManyRequests:     "rate_limited",
			http.StatusServiceUnavailable:  "unavailable",
			http.StatusInternalServerError: "internal_error",
			http.StatusBadGateway:          "bad_gateway",
			http.StatusGatewayTimeout:      "gateway_timeout",
		}[f.Status]
		if code == "" {
			code = "injected_fault"
		}
		writeError(w, f.Status, code, "injected fault: "+http.StatusText(f.Status), nil)
		return
	}
	ct := f.ContentType
	if ct == "" {
		ct = http.DetectContentType([]byte(f.Body))
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

// cursor names a position in a task's list: the created_at and sequence
// number of the last criterion of the page before.
func encodeCursor(r *record) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d", r.createdAt.UnixNano(), r.seq))
}

func decodeCursor(s string) (time.Time, int64, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return time.Time{}, 0, false
	}
	nanos, seq, ok := strings.Cut(string(raw), ".")
	if !ok {
		return time.Time{}, 0, false
	}
	n, err1 := strconv.ParseInt(nanos, 10, 64)
	q, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, 0, false
	}
	return time.Unix(0, n).UTC(), q, true
}

func (a *api) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var problems []detail
	taskID := q.Get("task_id")
	if taskID == "" {
		problems = append(problems, detail{"task_id", "required"})
	}
	limit := DefaultLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxLimit {
			problems = append(problems, detail{"limit", fmt.Sprintf("must be an integer from 1 to %d", MaxLimit)})
		}
		limit = n
	}
	var after struct {
		at  time.Time
		seq int64
		set bool
	}
	if v := q.Get("cursor"); v != "" {
		at, seq, ok := decodeCursor(v)
		if !ok {
			problems = append(problems, detail{"cursor", "not a cursor this server handed out"})
		}
		after.at, after.seq, after.set = at, seq, ok
	}
	if len(problems) > 0 {
		writeError(w, http.StatusBadRequest, "validation_error", "invalid list parameters", problems)
		return
	}
	a.mu.Lock()
	list := a.byTask[taskID]
	end := len(list) // exclusive; the page is list[end-limit:end] read backwards
	if after.set {
		end = sort.Search(len(list), func(i int) bool { return !list[i].before(after.at, after.seq) })
	}
	start := max(end-limit, 0)
	size := 64
	for _, rec := range list[start:end] {
		size += len(rec.rendered) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"data":[`...)
	for i := end - 1; i >= start; i-- {
		if i != end-1 {
			b = append(b, ',')
		}
		b = append(b, list[i].rendered...)
	}
	next := ""
	if start > 0 {
		next = encodeCursor(list[start])
	}
	a.mu.Unlock()
	b = append(b, ']')
	if a.topLevelCursor {
		b = append(b, `,"next_cursor":`...)
	} else {
		b = append(b, `,"_meta":{"next":`...)
	}
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, next)
	}
	if !a.topLevelCursor {
		b = append(b, '}')
	}
	b = append(b, '}')
	writeJSON(w, http.StatusOK, b)
}

func (a *api) get(w http.ResponseWriter, id string) {
	a.mu.Lock()
	r, ok := a.byID[id]
	var body []byte
	if ok {
		body = r.rendered
	}
	a.mu.Unlock()
	if !ok {
		notFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func notFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("criterion %q not found", id), nil)
}

// fieldsOf reads a request body that must be a JSON object.
func fieldsOf(w http.ResponseWriter, body []byte) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		msg := "the body must be a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		writeError(w, http.StatusBadRequest, "invalid_request", msg, nil)
		return nil, false
	}
	return fields, true
}

// change is a validated set of field values from a POST or PATCH body.
type change struct {
	taskID, label       *string
	inputEntityID, axis **string // nil: untouched; *nil: cleared
	assertion, weight   []byte
	problems            []detail
}

// problemDetails words the problems of a body's members as the API's
// validation details do.
var problemDetails = map[criterionbody.Problem]string{
	criterionbody.Assigned:        "is assigned by the server and cannot be set",
	criterionbody.Unknown:         "unknown field",
	criterionbody.NotString:       "must be a string",
	criterionbody.NotStringOrNull: "must be a string or null",
	criterionbody.NotObject:       "must be an object",
	criterionbody.NotNumber:       "must be a number >= 0",
}

// read validates the members of a criterion body; creating says whether
// nulls and missing required fields are judged as for POST.
func (a *api) read(fields map[string]json.RawMessage, creating bool) change {
	var c change
	bad := func(key, msg string) { c.problems = append(c.problems, detail{"/" + key, msg}) }
	for _, f := range criterionbody.Read(fields) {
		k := f.Key
		if msg, ok := problemDetails[f.Problem]; ok {
			bad(k, msg)
			continue
		}
		switch k {
		case "task_id", "label":
			s := f.Text
			switch {
			case s == "":
				bad(k, "must not be empty")
			case k == "task_id":
				c.taskID = &s
			default:
				c.label = &s
			}
		case "input_entity_id", "axis":
			var v *string
			if !f.Null {
				s := f.Text
				v = &s
			}
			if k == "axis" {
				c.axis = &v
			} else {
				c.inputEntityID = &v
			}
		case "assertion":
			var buf bytes.Buffer
			if json.Compact(&buf, f.Object) != nil {
				bad(k, "must be an object")
				continue
			}
			if a.registry != nil {
				if _, err := a.registry.Decode(buf.Bytes()); err != nil {
					var se *assert.SpecError
					if errors.As(err, &se) && len(se.Violations) > 0 {
						for _, v := range se.Violations {
							bad(k+v.Pointer, v.Message)
						}
					} else {
						bad(k, err.Error())
					}
					continue
				}
			}
			c.assertion = buf.Bytes()
		case "weight":
			if w, err := f.Number.Float64(); err != nil || math.IsInf(w, 0) || w < 0 {
				bad(k, "must be a number >= 0")
				continue
			}
			c.weight = []byte(f.Number)
		}
	}
	if creating {
		for _, req := range []struct {
			key string
			ok  bool
		}{{"assertion", c.assertion != nil}, {"label", c.label != nil}, {"task_id", c.taskID != nil}} {
			if _, given := fields[req.key]; !given && !req.ok {
				bad(req.key, "required")
			}
		}
	}
	return c
}

func (a *api) create(w http.ResponseWriter, body []byte) {
	fields, ok := fieldsOf(w, body)
	if !ok {
		return
	}
	c := a.read(fields, true)
	if len(c.problems) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "validation_error", "the criterion is invalid", c.problems)
		return
	}
	r := &record{taskID: *c.taskID, label: *c.label, assertion: c.assertion, weight: c.weight}
	if r.weight == nil {
		r.weight = []byte("1")
	}
	if c.axis != nil {
		r.axis = *c.axis
	}
	if c.inputEntityID != nil {
		r.inputEntityID = *c.inputEntityID
	}
	a.mu.Lock()
	a.insert(r)
	out := r.rendered
	a.mu.Unlock()
	w.Header().Set("Location", "/criteria/"+url.PathEscape(r.id))
	writeJSON(w, http.StatusCreated, out)
}

func (a *api) update(w http.ResponseWriter, id string, body []byte) {
	a.mu.Lock()
	_, exists := a.byID[id]
	a.mu.Unlock()
	if !exists {
		notFound(w, id)
		return
	}
	fields, ok := fieldsOf(w, body)
	if !ok {
		return
	}
	c := a.read(fields, false)
	if len(c.problems) > 0 {
		writeError(w, http.StatusUnprocessableEntity, "validation_error", "the update is invalid", c.problems)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	old, exists := a.byID[id]
	if !exists {
		notFound(w, id)
		return
	}
	r := *old
	if c.taskID != nil {
		r.taskID = *c.taskID
	}
	if c.label != nil {
		r.label = *c.label
	}
	if c.assertion != nil {
		r.assertion = c.assertion
	}
	if c.weight != nil {
		r.weight = c.weight
	}
	if c.axis != nil {
		r.axis = *c.axis
	}
	if c.inputEntityID != nil {
		r.inputEntityID = *c.inputEntityID
	}
	r.render()
	if r.taskID == old.taskID {
		*old = r
	} else {
		// Moving to another task keeps the criterion's place in time.
		a.remove(old)
		a.place(&r)
		old = &r
	}
	writeJSON(w, http.StatusOK, old.rendered)
}

func (a *api) delete(w http.ResponseWriter, id string) {
	a.mu.Lock()
	r, ok := a.byID[id]
	if ok {
		a.remove(r)
	}
	a.mu.Unlock()
	if !ok {
		notFound(w, id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

var _ http.Handler = (*api)(nil)
