package serve

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Run statuses.
const (
	StatusActive    = "active"
	StatusCompleted = "completed"
)

// RunOptions configure a new run.
type RunOptions struct {
	// ID is the run's id, matching [A-Za-z0-9_-]{1,64}; "" generates one.
	ID string
	// Entity is the input entity the run is for; it goes to the
	// snapshot's run.json as input_entity_id.
	Entity string
	// Clock starts the run's clock; the zero time means the server's
	// Options.Clock, else the real time.
	Clock time.Time
}

// Run is one rollout in the sandbox: its own copy of the seed, clock,
// counters and events. Its methods are safe for concurrent use.
type Run struct {
	srv      *Server
	id       string
	token    string
	entity   string
	created  time.Time // real time, for created_at
	clock    *clock
	started  time.Time // the run's clock at creation
	events   *eventLog
	sims     []sim.RunSim
	mounts   map[string]sim.RunSim
	sftpUser string
	sftpPass string
	portUser string
	portPass string

	ledger *payer.Ledger // nil without a policy

	counterMu sync.Mutex
	counters  map[string]int64

	used     atomic.Int64 // bytes reserved from the server's budget
	lastSeen atomic.Int64 // real time of the last request, unix nanoseconds

	// completeMu serialises complete; frozen is set once the simulators
	// have stopped and the completed event is written.
	completeMu sync.Mutex
	frozen     bool

	// mu guards status and inflight: a request enters only while the run
	// is active, and complete waits until every request in flight has
	// left before it snapshots, so that nothing acknowledged is lost.
	mu        sync.Mutex
	status    string
	stopping  bool
	inflight  sync.WaitGroup
	snapshot  string
	result    *assert.TaskResult
	resultErr error
	completed time.Time // the run's clock at completion
}

// ID returns the run's id.
func (r *Run) ID() string { return r.id }

// Token returns the run's own bearer token.
func (r *Run) Token() string { return r.token }

// Endpoints returns the URL (or address) of every endpoint of the run, by
// name: fhir, hl7_outbound, hl7_inbox, hl7_mllp, x12, x12_core,
// eligibility, portal, portal_api, files, sftp, voice, events.
func (r *Run) Endpoints() map[string]string {
	base := r.BaseURL()
	out := map[string]string{"events": base + "/events"}
	for _, s := range r.sims {
		s.Endpoints(base, out)
	}
	return out
}

// Env returns the run's live evidence, to evaluate criteria in memory
// without writing a snapshot. Sources read the run's state as it is when a
// check reads it.
func (r *Run) Env() *assert.Env {
	env := assert.NewEnv()
	for _, s := range r.sims {
		s.Attach(env)
	}
	return env
}

// Status returns "active" or "completed"; a run whose completion has begun
// but not finished reads "active".
func (r *Run) Status() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// Complete freezes the run, writes its snapshot and returns the snapshot's
// folder (OUT/ID/sandbox). Completing a completed run returns the same
// folder again.
func (r *Run) Complete(ctx context.Context) (string, error) {
	return r.srv.complete(ctx, r)
}

// --- sim.Run, as the simulators see the run ---

type simRun struct{ *Run }

var _ sim.Run = simRun{}

func (r simRun) ID() string              { return r.id }
func (r simRun) Now() time.Time          { return r.clock.Now() }
func (r simRun) Started() time.Time      { return r.started }
func (r simRun) BaseURL() string         { return r.Run.BaseURL() }
func (r simRun) ListenHost() string      { return r.srv.opts.Listen }
func (r simRun) Logf(f string, a ...any) { r.srv.logf("run %s: "+f, append([]any{r.id}, a...)...) }

func (r simRun) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	now, err := r.clock.Advance(d)
	if err == nil {
		r.emit(sim.Event{Sim: "run", Type: "clock", Fields: clockEvent{Now: stamp(now)}})
	}
}

func (r simRun) Next(name string) int64 {
	r.counterMu.Lock()
	defer r.counterMu.Unlock()
	r.counters[name]++
	return r.counters[name]
}

func (r simRun) Emit(e sim.Event) { r.emit(e) }

func (r simRun) Payer() *payer.Ledger { return r.ledger }

func (r simRun) Touch() { r.lastSeen.Store(time.Now().UnixNano()) }

func (r simRun) Reserve(n int64) error {
	if n <= 0 {
		return nil
	}
	if !r.srv.reserve(n) {
		return sim.ErrMemory
	}
	r.used.Add(n)
	return nil
}

