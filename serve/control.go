package serve

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
)

// DefaultMaxConns caps the HTTP connections the sandbox holds at once;
// past it new connections wait (section 12 rule 20).
const DefaultMaxConns = 1024

// ServeHTTP routes every request of the sandbox: the control plane under
// /runs, each run's simulators under /runs/ID/..., and the hosted
// platform's aliases under /v1/benchmark-runs/ID/... and /sandboxes/ID/....
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("X-Assay-Sandbox", "1")
	defer func() {
		// A panic in a simulator must not end the server or leak a stack
		// to the client: answer 500 and log it.
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logf("internal error serving %s %s: %v", req.Method, req.URL.Path, p)
			sim.WriteJSONError(w, http.StatusInternalServerError, "INTERNAL", "internal error", nil)
		}
	}()
	first, rest := cut(strings.TrimPrefix(req.URL.Path, "/"))
	switch first {
	case "runs":
		if rest == "" {
			s.serveRuns(w, req)
			return
		}
		id, below := cut(rest)
		s.serveRun(w, req, id, below)
	case "v1":
		if sub, rest := cut(rest); sub == "benchmark-runs" {
			id, below := cut(rest)
			s.serveAlias(w, req, id, below, hostedMounts)
			return
		}
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+req.URL.Path, nil)
	case "sandboxes":
		id, below := cut(rest)
		s.serveAlias(w, req, id, below, sandboxMounts)
	default:
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+req.URL.Path, nil)
	}
}

// cut splits a slash path at its first slash.
func cut(p string) (first, rest string) {
	first, rest, _ = strings.Cut(p, "/")
	return first, rest
}

// The hosted platform's run-scoped paths that are served, by their first
// segment.
var (
	hostedMounts  = map[string]bool{"fhir": true, "hl7": true, "files": true, "portal": true}
	sandboxMounts = map[string]bool{"clearinghouse": true}
)

// serveAlias serves a hosted-platform path as its BASE counterpart.
func (s *Server) serveAlias(w http.ResponseWriter, req *http.Request, id, below string, mounts map[string]bool) {
	if mount, _ := cut(below); id == "" || !mounts[mount] {
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+req.URL.Path, nil)
		return
	}
	if below == "files/inbox" && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		// The hosted inbox listing: the files listing with prefix inbox/.
		q := req.URL.Query()
		q.Set("prefix", "inbox/")
		req.URL.RawQuery = q.Encode()
		below = "files"
	}
	s.serveRun(w, req, id, below)
}

// caller says who a request authenticates as.
type caller int

const (
	nobody caller = iota
	runToken
	operator
)

