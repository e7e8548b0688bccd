package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/payer"
)

// MaxBody caps every request body the sandbox reads (13.11): a larger one
// is answered 413 (or the protocol's own refusal).
const MaxBody = 16 << 20

// Run is what a simulator sees of the run it serves. Its methods are safe
// for concurrent use.
type Run interface {
	// ID is the run's id.
	ID() string
	// Now reads the run's clock (UTC).
	Now() time.Time
	// Started is the run's clock when the run was created: transcript
	// times count from it.
	Started() time.Time
	// Advance moves the run's clock forward by d (hold music, say); it
	// is recorded as a clock event. d <= 0 does nothing.
	Advance(d time.Duration)
	// Next returns the next value of the run's counter name, from 1:
	// minted ids and control numbers come from counters, so two runs given
	// the same requests in the same order mint the same ids.
	Next(name string) int64
	// Emit appends an event to the run's log, stamped with the next seq
	// and the run's clock.
	Emit(e Event)
	// Reserve takes n bytes from the sandbox's memory budget
	// (--max-memory) for this run; ErrMemory when the budget is spent, in
	// which case the write must be refused with the protocol's refusal.
	// Release gives bytes back (a file overwritten or removed).
	Reserve(n int64) error
	Release(n int64)
	// BaseURL is the run's public base, URL/runs/ID, without a trailing
	// slash.
	BaseURL() string
	// ListenHost is the host the sandbox listens on, for a simulator's
	// own listener (a run's MLLP port).
	ListenHost() string
	// Credentials returns the login a simulator checks: "sftp" or
	// "portal".
	Credentials(name string) (user, password string)
	// Logf writes a line to the sandbox's log (stderr of assay serve).
	Logf(format string, args ...any)
	// Touch marks the run as in use, for --ttl: the frame counts HTTP
	// requests itself; a simulator with a listener of its own (MLLP, SSH)
	// calls Touch for each request it serves there.
	Touch()
	// Payer is the run's ledger at the payer: the one truth the
	// clearinghouse, the portal and the phone line share. It is nil when
	// the seed has no payer/policy.json (those simulators then answer 503
	// naming the file).
	Payer() *payer.Ledger
}

// ErrMemory is returned by Run.Reserve when the sandbox's memory budget
// (--max-memory, all runs together) is spent.
var ErrMemory = errors.New("the sandbox's memory budget (--max-memory) is spent: complete runs to free it")

// Event is one entry of a run's event log (section 13.10). The frame adds
// seq and time; Fields marshals to a JSON object whose members follow sim
// and type (a struct keeps them in order).
type Event struct {
	Sim, Type string
	Fields    any
}

// Sim is one simulator, built once from the seed.
type Sim interface {
	// NewRun returns the simulator's part of a new run, starting from the
	// seed: it must not re-read or re-parse the seed, and must share what
	// it can with other runs (copy on write).
	NewRun(r Run) (RunSim, error)
}

// RunSim is a simulator's part of one run.
type RunSim interface {
	// Mounts lists the first path segments under the run's base that
	// this simulator serves ("fhir", "hl7", ...).
	Mounts() []string
	// ServeHTTP serves a request under one of Mounts. The frame has
	// checked that the run is active and, except where Public says
	// otherwise, that the caller holds the run's token; r.URL.Path is the
	// path below the run's base, starting with "/" and the mount.
	http.Handler
	// Endpoints adds this simulator's entries to the run object's
	// endpoints, given the run's base URL.
	Endpoints(base string, into map[string]string)
	// Attach attaches the run's live evidence to env.
	Attach(env *assert.Env)
	// Stop is called once when complete begins, after the last HTTP
	// request of the run has finished: the simulator stops its own
	// listeners and sessions and waits for what they acknowledged.
	Stop()
	// Snapshot writes the simulator's part of the snapshot.
	Snapshot(dir Dir) error
}

// Public is implemented by a RunSim that serves some paths without the run's
// token (the portal's web pages, behind a cookie of their own).
type Public interface {
	Public(path string) bool
}

// Listener is implemented by a Sim that runs a listener of its own for all
// runs (one SSH listener routing by user to the run's tree). The frame
// starts it with the sandbox and closes it last.
type Listener interface {
	Listen(ctx context.Context, addr string) (boundAddr string, err error)
	Close() error
}

// Dir is the snapshot folder being written: names are slash paths
// relative to the snapshot's root (sandbox/), and every file written is
// hashed into manifest.json.
type Dir interface {
	WriteFile(name string, data []byte) error
	MkdirAll(name string) error
}

// WriteJSONError writes the control plane's error body, {"error": {"code",
// "message", "details"?}}, with the codes of the criteria API
// (VALIDATION_ERROR, UNAUTHORIZED, NOT_FOUND, CONFLICT, RATE_LIMITED,
// PAYLOAD_TOO_LARGE, INTERNAL).
func WriteJSONError(w http.ResponseWriter, status int, code, message string, details any) {
	body := map[string]any{"code": code, "message": message}
	if details != nil {
		body["details"] = details
	}
	WriteJSON(w, status, map[string]any{"error": body})
}

// WriteJSON writes v as the JSON body of a response with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":{"code":"INTERNAL","message":"encoding the response failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// ErrTooLarge is wrapped by ReadBody's error for a body over its cap.
var ErrTooLarge = errors.New("request body too large")

// ReadBody reads r's body, at most limit bytes (<= 0: MaxBody). A larger
// body is an error wrapping ErrTooLarge that names the cap.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = MaxBody
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fmt.Errorf("the body is over the %d-byte cap: %w", limit, ErrTooLarge)
		}
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	return data, nil
}

// Digest stands in for a body too large to copy into an event: events
// never copy more than 4 KiB of a body (13.10).
type Digest struct {
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// MaxEventBody is the most of a body an event copies.
const MaxEventBody = 4 << 10

// ReadRequestBody reads r's body as ReadBody does; when that fails it
// answers the request itself (413 PAYLOAD_TOO_LARGE for a body over limit,
// 400 VALIDATION_ERROR otherwise) and returns false.
func ReadRequestBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	data, err := ReadBody(w, r, limit)
	switch {
	case errors.Is(err, ErrTooLarge):
		WriteJSONError(w, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", err.Error(), nil)
	case err != nil:
		WriteJSONError(w, http.StatusBadRequest, "VALIDATION_ERROR", err.Error(), nil)
	}
	return data, err == nil
}

// MethodNotAllowed answers 405 with the Allow header and the sandbox's
// error body.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	WriteJSONError(w, http.StatusMethodNotAllowed, "VALIDATION_ERROR", r.Method+" is not allowed on "+r.URL.Path, nil)
}

// PublicAddr is the HOST:PORT a simulator publishes for a listener of its
// own bound at bound: the host of base (the sandbox's public URL, or a
// run's base under it) with the bound port. A listener bound to every
// interface (--listen 0.0.0.0 reads as [::]:PORT) or behind --public-url
// is then reached as the HTTP endpoints are. bound is returned as it is
// when base has no host or bound no port.
func PublicAddr(base, bound string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return bound
	}
	_, port, err := net.SplitHostPort(bound)
	if err != nil {
		return bound
	}
	return net.JoinHostPort(u.Hostname(), port)
}