func (r simRun) Release(n int64) {
	if n <= 0 {
		return
	}
	// Never give back more than the run holds.
	for {
		held := r.used.Load()
		give := min(n, held)
		if r.used.CompareAndSwap(held, held-give) {
			r.srv.release(give)
			return
		}
	}
}

func (r simRun) Credentials(name string) (string, string) {
	switch name {
	case "sftp":
		return r.sftpUser, r.sftpPass
	case "portal":
		return r.portUser, r.portPass
	}
	return "", ""
}

// BaseURL is the run's public base, URL/runs/ID.
func (r *Run) BaseURL() string { return r.srv.publicURL() + "/runs/" + r.id }

func (r *Run) emit(e sim.Event) { r.events.add(stamp(r.clock.Now()), e) }

// refusedEvent is the request_refused event: a request on the run that
// the frame turned away before any simulator saw it (another run's token,
// none, an endpoint the run does not have). 13.10 gives the frame no type
// for it; its fields follow fhir_request's, with the error said.
type refusedEvent struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// refused answers 401 to a request on r without a token that r takes, and
// records it on r.
func (r *Run) refused(w http.ResponseWriter, req *http.Request, rest, need string) {
	r.recordRefusal(req.Method, "/"+rest, http.StatusUnauthorized, "the request's token is not the run's own or the operator's")
	unauthorized(w, need)
}

// recordRefusal records a request the frame refused, while the run is
// active (a completed run's log is its snapshot's). The path is below the
// run's base, cut to the 4 KiB an event copies; the token never appears.
func (r *Run) recordRefusal(method, p string, status int, msg string) {
	r.mu.Lock()
	active := r.status == StatusActive && !r.stopping
	r.mu.Unlock()
	if !active {
		return
	}
	p = p[:min(len(p), sim.MaxEventBody)]
	r.emit(sim.Event{Sim: "run", Type: "request_refused", Fields: refusedEvent{Method: method, Path: p, Status: status, Error: msg}})
}

type clockEvent struct {
	Now string `json:"now"`
}

type phaseEvent struct {
	Phase string `json:"phase"`
}

// enter admits a simulator request: false when the run is no longer
// active (the caller answers 409). A true answer must be paired with
// leave.
func (r *Run) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status != StatusActive || r.stopping {
		return false
	}
	r.inflight.Add(1)
	r.lastSeen.Store(time.Now().UnixNano())
	return true
}

func (r *Run) leave() { r.inflight.Done() }

// Object returns the run object of the control plane (DESIGN.md 13.2), as
// JSON marshals it: id, token, status, created_at, entity, endpoints and
// credentials.
func (r *Run) Object() any { return r.object() }

// object is the run object of the control plane.
func (r *Run) object() runObject {
	r.mu.Lock()
	status := r.status
	r.mu.Unlock()
	var entity *string
	if r.entity != "" {
		entity = &r.entity
	}
	return runObject{
		ID:        r.id,
		Token:     r.token,
		Status:    status,
		CreatedAt: r.created.UTC().Format(time.RFC3339),
		Entity:    entity,
		Endpoints: r.Endpoints(),
		Credentials: credentials{
			SFTP:   sftpCred{User: r.sftpUser, Password: r.sftpPass},
			Portal: portalCred{Username: r.portUser, Password: r.portPass},
		},
	}
}

type runObject struct {
	ID          string            `json:"id"`
	Token       string            `json:"token"`
	Status      string            `json:"status"`
	CreatedAt   string            `json:"created_at"`
	Entity      *string           `json:"entity"`
	Endpoints   map[string]string `json:"endpoints"`
	Credentials credentials       `json:"credentials"`
}

type credentials struct {
	SFTP   sftpCred   `json:"sftp"`
	Portal portalCred `json:"portal"`
}

type sftpCred struct {
	User     string `json:"user"`
	Password string `json:"password"`
}

type portalCred struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// serveSim routes a request to the simulator mounted at its first path
// segment.
func (r *Run) serveSim(w http.ResponseWriter, req *http.Request, mount string) {
	s := r.mounts[mount]
	if s == nil {
		msg := fmt.Sprintf("no endpoint %q under run %s", req.URL.Path, r.id)
		r.recordRefusal(req.Method, req.URL.Path, http.StatusNotFound, msg)
		sim.WriteJSONError(w, http.StatusNotFound, "NOT_FOUND", msg, nil)
		return
	}
	s.ServeHTTP(w, req)
}
