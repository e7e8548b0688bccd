package fhir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Handler defaults.
const (
	// DefaultPageSize is a searchset page's size when _count is absent.
	DefaultPageSize = 50
	// DefaultMaxPageSize caps _count.
	DefaultMaxPageSize = 1000
	// DefaultMaxBodySize caps a request body (create, update, _search,
	// a transaction or batch).
	DefaultMaxBodySize = 8 << 20
)

// Handler serves a Store as a FHIR R4 server (JSON only):
//
//	GET  /metadata                         a CapabilityStatement
//	POST /                                 a transaction or batch Bundle
//	GET  /?{params}                        system search: _type's types, or every type (POST /_search too)
//	GET  /{type}?{params}                  search (POST /{type}/_search with a form body too)
//	GET  /{type}/{id}                      read
//	GET  /{type}/{id}/_history             history (newest first)
//	GET  /{type}/{id}/_history/{vid}       vread
//	POST /{type}                           create (If-None-Exist: conditional create)
//	PUT  /{type}/{id}                      update, or create with that id (If-Match: W/"vid")
//	PUT  /{type}?{params}                  conditional update
//	DELETE /{type}/{id}                    delete
//	DELETE /{type}?{params}                conditional delete
//
// Searches answer a searchset Bundle with total, a self link naming every
// parameter and a next link while pages remain, its matches marked
// search.mode match and what _include and _revinclude add to the page
// marked include; errors are
// OperationOutcomes (an unknown parameter is a 400: the store is always
// strict; a write past the store's bounds a 507). Prefer: return=minimal
// leaves the resource out of a write's answer. Mount it under a prefix
// with http.StripPrefix and set BaseURL.
type Handler struct {
	Store *Store
	// BaseURL is the server's base as links name it; "" derives it from
	// each request (http://Host).
	BaseURL string
	// MaxBodySize caps request bodies (<= 0: DefaultMaxBodySize);
	// DefaultPageSize and MaxPageSize size pages (<= 0: the package
	// defaults).
	MaxBodySize                  int64
	DefaultPageSize, MaxPageSize int
}

// NewHandler returns a Handler for s with the defaults.
func NewHandler(s *Store) *Handler { return &Handler{Store: s} }

// ServeHTTP routes one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case len(parts) == 1 && parts[0] == "metadata" && get:
		h.metadata(w, r)
		return
	case len(parts) == 1 && parts[0] == "" && get:
		params, err := parseQueryString(r.URL.RawQuery)
		if err != nil {
			storeError(w, err)
			return
		}
		h.search(w, r, "", params)
		return
	case len(parts) == 1 && parts[0] == "":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "GET, HEAD, POST")
			outcome(w, http.StatusMethodNotAllowed, "not-supported", r.Method+" is not supported on the base (GET searches every type, POST takes a transaction or batch Bundle)", "")
			return
		}
		h.bundle(w, r)
		return
	case len(parts) == 1 && parts[0] == "_search" && r.Method == http.MethodPost:
		if params, ok := h.form(w, r); ok {
			h.search(w, r, "", params)
		}
		return
	case !validType(parts[0]):
		outcome(w, http.StatusNotFound, "not-found", fmt.Sprintf("no resource type in %q", r.URL.Path), "")
		return
	}
	typ := parts[0]
	o := &op{method: r.Method, typ: typ, base: h.base(r)}
	switch {
	case len(parts) == 1 && get:
		params, err := parseQueryString(r.URL.RawQuery)
		if err != nil {
			storeError(w, err)
			return
		}
		h.search(w, r, typ, params)
		return
	case len(parts) == 1 && r.Method == http.MethodPost:
		if v := r.Header.Get("If-None-Exist"); v != "" {
			params, err := parseQueryString(v)
			if err != nil {
				storeError(w, err)
				return
			}
			o.ifNoneExist = params
		}
	case len(parts) == 1 && (r.Method == http.MethodPut || r.Method == http.MethodDelete) && r.URL.RawQuery != "":
		params, err := parseQueryString(r.URL.RawQuery)
		if err != nil {
			storeError(w, err)
			return
		}
		o.cond, o.query, o.url = true, params, typ+"?"+r.URL.RawQuery
	case len(parts) == 2 && parts[1] == "_search" && r.Method == http.MethodPost:
		if params, ok := h.form(w, r); ok {
			h.search(w, r, typ, params)
		}
		return
	case len(parts) == 2 && get:
		res, err := h.Store.Read(typ, parts[1])
		if err != nil {
			storeError(w, err)
			return
		}
		h.writeResource(w, r, http.StatusOK, res, false)
		return
	case len(parts) == 2 && (r.Method == http.MethodPut || r.Method == http.MethodDelete):
		o.id = parts[1]
		o.ifMatch = r.Header.Get("If-Match")
	case len(parts) == 3 && parts[2] == "_history" && get:
		h.history(w, r, typ, parts[1])
		return
	case len(parts) == 4 && parts[2] == "_history" && get:
		res, err := h.Store.VRead(typ, parts[1], parts[3])
		if err != nil {
			storeError(w, err)
			return
		}
		h.writeResource(w, r, http.StatusOK, res, false)
		return
	case len(parts) <= 4:
		w.Header().Set("Allow", "GET, HEAD, POST, PUT, DELETE")
		outcome(w, http.StatusMethodNotAllowed, "not-supported", r.Method+" is not supported on "+r.URL.Path, "")
		return
	default:
		outcome(w, http.StatusNotFound, "not-found", "no such endpoint: "+r.URL.Path, "")
		return
	}
	var body []byte
	if r.Method != http.MethodDelete {
		var ok bool
		if body, ok = h.body(w, r); !ok {
			return
		}
	}
	if err := h.Store.do(o, body); err != nil {
		storeError(w, err)
		return
	}
	if o.method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.writeResource(w, r, o.status, o.e.resource(), true)
}

