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
	"time"

	"github.com/tidwall/gjson"
)

// Handler defaults.
const (
	// DefaultPageSize is a searchset page's size when _count is absent.
	DefaultPageSize = 50
	// DefaultMaxPageSize caps _count.
	DefaultMaxPageSize = 1000
	// DefaultMaxBodySize caps a request body (create, update, _search).
	DefaultMaxBodySize = 8 << 20
)

// Handler serves a Store as a FHIR R4 server (JSON only):
//
//	GET  /metadata                         a CapabilityStatement
//	GET  /{type}?{params}                  search (POST /{type}/_search with a form body too)
//	GET  /{type}/{id}                      read
//	GET  /{type}/{id}/_history/{vid}       vread
//	POST /{type}                           create
//	PUT  /{type}/{id}                      update (or create with that id)
//	DELETE /{type}/{id}                    delete
//
// Searches answer a searchset Bundle with total, a self link naming every
// parameter and a next link while pages remain; errors are
// OperationOutcomes (an unknown parameter is a 400: the store is always
// strict). Mount it under a prefix with http.StripPrefix and set BaseURL.
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
	if len(parts) == 1 && parts[0] == "metadata" {
		h.metadata(w, r)
		return
	}
	if parts[0] == "" || !validType(parts[0]) {
		outcome(w, http.StatusNotFound, "not-found", fmt.Sprintf("no resource type in %q", r.URL.Path))
		return
	}
	typ := parts[0]
	switch {
	case len(parts) == 1 && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		h.search(w, r, typ, r.URL.Query(), r.URL.RawQuery)
	case len(parts) == 1 && r.Method == http.MethodPost:
		body, ok := h.body(w, r)
		if !ok {
			return
		}
		res, err := h.Store.Create(typ, body)
		if err != nil {
			storeError(w, err)
			return
		}
		h.writeResource(w, r, http.StatusCreated, res, true)
	case len(parts) == 2 && parts[1] == "_search" && r.Method == http.MethodPost:
		body, ok := h.body(w, r)
		if !ok {
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			outcome(w, http.StatusBadRequest, "invalid", "the _search body is not a form: "+err.Error())
			return
		}
		for k, vs := range r.URL.Query() {
			form[k] = append(form[k], vs...)
		}
		h.search(w, r, typ, form, "")
	case len(parts) == 2 && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		res, err := h.Store.Read(typ, parts[1])
		if err != nil {
			storeError(w, err)
			return
		}
		h.writeResource(w, r, http.StatusOK, res, false)
	case len(parts) == 2 && r.Method == http.MethodPut:
		body, ok := h.body(w, r)
		if !ok {
			return
		}
		res, created, err := h.Store.Update(typ, parts[1], body)
		if err != nil {
			storeError(w, err)
			return
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		h.writeResource(w, r, status, res, created)
	case len(parts) == 2 && r.Method == http.MethodDelete:
		if err := h.Store.Delete(typ, parts[1]); err != nil {
			storeError(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case len(parts) == 4 && parts[2] == "_history" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		res, err := h.Store.VRead(typ, parts[1], parts[3])
		if err != nil {
			storeError(w, err)
			return
		}
		h.writeResource(w, r, http.StatusOK, res, false)
	case len(parts) <= 4:
		w.Header().Set("Allow", "GET, HEAD, POST, PUT, DELETE")
		outcome(w, http.StatusMethodNotAllowed, "not-supported", r.Method+" is not supported on "+r.URL.Path)
	default:
		outcome(w, http.StatusNotFound, "not-found", "no such endpoint: "+r.URL.Path)
	}
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
			outcome(w, http.StatusRequestEntityTooLarge, "too-costly", fmt.Sprintf("the request body is over the %d-byte cap", limit))
			return nil, false
		}
		outcome(w, http.StatusBadRequest, "invalid", "reading the request body: "+err.Error())
		return nil, false
	}
	return data, true
}

