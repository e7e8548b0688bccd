// Package simfake is a sim.Run for a simulator's own tests, which drive its
// part of a run without the frame: a clock that stands still unless the
// test or the simulator advances it (so transcripts and events are the
// same from one test run to the next), counters, a memory budget, the
// events kept in order, and the payer's ledger when given a policy.
//
// It does what the frame does where a simulator can tell: Advance records
// a clock event, Reserve refuses with sim.ErrMemory past the budget, and
// an event whose fields do not marshal to JSON is a bug in the simulator,
// so Emit panics on it.
package simfake
