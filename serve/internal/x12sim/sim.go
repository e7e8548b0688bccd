package x12sim

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/x12"
)

// Bounds of the clearinghouse.
const (
	// MaxRequest is the most one X12 request (a raw body, a CORE
	// Payload) may hold: a real-time request is one transaction set of a
	// few kilobytes. A larger one is 413.
	MaxRequest = 1 << 20
	// MaxRecords is the most a run's records may hold (requests and
	// responses together), so that records.json is judged within the
	// evidence cap; an exchange past it is 413.
	MaxRecords = 64 << 20
	// recordOverhead is what a record costs beyond its two bodies.
	recordOverhead = 256
	// rowCost is what a prior-authorization row a 278 writes costs the
	// memory budget, beyond its strings.
	rowCost = 512
)

// PolicyFile is where the seed holds the payer policy.
const PolicyFile = "payer/policy.json"

// noPolicy is the message of every answer when the seed has no policy.
const noPolicy = "the clearinghouse answers for the payer, and the seed has no " + PolicyFile + ": add one (its format: go doc github.com/assaykit/assay/payer) to use it"

// Sim is the clearinghouse. It keeps nothing of the seed itself: the
// policy reaches each run through its ledger (sim.Run.Payer).
type Sim struct{}

// New builds the clearinghouse. The payer policy is read and checked by
// the frame, which hands each run its ledger, so there is nothing here to
// fail.
func New(fs.FS) (sim.Sim, error) { return &Sim{}, nil }

// NewRun returns the clearinghouse of a new run.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	return &runSim{run: r, ledger: r.Payer()}, nil
}

// runSim is one run's clearinghouse.
type runSim struct {
	run    sim.Run
	ledger *payer.Ledger // nil without a policy

	// mu serialises exchanges, so that control numbers, records and
	// events follow one order.
	mu      sync.Mutex
	records []record
	size    int64      // bytes the records hold
	source  x12.Source // a MemorySource over records, rebuilt when they grow
	srcLen  int
}

// record is one exchange, as records.json holds it.
type record struct {
	Transaction string   `json:"transaction"`
	Request     string   `json:"request"`
	Response    string   `json:"response"`
	Metadata    metadata `json:"metadata"`
}

type metadata struct {
	RequestID *string `json:"request_id"`
	PatientID *string `json:"patient_id"`
	Transport string  `json:"transport"`
}

// Transports, as records and events name them.
const (
	transportX12         = "x12"
	transportCORE        = "core"
	transportEligibility = "eligibility"
)

func (rs *runSim) Mounts() []string { return []string{"x12", "clearinghouse"} }

func (rs *runSim) Endpoints(base string, into map[string]string) {
	into["x12"] = base + "/x12"
	into["x12_core"] = base + "/x12/core"
	into["eligibility"] = base + "/clearinghouse/eligibility"
}

func (rs *runSim) Stop() {}

// Attach attaches the run's records, live: each check reads them as they
// are when it runs.
func (rs *runSim) Attach(env *assert.Env) { x12.Attach(env, liveSource{rs}) }

// liveSource reads a run's records as they are now, through a
// MemorySource that is rebuilt only when records were added, so that
// every check shares each record's parse.
type liveSource struct{ rs *runSim }

func (s liveSource) Records(ctx context.Context) ([]x12.Record, error) {
	s.rs.mu.Lock()
	if s.rs.source == nil || s.rs.srcLen != len(s.rs.records) {
		recs := make([]x12.Record, len(s.rs.records))
		for i, r := range s.rs.records {
			recs[i] = r.x12Record(i)
		}
		s.rs.source, s.rs.srcLen = x12.MemorySource(recs...), len(s.rs.records)
	}
	src := s.rs.source
	s.rs.mu.Unlock()
	return src.Records(ctx)
}

func (r record) x12Record(i int) x12.Record {
	meta := map[string]any{"transport": r.Metadata.Transport, "request_id": nil, "patient_id": nil}
	if r.Metadata.RequestID != nil {
		meta["request_id"] = *r.Metadata.RequestID
	}
	if r.Metadata.PatientID != nil {
		meta["patient_id"] = *r.Metadata.PatientID
	}
	return x12.Record{
		Name: "records.json[" + strconv.Itoa(i) + "]", Transaction: r.Transaction,
		Request: r.Request, Response: r.Response, Metadata: meta,
	}
}

// Snapshot writes x12/records.json: every exchange in order ([] when
// there was none).
func (rs *runSim) Snapshot(d sim.Dir) error {
	rs.mu.Lock()
	recs := rs.records
	if recs == nil {
		recs = []record{}
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	rs.mu.Unlock()
	if err != nil {
		return err
	}
	return d.WriteFile("x12/records.json", append(data, '\n'))
}

func (rs *runSim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var serve func(http.ResponseWriter, *http.Request)
	switch r.URL.Path {
	case "/x12":
		serve = rs.serveX12
	case "/x12/core":
		serve = rs.serveCORE
	case "/clearinghouse/eligibility":
		serve = rs.serveEligibility
	default:
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", "no clearinghouse endpoint "+strconv.Quote(r.URL.Path)+": use x12, x12/core or clearinghouse/eligibility", nil)
		return
	}
	if r.Method != http.MethodPost {
		sim.MethodNotAllowed(w, r, "POST")
		return
	}
	if rs.ledger == nil {
		if r.URL.Path == "/x12/core" {
			rs.coreError(w, http.StatusServiceUnavailable, nil, "UNAVAILABLE", noPolicy)
			return
		}
		sim.WriteJSONError(w, http.StatusServiceUnavailable, "UNAVAILABLE", noPolicy, nil)
		return
	}
	serve(w, r)
}

// exchangeEvent is the x12_exchange event (13.10), with the reason of a
// refusal.
type exchangeEvent struct {
	Transaction *string `json:"transaction"`
	Transport   string  `json:"transport"`
	RequestID   *string `json:"request_id"`
	PatientID   *string `json:"patient_id"`
	Status      int     `json:"status"`
	Error       string  `json:"error,omitempty"`
}

// maxEventText bounds a value an event copies from a request.
const maxEventText = sim.MaxEventBody

func optional(s string) *string {
	if s == "" {
		return nil
	}
	s = s[:min(len(s), maxEventText)]
	return &s
}

func (rs *runSim) emit(o *outcome, transport string) {
	rs.run.Emit(sim.Event{Sim: "x12", Type: "x12_exchange", Fields: exchangeEvent{
		Transaction: optional(o.transaction), Transport: transport,
		RequestID: optional(o.requestID), PatientID: optional(o.patientID),
		Status: o.status, Error: clip(o.message, maxEventText),
	}})
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
