package filesim_test

import (
	"time"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/sim"
)

// fakeRun is a sim.Run for tests that use the simulator without the
// frame.
type fakeRun struct{}

func (fakeRun) ID() string                          { return "fake" }
func (fakeRun) Now() time.Time                      { return time.Unix(0, 0) }
func (fakeRun) Started() time.Time                  { return time.Unix(0, 0) }
func (fakeRun) Advance(time.Duration)               {}
func (fakeRun) Next(string) int64                   { return 1 }
func (fakeRun) Emit(sim.Event)                      {}
func (fakeRun) Reserve(int64) error                 { return nil }
func (fakeRun) Release(int64)                       {}
func (fakeRun) BaseURL() string                     { return "http://127.0.0.1/runs/fake" }
func (fakeRun) ListenHost() string                  { return "127.0.0.1" }
func (fakeRun) Credentials(string) (string, string) { return "fake", "secret" }
func (fakeRun) Logf(string, ...any)                 {}
func (fakeRun) Touch()                              {}
func (fakeRun) Payer() *payer.Ledger                { return nil }
