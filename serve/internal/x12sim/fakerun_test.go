package x12sim

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// fakeRun is a run for tests that drive a runSim without the frame.
type fakeRun struct {
	mu       sync.Mutex
	now      time.Time
	counters map[string]int64
	held     int64
	budget   int64
	ledger   *payer.Ledger
	events   []sim.Event
}

func newFakeRun(t testing.TB) *fakeRun {
	data, err := os.ReadFile("testdata/seed/payer/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := payer.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRun{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), counters: map[string]int64{}, budget: 1 << 40}
	r.ledger = payer.NewLedger(p, r)
	return r
}

// newTestRun builds the clearinghouse of a fake run.
func newTestRun(t testing.TB) (*runSim, *fakeRun) {
	fr := newFakeRun(t)
	s, _ := New(nil)
	rs, err := s.NewRun(fr)
	if err != nil {
		t.Fatal(err)
	}
	return rs.(*runSim), fr
}

func (r *fakeRun) ID() string { return "f" }
func (r *fakeRun) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}
func (r *fakeRun) Started() time.Time { return r.Now() }
func (r *fakeRun) Advance(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	r.mu.Unlock()
}
func (r *fakeRun) Next(name string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counters[name]++
	return r.counters[name]
}
func (r *fakeRun) Emit(e sim.Event) {
	if _, err := json.Marshal(e.Fields); err != nil {
		panic(fmt.Sprintf("an event that does not marshal: %v", err))
	}
	r.mu.Lock()
	if len(r.events) < 1000 {
		r.events = append(r.events, e)
	}
	r.mu.Unlock()
}
func (r *fakeRun) Reserve(n int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held+n > r.budget {
		return sim.ErrMemory
	}
	r.held += n
	return nil
}
func (r *fakeRun) Release(n int64) {
	r.mu.Lock()
	r.held -= n
	r.mu.Unlock()
}
func (r *fakeRun) BaseURL() string                     { return "http://127.0.0.1:1/runs/f" }
func (r *fakeRun) ListenHost() string                  { return "127.0.0.1" }
func (r *fakeRun) Credentials(string) (string, string) { return "", "" }
func (r *fakeRun) Logf(string, ...any)                 {}
func (r *fakeRun) Payer() *payer.Ledger                { return r.ledger }
func (r *fakeRun) Touch()                              {}
