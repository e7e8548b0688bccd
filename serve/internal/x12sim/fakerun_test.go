package x12sim

import (
	"os"
	"testing"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/simfake"
)

// newFakeRun is a run of the testdata seed's payer, for tests that drive a
// runSim without the frame.
func newFakeRun(t testing.TB) *simfake.Run {
	data, err := os.ReadFile("testdata/seed/payer/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := payer.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return simfake.New(simfake.Options{ID: "f", Policy: p})
}

// newTestRun builds the clearinghouse of a fake run.
func newTestRun(t testing.TB) (*runSim, *simfake.Run) {
	fr := newFakeRun(t)
	s, _ := New(nil)
	rs, err := s.NewRun(fr)
	if err != nil {
		t.Fatal(err)
	}
	return rs.(*runSim), fr
}
