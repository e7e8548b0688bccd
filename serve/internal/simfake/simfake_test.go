package simfake

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
)

func TestRun(t *testing.T) {
	r := New(Options{Budget: 10})
	if r.ID() != "r1" || !r.Now().Equal(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)) || r.Payer() != nil {
		t.Fatalf("defaults: %s %v %v", r.ID(), r.Now(), r.Payer())
	}
	if a, b := r.Next("x"), r.Next("x"); a != 1 || b != 2 || r.Next("y") != 1 {
		t.Errorf("counters: %d %d", a, b)
	}
	r.Advance(time.Hour)
	r.Advance(-time.Hour)
	r.Emit(sim.Event{Sim: "hl7", Type: "hl7_outbound", Fields: map[string]int{"n": 1}})
	if got, want := r.Lines(""), []string{`run clock {"now":"2026-03-01T10:00:00Z"}`, `hl7 hl7_outbound {"n":1}`}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if got := r.Lines("hl7_outbound"); len(got) != 1 {
		t.Errorf("hl7_outbound events: %q", got)
	}
	if err := r.Reserve(8); err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve(3); !errors.Is(err, sim.ErrMemory) {
		t.Errorf("past the budget: %v", err)
	}
	r.Release(100)
	if r.Used() != 0 {
		t.Errorf("used %d after releasing more than held", r.Used())
	}
	r.SetBudget(0)
	if err := r.Reserve(1 << 40); err != nil {
		t.Errorf("no budget: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("an event that does not marshal was kept")
		}
	}()
	r.Emit(sim.Event{Sim: "x", Type: "y", Fields: func() {}})
}
