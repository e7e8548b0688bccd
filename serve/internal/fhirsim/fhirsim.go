// Package fhirsim is assay serve's FHIR simulator (DESIGN 13.9): every run
// gets a FHIR R4 server at BASE/fhir that starts from the seed's fhir/
// folder and serves everything fhir.Handler serves (search, read, vread,
// history, create, update, delete, conditional interactions, transaction
// and batch Bundles).
//
// The seed's fhir/*.json (resources and Bundles; a transaction Bundle
// applied as a transaction, in file name order) is loaded once, into a
// base store no run writes to. Each run serves a Clone of it: made in
// constant time whatever the seed holds, sharing its data until the run
// writes (a run's first write to a resource type copies that type's table
// of ids, charged to the run's memory budget). The run's store stamps
// meta.lastUpdated with the run's clock and mints ids from the seed's
// counter, so two runs given the same requests in the same order hold the
// same resources.
//
// Bounds: request bodies at most sim.MaxBody (413); the run's current
// resources at most MaxRunBytes of JSON and the store at most
// fhir.DefaultMaxBytes, history included; every write is charged to the
// sandbox's memory budget (--max-memory). A write past any of them is
// refused with a 507 OperationOutcome that names the bound.
//
// Each request is one fhir_request event {method, path, query, status}:
// path is below the FHIR base ("/Patient/123", "/" for the base), query
// the raw query string (its first 4 KiB; a longer one's size and SHA-256
// follow as query_digest). The snapshot's fhir/store.json is every
// current resource as a collection Bundle, by type then id.
//
// # Decisions
//
//   - The seed's resources keep a meta.lastUpdated they carry; those
//     without one are stamped with the time the seed was loaded, which is
//     the same for every run of a server: the sandbox's --clock when one
//     is given (NewAt), so that the seed is not later than what runs
//     write on their clocks, else the real time at start.
//   - MaxRunBytes counts the seed's resources too: it bounds what a run's
//     store holds, not what the run added. A write that does not grow the
//     current resources (a delete, a shorter update) is never refused.
package fhirsim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
	"github.com/assaykit/assay/serve/internal/sim"
)

// MaxRunBytes bounds the JSON of a run's current resources (the sandbox's
// per-run cap).
const MaxRunBytes = 64 << 20

// Sim is the FHIR simulator: the base store parsed from the seed.
type Sim struct {
	base *fhir.Store
}

// New loads the seed's fhir/*.json into the base store, stamping the
// resources without a meta.lastUpdated with the real time. A file that
// cannot be read or loaded is an error naming it (fhir/NAME).
func New(seed fs.FS) (sim.Sim, error) { return load(seed, time.Time{}) }

// NewAt is New with the load time at (the zero time: the real time).
func NewAt(at time.Time) func(seed fs.FS) (sim.Sim, error) {
	return func(seed fs.FS) (sim.Sim, error) { return load(seed, at) }
}

func load(seed fs.FS, at time.Time) (sim.Sim, error) {
	var opts []fhir.StoreOption
	if !at.IsZero() {
		opts = append(opts, fhir.WithClock(func() time.Time { return at }))
	}
	base := fhir.NewStore(opts...)
	if _, err := fs.Stat(seed, "fhir"); errors.Is(err, fs.ErrNotExist) {
		return &Sim{base: base}, nil
	}
	sub, err := fs.Sub(seed, "fhir")
	if err != nil {
		return nil, fmt.Errorf("fhir/: %w", err)
	}
	if _, err := base.LoadFS(sub, 0); err != nil {
		var le *fhir.LoadError
		var fe *check.FileError
		switch {
		case errors.As(err, &le):
			le.File = "fhir/" + le.File
		case errors.As(err, &fe):
			fe.Path = "fhir/" + fe.Path
		default:
			err = fmt.Errorf("fhir/: %w", err)
		}
		return nil, err
	}
	return &Sim{base: base}, nil
}

// NewRun gives the run a clone of the base store.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	store := s.base.Clone(
		fhir.WithClock(r.Now),
		fhir.WithMaxCurrentBytes(MaxRunBytes),
		fhir.WithReserve(func(delta int64) error {
			if delta < 0 {
				r.Release(-delta)
				return nil
			}
			return r.Reserve(delta)
		}))
	return &run{
		run:   r,
		store: store,
		h:     &fhir.Handler{Store: store, BaseURL: r.BaseURL() + "/fhir", MaxBodySize: sim.MaxBody},
	}, nil
}

// run is one run's FHIR server.
type run struct {
	run   sim.Run
	store *fhir.Store
	h     *fhir.Handler
}

func (rs *run) Mounts() []string { return []string{"fhir"} }

func (rs *run) Endpoints(base string, into map[string]string) { into["fhir"] = base + "/fhir" }

func (rs *run) Attach(env *assert.Env) { fhir.Attach(env, rs.store) }

func (rs *run) Stop() {}

// Snapshot writes fhir/store.json.
func (rs *run) Snapshot(d sim.Dir) error {
	var b bytes.Buffer
	if err := rs.store.WriteBundle(&b); err != nil {
		return err
	}
	return d.WriteFile("fhir/store.json", b.Bytes())
}

// requestEvent is a fhir_request event's fields.
type requestEvent struct {
	Method      string      `json:"method"`
	Path        string      `json:"path"`
	Query       string      `json:"query"`
	QueryDigest *sim.Digest `json:"query_digest,omitempty"`
	Status      int         `json:"status"`
}

// ServeHTTP serves a request below /fhir and records it.
func (rs *run) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/fhir")
	if path == "" {
		path = "/"
	}
	req := new(http.Request)
	*req = *r
	u := *r.URL
	u.Path, u.RawPath = path, ""
	req.URL = &u
	sw := &statusWriter{ResponseWriter: w}
	rs.h.ServeHTTP(sw, req)
	ev := requestEvent{Method: r.Method, Path: path, Query: r.URL.RawQuery, Status: sw.status}
	if len(ev.Query) > sim.MaxEventBody {
		sum := sha256.Sum256([]byte(ev.Query))
		ev.QueryDigest = &sim.Digest{Size: len(ev.Query), SHA256: hex.EncodeToString(sum[:])}
		ev.Query = ev.Query[:sim.MaxEventBody]
	}
	if ev.Status == 0 {
		ev.Status = http.StatusOK
	}
	rs.run.Emit(sim.Event{Sim: "fhir", Type: "fhir_request", Fields: ev})
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}
