// Package serve is assay serve: the sandbox an agent under test acts in. One
// server (and one command) brings up every endpoint such an agent talks to
// (a FHIR R4 server, HL7 v2 over HTTP and MLLP, an X12 clearinghouse, a payer
// portal with a web UI, an SFTP drop and a files API, a phone line), seeded
// from a folder, isolates each rollout as a run, records everything, and
// when a run completes writes the snapshot that assay eval judges
// (DESIGN.md section 13).
//
// # Runs
//
// A run is an in-memory copy of the parsed seed: the seed folder is read and
// parsed once, by New, and a run starts from it without reading or copying
// it again (the simulators share the seed's data and copy what a run
// changes). Each run has its own bearer token, clock, counters and event
// log; nothing one run does is visible to another. Runs are created by the
// control plane (POST /runs, with the operator token) or in Go with
// Server.NewRun, and end with complete (POST /runs/ID/complete,
// Run.Complete), which freezes the run and writes OUT/ID/sandbox/, or with
// DELETE, which discards an active run.
//
// # The control plane
//
//	POST   /runs                  {"id"?, "entity"?, "clock"?}: 201 and the run object
//	GET    /runs, /runs/ID        {"data": [RUN...]}, or one run object
//	POST   /runs/ID/complete      {"scored"?}: the snapshot's path, and a result with --criteria
//	                              (only {score, verdict} when scored or with the run's own token)
//	DELETE /runs/ID               204: an active run is discarded
//	GET    /runs/ID/events        ?after=N&limit=M: {"data": [...], "next": SEQ or null}
//	POST   /runs/ID/clock         {"advance": "48h"} or {"set": RFC3339}: {"now"}
//
// Errors are {"error": {"code", "message", "details"?}} with the criteria
// API's codes. Every response carries X-Assay-Sandbox: 1.
//
// # Simulators
//
// Each simulator lives in its own package under serve/internal and plugs into
// the frame through the contract of serve/internal/sim: it is built once from
// the seed, gives every run its own part (mounted under the run's base
// URL/runs/ID), writes its part of the snapshot, and attaches the run's live
// evidence to an assert.Env (Run.Env), so a Go test can evaluate criteria
// without writing files.
//
// # Snapshot
//
// complete waits for every request of the run in flight to answer, stops the
// simulators' own listeners (the run's MLLP port, its SFTP sessions), then
// writes the snapshot into OUT/.tmp-ID-* and renames it to OUT/ID, so a
// reader never sees half of one: every evidence folder (fhir, hl7, x12,
// sftp, portal, voice, empty or not), events.jsonl, run.json and
// manifest.json with the SHA-256 of every other file. With Options.Criteria,
// the criteria file is copied to OUT/ID/criteria.json, so assay eval --runs
// OUT judges every completed run, and complete answers with the result.
//
// # Decisions
//
//   - Generated run ids are run-1, run-2, ... (skipping ids in use and
//     folders already in OUT). A run's SFTP user is its id; its portal user is
//     "provider". Passwords and tokens are random.
//   - A request naming a run that does not exist is 404 only for the
//     operator token; without it, 401, so tokens do not reveal which ids
//     exist.
//   - The events page's next is the seq of the last event returned when
//     more events follow it, else null; a client tailing the log passes the
//     last seq it saw as after.
//   - A run is idle (for --ttl) when none of its simulators has had a
//     request: control-plane reads, such as polling events, do not keep a
//     run alive.
//   - When writing a snapshot fails (a full disk), complete answers 500, the
//     run stays frozen with its state in memory, and a later complete tries
//     again. When the criteria cannot be evaluated on a snapshot, complete
//     still succeeds and says why under result_error.
//   - Memory: every write is charged to the server's budget (MaxMemory)
//     through sim.Run.Reserve; a completed or deleted run gives back what
//     it held.
//   - A run's clock is UTC and moves with real time from its start; clock
//     calls move it forward only.
//   - complete called with the run's own token always answers the short
//     result, {"score", "verdict"}, even with {"scored": false} or no
//     body; only the operator's token gets the full task result, unless it
//     sends {"scored": true}. 13.2 ties the short form to scored: true,
//     but gives its reason, "an agent that completes its own run learns
//     nothing of the rubric": the run's token is the agent's, and the
//     full result would show it every criterion.
//   - Bad input is recorded as an event (13.11), on the run it was aimed
//     at. A request on an active run that the frame refuses before any
//     simulator sees it (401: another run's token, none, a wrong one;
//     404: an endpoint the run does not have) is a request_refused event
//     of sim "run", {method, path, status, error}: 13.10 gives the frame
//     no type for it, and these are fhir_request's fields with the
//     reason said. path is below the run's base; the token is never
//     written. It goes on the run the path names, never on the run whose
//     token was sent. A simulator records its own refusals in its own
//     event type with "status" and "error" fields (hl7_outbound with a
//     null ack_code, sftp_op; see their packages). assay schema events
//     describes these fields.
package serve
