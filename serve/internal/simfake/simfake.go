package simfake

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Options are what a test may choose of a Run; the zero Options give run
// "r1" at 2026-03-01T09:00:00Z with no budget and no payer.
type Options struct {
	ID    string    // "r1" when empty
	Start time.Time // 2026-03-01T09:00:00Z when zero
	// Policy gives the run a ledger at the payer (Payer); nil, none.
	Policy *payer.Policy
	// Budget is the bytes Reserve may hold at once; 0, no limit.
	Budget int64
	// User and Password are what Credentials returns, for every name.
	User, Password string
	// Logf receives the run's log lines; nil discards them.
	Logf func(format string, args ...any)
}

// maxEvents bounds the events kept, so that a fuzz target's long run
// does not keep every one.
const maxEvents = 100_000

// Run is a sim.Run for tests. It is safe for concurrent use.
type Run struct {
	opts   Options
	ledger *payer.Ledger

	mu       sync.Mutex
	now      time.Time
	counters map[string]int64
	events   []sim.Event
	used     int64
}

var _ sim.Run = (*Run)(nil)

// New returns a run with opts.
func New(opts Options) *Run {
	if opts.ID == "" {
		opts.ID = "r1"
	}
	if opts.Start.IsZero() {
		opts.Start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	}
	r := &Run{opts: opts, now: opts.Start, counters: map[string]int64{}}
	if opts.Policy != nil {
		r.ledger = payer.NewLedger(opts.Policy, r)
	}
	return r
}

func (r *Run) ID() string         { return r.opts.ID }
func (r *Run) Started() time.Time { return r.opts.Start }
func (r *Run) BaseURL() string    { return "http://sandbox.test/runs/" + r.opts.ID }
func (r *Run) ListenHost() string { return "127.0.0.1" }
func (r *Run) Touch()             {}

// Payer returns the run's ledger, nil without Options.Policy.
func (r *Run) Payer() *payer.Ledger { return r.ledger }

// Credentials returns Options.User and Options.Password.
func (r *Run) Credentials(string) (user, password string) { return r.opts.User, r.opts.Password }

func (r *Run) Logf(format string, args ...any) {
	if r.opts.Logf != nil {
		r.opts.Logf(format, args...)
	}
}

func (r *Run) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

// Advance moves the clock forward and records a clock event, as the
// frame does.
func (r *Run) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	r.mu.Lock()
	r.now = r.now.Add(d)
	now := r.now
	r.mu.Unlock()
	r.Emit(sim.Event{Sim: "run", Type: "clock", Fields: map[string]string{"now": now.Format(time.RFC3339)}})
}

func (r *Run) Next(name string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters[name]++
	return r.counters[name]
}

// Emit keeps e; it panics when e's fields do not marshal to JSON, which
// the frame could not write.
func (r *Run) Emit(e sim.Event) {
	if _, err := json.Marshal(e.Fields); err != nil {
		panic(fmt.Sprintf("simfake: an event that does not marshal: %v", err))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) < maxEvents {
		r.events = append(r.events, e)
	}
}

func (r *Run) Reserve(n int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.Budget > 0 && r.used+n > r.opts.Budget {
		return sim.ErrMemory
	}
	r.used += n
	return nil
}

func (r *Run) Release(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.used -= min(n, r.used)
}

// Used returns the bytes Reserve holds.
func (r *Run) Used() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

// SetBudget changes Options.Budget.
func (r *Run) SetBudget(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Budget = n
}

// Events returns the events kept, in order.
func (r *Run) Events() []sim.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sim.Event(nil), r.events...)
}

// Lines returns the events of type typ (every event when typ is ""), each
// as a line "sim type fields", its fields as JSON.
func (r *Run) Lines(typ string) []string {
	var out []string
	for _, e := range r.Events() {
		if typ == "" || e.Type == typ {
			fields, _ := json.Marshal(e.Fields)
			out = append(out, e.Sim+" "+e.Type+" "+string(fields))
		}
	}
	return out
}