func (h *Handler) search(w http.ResponseWriter, r *http.Request, typ string, params url.Values, rawQuery string) {
	if strings.Contains(rawQuery, "+") {
		// A raw + in a query decodes to a space, which is never what a
		// client meant in a FHIR search (a zone offset +01:00 sent
		// unencoded): say so instead of searching for a space.
		for _, vs := range params {
			for _, v := range vs {
				if strings.Contains(v, " ") {
					outcome(w, http.StatusBadRequest, "invalid", "the query holds a raw '+', which decodes to a space; encode it as %2B")
					return
				}
			}
		}
	}
	res, err := h.Store.search(typ, params)
	if err != nil {
		storeError(w, err)
		return
	}
	q := res.q
	size := h.DefaultPageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	maxSize := h.MaxPageSize
	if maxSize <= 0 {
		maxSize = DefaultMaxPageSize
	}
	if q.count >= 0 {
		size = q.count
	}
	size = min(size, maxSize)
	total := len(res.entries)
	start := min(q.offset, total)
	end := min(start+size, total)
	base := h.base(r)
	self := url.Values{}
	for k, vs := range params {
		if k != "_offset" {
			self[k] = vs
		}
	}
	link := func(offset int) string {
		v := url.Values{}
		for k, vs := range self {
			v[k] = vs
		}
		if offset > 0 {
			v.Set("_offset", strconv.Itoa(offset))
		}
		if v.Get("_count") == "" && offset > 0 {
			v.Set("_count", strconv.Itoa(size))
		}
		s := base + "/" + typ
		if len(v) > 0 {
			s += "?" + v.Encode()
		}
		return s
	}
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"Bundle","type":"searchset"`)
	if params.Get("_total") != "none" {
		b.WriteString(`,"total":` + strconv.Itoa(total))
	}
	b.WriteString(`,"link":[{"relation":"self","url":` + quote(link(q.offset)) + `}`)
	if end < total && size > 0 {
		b.WriteString(`,{"relation":"next","url":` + quote(link(end)) + `}`)
	}
	b.WriteString(`],"entry":[`)
	for i, e := range res.entries[start:end] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"fullUrl":` + quote(base+"/"+e.typ+"/"+e.id) + `,"resource":`)
		b.WriteString(e.raw)
		b.WriteString(`,"search":{"mode":"match"}}`)
	}
	b.WriteString(`]}`)
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
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
	if r.Method != http.MethodHead {
		w.Write(res.JSON)
	}
}

func (h *Handler) metadata(w http.ResponseWriter, r *http.Request) {
	types := map[string]bool{}
	for _, d := range r4Params {
		if d.Base != "Resource" {
			types[d.Base] = true
		}
	}
	var list []string
	for t := range types {
		list = append(list, t)
	}
	sortStrings(list)
	var b bytes.Buffer
	b.WriteString(`{"resourceType":"CapabilityStatement","status":"active","kind":"instance","fhirVersion":"4.0.1","format":["json"],"rest":[{"mode":"server","resource":[`)
	for i, t := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":` + quote(t) + `,"interaction":[{"code":"read"},{"code":"vread"},{"code":"create"},{"code":"update"},{"code":"delete"},{"code":"search-type"}],"searchParam":[`)
		n := 0
		for _, d := range r4Params {
			if d.Base != t {
				continue
			}
			if p := lookupParam(t, d.Code); p == nil || p.err != nil {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(`{"name":` + quote(d.Code) + `,"type":` + quote(d.Type) + `}`)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}]}`)
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// outcome writes an OperationOutcome with one error issue.
func outcome(w http.ResponseWriter, status int, code, diagnostics string) {
	w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":%s,"diagnostics":%s}]}`, quote(code), quote(diagnostics))
}

func storeError(w http.ResponseWriter, err error) {
	var se *SearchError
	var le *LoadError
	switch {
	case errors.As(err, &se) && errors.Is(err, ErrUnknownParameter):
		outcome(w, http.StatusBadRequest, "not-supported", err.Error())
	case errors.As(err, &se), errors.As(err, &le):
		outcome(w, http.StatusBadRequest, "invalid", err.Error())
	case errors.Is(err, ErrGone):
		outcome(w, http.StatusGone, "deleted", err.Error())
	case errors.Is(err, ErrNotFound):
		outcome(w, http.StatusNotFound, "not-found", err.Error())
	default:
		outcome(w, http.StatusInternalServerError, "exception", err.Error())
	}
}
