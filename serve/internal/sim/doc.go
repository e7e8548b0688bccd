// Package sim is the contract between assay serve's frame (package serve)
// and its simulators: what a simulator sees of the run it serves (Run), what
// it gives the frame (Sim, RunSim), and the small pieces every simulator
// shares (events, the error body of the control plane, bounded bodies).
//
// The frame owns runs: their ids, tokens, clocks, counters, events, memory
// budget, authentication, the 409 after complete, and the snapshot's
// run.json, events.jsonl and manifest.json. A simulator owns its protocol
// and its part of a run's state and snapshot. Simulators never see each
// other except through what the frame hands them (the payer's per-run desk,
// say), so each can be written and tested alone.
package sim