// form reads the parameters of POST _search: the form body's and the
// query string's.
func (h *Handler) form(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	body, ok := h.body(w, r)
	if !ok {
		return nil, false
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		outcome(w, http.StatusBadRequest, "invalid", "the _search body is not a form: "+err.Error(), "")
		return nil, false
	}
	query, err := parseQueryString(r.URL.RawQuery)
	if err != nil {
		storeError(w, err)
		return nil, false
	}
	for k, vs := range query {
		form[k] = append(form[k], vs...)
	}
	return form, true
}

func (h *Handler) base(r *http.Request) string {
	if h.BaseURL != "" {
		return strings.TrimRight(h.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (h *Handler) body(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.MaxBodySize
	if limit <= 0 {
		limit = DefaultMaxBodySize
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			outcome(w, http.StatusRequestEntityTooLarge, "too-costly", fmt.Sprintf("the request body is over the %d-byte cap", limit), "")
			return nil, false
		}
		outcome(w, http.StatusBadRequest, "invalid", "reading the request body: "+err.Error(), "")
		return nil, false
	}
	return data, true
}

// render holds what rendering a Bundle needs of a request.
type render struct {
	base              string
	pageSize, maxPage int
	minimal           bool // Prefer: return=minimal
}

func (h *Handler) render(r *http.Request) render {
	rc := render{base: h.base(r), pageSize: h.DefaultPageSize, maxPage: h.MaxPageSize}
	if rc.pageSize <= 0 {
		rc.pageSize = DefaultPageSize
	}
	if rc.maxPage <= 0 {
		rc.maxPage = DefaultMaxPageSize
	}
	rc.minimal = strings.Contains(r.Header.Get("Prefer"), "return=minimal")
	return rc
}

// search runs a search of typ ("": a system search) and writes its page:
// the matches, and what they include, found under one read lock.
func (h *Handler) search(w http.ResponseWriter, r *http.Request, typ string, params url.Values) {
	rc := h.render(r)
	s := h.Store
	s.mu.RLock()
	var res searchResult
	var err error
	if typ == "" {
		res, err = s.searchSystem(params, rc.base)
	} else {
		res, err = s.searchLocked(typ, params, rc.base)
	}
	if err == nil {
		res.start, res.end, _ = rc.page(res.q, len(res.entries))
		res.included, err = s.include(res.q, res.entries[res.start:res.end], rc.base)
	}
	s.mu.RUnlock()
	if err != nil {
		storeError(w, err)
		return
	}
	var b bytes.Buffer
	rc.searchset(&b, typ, res, params)
	writeBundle(w, r, &b)
}

func writeBundle(w http.ResponseWriter, r *http.Request, b *bytes.Buffer) {
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// page works out a page of total entries: [start, end), its size, and
// the offset asked.
func (rc render) page(q *query, total int) (start, end, size int) {
	size = rc.pageSize
	if q.count >= 0 {
		size = q.count
	}
	size = min(size, rc.maxPage)
	start = min(q.offset, total)
	end = min(start+size, total)
	return start, end, size
}

// links writes the self and next links of a page of path?params.
func (rc render) links(b *bytes.Buffer, path string, params url.Values, q *query, end, size, total int) {
	link := func(offset int) string {
		v := url.Values{}
		for k, vs := range params {
			if k != "_offset" {
				v[k] = vs
			}
		}
		if offset > 0 {
			v.Set("_offset", strconv.Itoa(offset))
		}
		if v.Get("_count") == "" && offset > 0 {
			v.Set("_count", strconv.Itoa(size))
		}
		s := rc.base + "/" + path
		if len(v) > 0 {
			s += "?" + encodeParams(v)
		}
		return s
	}
	b.WriteString(`,"link":[{"relation":"self","url":` + quote(link(q.offset)) + `}`)
	if end < total && size > 0 {
		b.WriteString(`,{"relation":"next","url":` + quote(link(end)) + `}`)
	}
	b.WriteString(`]`)
}

// searchset writes the page [res.start, res.end) of a search of path (a
// type, or "" for the base) as a searchset Bundle: its matches (shaped by
// _summary or _elements), then what they include.
func (rc render) searchset(b *bytes.Buffer, path string, res searchResult, params url.Values) {
	total := len(res.entries)
	_, _, size := rc.page(res.q, total)
	end := res.end
	b.WriteString(`{"resourceType":"Bundle","type":"searchset"`)
	if params.Get("_total") != "none" {
		b.WriteString(`,"total":` + strconv.Itoa(total))
	}
	if res.q.summary == "count" {
		end = total // no entries, no next page
	}
	rc.links(b, path, params, res.q, end, size, total)
	entries := entryList{b: b}
	entry := func(e *entry, raw, mode string) {
		entries.next()
		b.WriteString(`{"fullUrl":` + quote(rc.base+"/"+e.typ+"/"+e.id) + `,"resource":`)
		b.WriteString(raw)
		b.WriteString(`,"search":{"mode":"` + mode + `"}}`)
	}
	if res.q.summary != "count" {
		for _, e := range res.entries[res.start:res.end] {
			entry(e, res.q.shape(e), "match")
		}
		for _, e := range res.included {
			entry(e, e.raw, "include")
		}
	}
	entries.close()
	b.WriteByte('}')
}

// entryList writes a Bundle's "entry" array one entry at a time, and
// leaves it out when there is none: FHIR's JSON has no empty arrays.
type entryList struct {
	b interface {
		io.ByteWriter
		io.StringWriter
	}
	n int
}

// next opens the array, or separates the entry about to be written from
// the one before.
func (l *entryList) next() {
	if l.n == 0 {
		l.b.WriteString(`,"entry":[`)
	} else {
		l.b.WriteByte(',')
	}
	l.n++
}

// close ends the array if next opened it.
func (l *entryList) close() {
	if l.n > 0 {
		l.b.WriteByte(']')
	}
}

// historyQuery reads the parameters of a history: _count and _offset page
// it (newest first); any other is a SearchError.
func historyQuery(params url.Values) (*query, error) {
	q := &query{count: -1}
	for name, values := range params {
		switch name {
		case "_count", "_offset", "_format":
			if err := q.control("", name, values); err != nil {
				return nil, err
			}
		default:
			return nil, &SearchError{Param: name, Err: fmt.Errorf("%w: a history takes _count and _offset only", ErrUnknownParameter)}
		}
	}
	return q, nil
}

// historyBundle writes the versions of typ/id (newest first; firstKept
// says the oldest is the resource's first version) as a history Bundle.
func (rc render) historyBundle(b *bytes.Buffer, typ, id string, versions []*entry, firstKept bool, params url.Values, q *query) {
	total := len(versions)
	start, end, size := rc.page(q, total)
	b.WriteString(`{"resourceType":"Bundle","type":"history","total":` + strconv.Itoa(total))
	rc.links(b, typ+"/"+id+"/_history", params, q, end, size, total)
	entries := entryList{b: b}
	for i, e := range versions[start:end] {
		entries.next()
		method, status := "PUT", http.StatusOK
		switch {
		case e.deleted:
			method, status = "DELETE", http.StatusNoContent
		case firstKept && start+i == total-1:
			method, status = "POST", http.StatusCreated
		}
		b.WriteString(`{"fullUrl":` + quote(rc.base+"/"+typ+"/"+id))
		if !e.deleted {
			b.WriteString(`,"resource":` + e.raw)
		}
		url := typ
		if method != "POST" {
			url += "/" + id
		}
		b.WriteString(`,"request":{"method":"` + method + `","url":` + quote(url) + `}`)
		b.WriteString(`,"response":{"status":` + quote(statusLine(status)) + `,"etag":` + quote(`W/"`+e.version+`"`) + `,"lastModified":` + quote(stamp(e.lastUpdated)) + `}}`)
	}
	entries.close()
	b.WriteByte('}')
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request, typ, id string) {
	params := r.URL.Query()
	q, err := historyQuery(params)
	if err != nil {
		storeError(w, err)
		return
	}
	s := h.Store
	s.mu.RLock()
	versions, firstKept, err := s.historyLocked(typ, id)
	s.mu.RUnlock()
	if err != nil {
		storeError(w, err)
		return
	}
	var b bytes.Buffer
	h.render(r).historyBundle(&b, typ, id, versions, firstKept, params, q)
	writeBundle(w, r, &b)
}

// bundle processes a transaction or batch Bundle.
func (h *Handler) bundle(w http.ResponseWriter, r *http.Request) {
	body, ok := h.body(w, r)
	if !ok {
		return
	}
	doc, err := parseDoc("", body, true)
	if err != nil {
		storeError(w, err)
		return
	}
	res, err := h.Store.processBundle("", body, doc, false, h.base(r))
	if err != nil {
		storeError(w, err)
		return
	}
	var b bytes.Buffer
	h.render(r).response(&b, res)
	writeBundle(w, r, &b)
}

// Transact processes a Bundle of type transaction or batch as POST [base]
// does (R4 http.html#transaction) and returns the response Bundle
// (transaction-response or batch-response); baseURL prefixes the fullUrl
// and links of what it holds. A transaction that fails changes nothing
// and returns a BundleError (or a BoundError); a Bundle that cannot be
// read is a LoadError.
func (s *Store) Transact(bundle []byte, baseURL string) ([]byte, error) {
	doc, err := parseDoc("", bundle, true)
	if err != nil {
		return nil, err
	}
	res, err := s.processBundle("", bundle, doc, false, strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	render{base: strings.TrimRight(baseURL, "/"), pageSize: DefaultPageSize, maxPage: DefaultMaxPageSize}.response(&b, res)
	return b.Bytes(), nil
}

// response writes the transaction-response or batch-response of b.
func (rc render) response(b *bytes.Buffer, res *bundle) {
	kind := "batch-response"
	if res.tx {
		kind = "transaction-response"
	}
	b.WriteString(`{"resourceType":"Bundle","type":"` + kind + `"`)
	entries := entryList{b: b}
	for _, o := range res.ops {
		entries.next()
		rc.entry(b, o)
	}
	entries.close()
	b.WriteByte('}')
}

// entry writes one entry of a response Bundle.
func (rc render) entry(b *bytes.Buffer, o *op) {
	if o.err != nil {
		status, code := errorStatus(o.err)
		b.WriteString(`{"response":{"status":` + quote(statusLine(status)) + `,"outcome":`)
		b.WriteString(outcomeJSON(code, o.err.Error(), fmt.Sprintf("Bundle.entry[%d]", o.index)))
		b.WriteString(`}}`)
		return
	}
	b.WriteByte('{')
	switch {
	case o.search != nil:
		b.WriteString(`"resource":`)
		rc.searchset(b, o.typ, *o.search, o.query)
		b.WriteByte(',')
	case o.history:
		q, _ := historyQuery(o.query)
		if q == nil {
			q = &query{count: -1}
		}
		b.WriteString(`"resource":`)
		rc.historyBundle(b, o.typ, o.id, o.versions, o.firstKept, o.query, q)
		b.WriteByte(',')
	case o.e != nil:
		b.WriteString(`"fullUrl":` + quote(rc.base+"/"+o.typ+"/"+o.e.id) + `,`)
		if !rc.minimal && o.method != http.MethodHead {
			b.WriteString(`"resource":` + o.e.raw + `,`)
		}
	}
	b.WriteString(`"response":{"status":` + quote(statusLine(o.status)))
	if e := o.e; e != nil {
		if o.method == "POST" || o.method == "PUT" {
			b.WriteString(`,"location":` + quote(e.typ+"/"+e.id+"/_history/"+e.version))
		}
		b.WriteString(`,"etag":` + quote(`W/"`+e.version+`"`) + `,"lastModified":` + quote(stamp(e.lastUpdated)))
	}
	b.WriteString(`}}`)
}

// statusLine is a response.status: the code and its reason.
func statusLine(status int) string { return strconv.Itoa(status) + " " + http.StatusText(status) }

// stamp formats microseconds since 1970 as an instant.
func stamp(micro int64) string {
	return time.UnixMicro(micro).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

func quote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func (h *Handler) writeResource(w http.ResponseWriter, r *http.Request, status int, res Resource, location bool) {
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	w.Header().Set("ETag", `W/"`+res.Version+`"`)
	if lu := gjson.GetBytes(res.JSON, "meta.lastUpdated").Str; lu != "" {
		if t, err := time.Parse(time.RFC3339Nano, lu); err == nil {
			w.Header().Set("Last-Modified", t.UTC().Format(http.TimeFormat))
		}
	}
	if location {
		w.Header().Set("Location", h.base(r)+"/"+res.Type+"/"+res.ID+"/_history/"+res.Version)
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead && !(location && h.render(r).minimal) {
		w.Write(res.JSON)
	}
}

func (h *Handler) metadata(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	if r.Method != http.MethodHead {
		w.Write(capabilities())
	}
}

// capabilities is the CapabilityStatement: every R4 type, with the
// parameters the store searches it by (the same for every store, so
// written once).
var capabilities = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"CapabilityStatement","status":"active","kind":"instance","fhirVersion":"4.0.1","format":["json"],"rest":[{"mode":"server","interaction":[{"code":"transaction"},{"code":"batch"},{"code":"search-system"}],"resource":[`)
	for i, t := range r4Types {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":` + quote(t) + `,"interaction":[{"code":"read"},{"code":"vread"},{"code":"create"},{"code":"update"},{"code":"delete"},{"code":"history-instance"},{"code":"search-type"}],"versioning":"versioned-update","conditionalCreate":true,"conditionalUpdate":true,"conditionalDelete":"single","searchInclude":["*"],"searchRevInclude":["*"],"searchParam":[`)
		n := 0
		for _, base := range []string{"Resource", t} {
			j, _ := paramIndex(base, "")
			for ; j < len(r4Params) && r4Params[j].Base == base; j++ {
				if paramAt(j).err != nil {
					continue
				}
				if n > 0 {
					b.WriteByte(',')
				}
				n++
				b.WriteString(`{"name":` + quote(r4Params[j].Code) + `,"type":` + quote(r4Params[j].Type) + `}`)
			}
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
})

// outcomeJSON is an OperationOutcome with one error issue; expression,
// when set, locates it (Bundle.entry[3]).
func outcomeJSON(code, diagnostics, expression string) string {
	s := `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":` + quote(code) + `,"diagnostics":` + quote(diagnostics)
	if expression != "" {
		s += `,"expression":[` + quote(expression) + `]`
	}
	return s + `}]}`
}

// outcome writes an OperationOutcome with one error issue.
func outcome(w http.ResponseWriter, status int, code, diagnostics, expression string) {
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, outcomeJSON(code, diagnostics, expression))
}

// errorStatus is the HTTP status and OperationOutcome issue code of a
// store's error.
func errorStatus(err error) (int, string) {
	var se *SearchError
	var le *LoadError
	var be *BoundError
	switch {
	case errors.As(err, &be):
		return http.StatusInsufficientStorage, "too-costly"
	case errors.Is(err, errMultipleMatches):
		return http.StatusPreconditionFailed, "multiple-matches"
	case errors.Is(err, ErrPreconditionFailed):
		return http.StatusPreconditionFailed, "conflict"
	case errors.Is(err, errNotSupported):
		return http.StatusMethodNotAllowed, "not-supported"
	case errors.As(err, &se) && errors.Is(err, ErrUnknownParameter):
		return http.StatusBadRequest, "not-supported"
	case errors.As(err, &se), errors.As(err, &le):
		return http.StatusBadRequest, "invalid"
	case errors.Is(err, ErrGone):
		return http.StatusGone, "deleted"
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, "not-found"
	}
	return http.StatusInternalServerError, "exception"
}

func storeError(w http.ResponseWriter, err error) {
	status, code := errorStatus(err)
	expression := ""
	var be *BundleError
	if errors.As(err, &be) {
		expression = fmt.Sprintf("Bundle.entry[%d]", be.Entry)
	}
	outcome(w, status, code, err.Error(), expression)
}