func bearer(req *http.Request) string {
	h := req.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// who authenticates req for run r (nil: the control plane).
func (s *Server) who(req *http.Request, r *Run) caller {
	t := bearer(req)
	switch {
	case t == "":
		return nobody
	case equal(t, s.opts.Token):
		return operator
	case r != nil && equal(t, r.token):
		return runToken
	}
	return nobody
}

func unauthorized(w http.ResponseWriter, need string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="assay serve"`)
	sim.WriteJSONError(w, http.StatusUnauthorized, "UNAUTHORIZED", "this call needs Authorization: Bearer with "+need, nil)
}

func methodNotAllowed(w http.ResponseWriter, req *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	sim.WriteJSONError(w, http.StatusMethodNotAllowed, "VALIDATION_ERROR", req.Method+" is not allowed on "+req.URL.Path, nil)
}

// serveRuns serves /runs: the list and run creation (operator only).
func (s *Server) serveRuns(w http.ResponseWriter, req *http.Request) {
	if s.who(req, nil) != operator {
		unauthorized(w, "the operator token")
		return
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		list := []runObject{}
		for _, r := range s.Runs() {
			list = append(list, r.object())
		}
		sim.WriteJSON(w, http.StatusOK, map[string]any{"data": list})
	case http.MethodPost:
		var body struct {
			ID     *string `json:"id"`
			Entity *string `json:"entity"`
			Clock  *string `json:"clock"`
		}
		if !decodeBody(w, req, &body) {
			return
		}
		o := RunOptions{}
		if body.ID != nil {
			o.ID = *body.ID
			if o.ID == "" {
				sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "id must match [A-Za-z0-9_-]{1,64}", fieldDetail("id", "empty"))
				return
			}
		}
		if body.Entity != nil {
			o.Entity = *body.Entity
		}
		if body.Clock != nil {
			t, err := time.Parse(time.RFC3339Nano, *body.Clock)
			if err != nil {
				sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "clock must be an RFC 3339 time", fieldDetail("clock", err.Error()))
				return
			}
			o.Clock = t
		}
		r, err := s.NewRun(req.Context(), o)
		if err != nil {
			writeRunError(w, err)
			return
		}
		sim.WriteJSON(w, http.StatusCreated, r.object())
	default:
		methodNotAllowed(w, req, "GET, POST")
	}
}

func fieldDetail(field, problem string) []map[string]string {
	return []map[string]string{{"field": field, "message": problem}}
}

func writeRunError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, ErrInvalidRun):
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error(), nil)
	case errors.Is(err, ErrRunExists):
		sim.WriteJSONError(w, http.StatusConflict, "CONFLICT", err.Error(), nil)
	case errors.Is(err, ErrTooManyRuns):
		sim.WriteJSONError(w, http.StatusTooManyRequests, "RATE_LIMITED", err.Error(), nil)
	case errors.Is(err, fs.ErrNotExist):
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", err.Error(), nil)
	case errors.Is(err, ErrClosed):
		sim.WriteJSONError(w, http.StatusServiceUnavailable, "UNAVAILABLE", err.Error(), nil)
	default:
		sim.WriteJSONError(w, http.StatusInternalServerError, "INTERNAL", err.Error(), nil)
	}
}

// decodeBody reads a JSON object body strictly (unknown keys are 400); an
// empty body is an empty object.
func decodeBody(w http.ResponseWriter, req *http.Request, v any) bool {
	data, err := sim.ReadBody(w, req, 1<<20)
	if err != nil {
		if errors.Is(err, sim.ErrTooLarge) {
			sim.WriteJSONError(w, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", err.Error(), nil)
		} else {
			sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error(), nil)
		}
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "the body is not the expected JSON object: "+err.Error(), nil)
		return false
	}
	if dec.More() {
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "the body holds more than one JSON value", nil)
		return false
	}
	return true
}

// serveRun serves /runs/ID and everything below it (rest).
func (s *Server) serveRun(w http.ResponseWriter, req *http.Request, id, rest string) {
	r := s.Run(id)
	who := s.who(req, r)
	if r == nil {
		if who != operator {
			// Do not tell a caller without the operator token which ids
			// exist.
			unauthorized(w, "the operator token or the run's token")
			return
		}
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no run "+strconv.Quote(id), nil)
		return
	}
	mount, _ := cut(rest)
	switch {
	case rest == "":
		switch req.Method {
		case http.MethodGet, http.MethodHead:
			if who == nobody {
				r.refused(w, req, rest, "the operator token or the run's token")
				return
			}
			sim.WriteJSON(w, http.StatusOK, r.object())
		case http.MethodDelete:
			if who != operator {
				r.refused(w, req, rest, "the operator token")
				return
			}
			if err := s.DeleteRun(id); err != nil {
				writeRunError(w, err)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			methodNotAllowed(w, req, "GET, DELETE")
		}
	case rest == "complete":
		if req.Method != http.MethodPost {
			methodNotAllowed(w, req, "POST")
			return
		}
		if who == nobody {
			r.refused(w, req, rest, "the operator token or the run's token")
			return
		}
		s.serveComplete(w, req, r, who)
	case rest == "events":
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			methodNotAllowed(w, req, "GET")
			return
		}
		if who == nobody {
			r.refused(w, req, rest, "the operator token or the run's token")
			return
		}
		s.serveEvents(w, req, r)
	case rest == "clock":
		if req.Method != http.MethodPost {
			methodNotAllowed(w, req, "POST")
			return
		}
		if who != operator {
			r.refused(w, req, rest, "the operator token")
			return
		}
		s.serveClock(w, req, r)
	default:
		s.serveSimulator(w, req, r, who, mount, rest)
	}
}

// serveSimulator admits a request to one of the run's simulators.
func (s *Server) serveSimulator(w http.ResponseWriter, req *http.Request, r *Run, who caller, mount, rest string) {
	rs := r.mounts[mount]
	public := false
	if p, ok := rs.(sim.Public); ok && p.Public("/"+rest) {
		public = true
	}
	if who == nobody && !public {
		r.refused(w, req, rest, "the run's token")
		return
	}
	if !r.enter() {
		sim.WriteJSONError(w, http.StatusConflict, "CONFLICT", "run "+r.id+" is completed: its endpoints are closed", nil)
		return
	}
	defer r.leave()
	req.URL.Path = "/" + rest
	req.URL.RawPath = ""
	r.serveSim(w, req, mount)
}

func (s *Server) serveEvents(w http.ResponseWriter, req *http.Request, r *Run) {
	q := req.URL.Query()
	after, limit := int64(0), 100
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "after must be a sequence number (an integer >= 0)", fieldDetail("after", v))
			return
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "limit must be an integer from 1 to 1000", fieldDetail("limit", v))
			return
		}
		limit = n
	}
	events, last := r.events.page(after, limit)
	var b bytes.Buffer
	b.WriteString(`{"data":[`)
	for i, e := range events {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteString(`],"next":`)
	if more, _ := r.events.page(last, 1); last > 0 && len(more) > 0 {
		b.WriteString(strconv.FormatInt(last, 10))
	} else {
		b.WriteString("null")
	}
	b.WriteString("}\n")
	w.Header().Set("Content-Type", "application/json")
	w.Write(b.Bytes())
}

func (s *Server) serveClock(w http.ResponseWriter, req *http.Request, r *Run) {
	var body struct {
		Advance *string `json:"advance"`
		Set     *string `json:"set"`
	}
	if !decodeBody(w, req, &body) {
		return
	}
	if (body.Advance == nil) == (body.Set == nil) {
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", `give exactly one of "advance" (a duration such as "48h") and "set" (an RFC 3339 time)`, nil)
		return
	}
	if r.Status() != StatusActive {
		sim.WriteJSONError(w, http.StatusConflict, "CONFLICT", "run "+r.id+" is completed: its clock stands", nil)
		return
	}
	var now time.Time
	var err error
	if body.Advance != nil {
		d, perr := time.ParseDuration(*body.Advance)
		if perr != nil {
			sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "advance must be a duration such as \"48h\" or \"90m\"", fieldDetail("advance", perr.Error()))
			return
		}
		now, err = r.clock.Advance(d)
	} else {
		t, perr := time.Parse(time.RFC3339Nano, *body.Set)
		if perr != nil {
			sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", "set must be an RFC 3339 time", fieldDetail("set", perr.Error()))
			return
		}
		now, err = r.clock.Set(t)
	}
	if err != nil {
		sim.WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error(), nil)
		return
	}
	r.emit(sim.Event{Sim: "run", Type: "clock", Fields: clockEvent{Now: stamp(now)}})
	sim.WriteJSON(w, http.StatusOK, map[string]string{"now": now.Format(time.RFC3339Nano)})
}

func (s *Server) serveComplete(w http.ResponseWriter, req *http.Request, r *Run, who caller) {
	var body struct {
		Scored *bool `json:"scored"`
	}
	if !decodeBody(w, req, &body) {
		return
	}
	// A run's own token always gets the scored form: an agent that
	// completes its own run learns nothing of the rubric.
	scored := who == runToken || (body.Scored != nil && *body.Scored)
	path, err := s.complete(req.Context(), r)
	if err != nil {
		sim.WriteJSONError(w, http.StatusInternalServerError, "INTERNAL", fmt.Sprintf("completing run %s: %v", r.id, err), nil)
		return
	}
	out := map[string]any{"id": r.id, "status": StatusCompleted, "snapshot": path}
	r.mu.Lock()
	result, resultErr := r.result, r.resultErr
	r.mu.Unlock()
	switch {
	case resultErr != nil:
		out["result_error"] = resultErr.Error()
	case result != nil && scored:
		out["result"] = map[string]any{"score": result.Score, "verdict": result.Verdict}
	case result != nil:
		out["result"] = result
	}
	sim.WriteJSON(w, http.StatusOK, out)
}
