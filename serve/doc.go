// Package serve is assay serve: the sandbox an agent under test acts in. One
// server (and one command) brings up every endpoint such an agent talks to
// (a FHIR R4 server, HL7 v2 over HTTP and MLLP, an X12 clearinghouse, a payer
// portal with a web UI, an SFTP drop and a files API, a phone line), seeded
// from a folder, isolates each rollout as a run, records everything, and
// when a run completes writes the snapshot that assay eval judges.
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
// API's codes (VALIDATION_ERROR, UNAUTHORIZED, NOT_FOUND, CONFLICT,
// RATE_LIMITED), and, for what those do not name, PAYLOAD_TOO_LARGE (413,
// a body over its cap: 16 MiB unless an endpoint says less), FORBIDDEN,
// UNAVAILABLE, INSUFFICIENT_STORAGE (507, the memory budget) and INTERNAL.
// Every response carries X-Assay-Sandbox: 1.
//
// # A run's endpoints
//
// The run object's endpoints map names to URLs under BASE = URL/runs/ID;
// each takes the run's bearer token (or the operator's), except the
// portal's web pages, which log in with the run's credentials.portal:
//
//	fhir          BASE/fhir                      a FHIR R4 server (transactions, conditional writes, history)
//	hl7_outbound  BASE/hl7/outbound              HL7 v2 messages in, {"ack"} out; hl7_mllp is the run's MLLP HOST:PORT
//	hl7_inbox     BASE/hl7/inbox                 the seed's inbound messages
//	x12           BASE/x12                       one X12 interchange (270, 276, 278) in, a 271, 277 or 278 out
//	x12_core      BASE/x12/core                  the same over CAQH CORE real-time HTTP+MIME
//	eligibility   BASE/clearinghouse/eligibility JSON {"member_id" or "patient_id", "service_type_codes"?,
//	                                             "date_of_service"?, "provider_npi"?}: the 271 and what it says
//	portal_api    BASE/portal/api                the payer portal's REST API
//	portal        BASE/portal/                   the payer portal's web UI (works without JavaScript)
//	files, sftp   BASE/files, sftp://ID@HOST:PORT/  the run's file tree (GET/PUT/DELETE files/PATH)
//	voice         BASE/voice                     the payer's phone line, in text
//	events        BASE/events                    the run's events
//
// # The payer: clearinghouse and portal
//
// The clearinghouse, the portal and the phone line answer from one payer,
// the seed's payer/policy.json (its format: go doc
// github.com/assaykit/assay/payer), so a prior authorization submitted on
// any channel is one row of the portal's prior_auth_requests. The
// clearinghouse answers a 270 with a 271 (AAA for provider and member
// problems, EB per service type asked), a 276 with a 277 (STC from the
// claim's statuses), a 278 with a 278 (HCR per service); an ISA it cannot
// read gets a TA1, any other bad request a 999. An X12 body is at most
// 1 MiB. The portal's REST API:
//
//	POST prior-auths            {"patient_member_id", "procedure_code", "provider_npi"?, "diagnosis_codes"?,
//	                             "service_date"?, "units"?, "request_id"?, "notes"?}: 201 and the row
//	GET  prior-auths/AUTH_NUMBER, GET prior-auths?patient_member_id=   the row as it reads now; {"data": [rows]}
//	GET  patients?member_id=&last_name=&birth_date=, GET providers?npi=  {"data": [...]}
//	POST prior-auths/AUTH_NUMBER/attachments   JSON {"filename", "document_type"?, "content_base64"}
//	                             or multipart (file, document_type): 201; the body at most 16 MiB
//
// A bad request is 400 VALIDATION_ERROR whose details name the field.
//
// # The phone line
//
// The seed's voice/ivr.json is an IVR of nodes; an agent calls it in text:
//
//	POST BASE/voice/calls                {"to"?}                 201 and the call
//	POST BASE/voice/calls/CALL_ID/turns  {"text": "..."} or {"dtmf": "2"}  the agent's turn, then the line's answers
//	POST BASE/voice/calls/CALL_ID/hangup                         the whole call, ended
//	GET  BASE/voice/calls/CALL_ID                                the whole call
//
// A call is {"call_id", "status": "in-progress"|"completed", "turns": [{"speaker",
// "text", "start_ms", "end_ms", "call_id"}], "awaiting": {"input": ["dtmf",
// "speech"], "num_digits"?, "finish_on_key"?} or null}: the turns new since
// the last request (a turn's reply begins with the agent's own), and what
// the line waits for. With the example's seed (examples/priorauth/seed):
//
//	POST BASE/voice/calls {}
//	  201 {"call_id": "CA000001", "status": "in-progress", "turns": [
//	        {"speaker": "ivr", "text": "Thank you for calling Acme Health Plan provider services.", ...},
//	        {"speaker": "ivr", "text": "Please say or enter the member ID.", ...}],
//	       "awaiting": {"input": ["dtmf", "speech"]}}
//	POST BASE/voice/calls/CA000001/turns {"text": "W one two three four five six seven eight nine"}
//	  200 {..., "turns": [{"speaker": "agent", ...},
//	        {"speaker": "ivr", "text": "For eligibility press 1. For prior authorization status press 2.", ...}],
//	       "awaiting": {"input": ["dtmf"], "num_digits": 1}}
//
// voice/ivr.json is {"number"?, "start", "nodes": {NAME: NODE}, "personas"?:
// {NAME: PERSONA}}. A node says its "say", holds "hold_seconds" on the
// run's clock, then does one of: "gather" ({"input": ["dtmf"|"speech"],
// "num_digits"?, "finish_on_key"? (default #), "save"?: a name for the
// value}) followed by "routes" ({DIGITS: NODE}), "default" or "next";
// "lookup_member" (a saved value, matched against the policy's member ids)
// followed by "found" or "not_found"; "persona" (the call is handed to
// it); "next"; or, with none of these, the call ends. {fact} reads the looked-up member's member_name, plan, coverage_status,
// pa_status, auth_number, certification_number, valid_from or valid_to
// (the latest prior-authorization request's; "unknown" without one) in a say, greeting, answer, fallback or
// farewell. A persona is {"speaker"? (caller), "greeting",
// "answers": [{"when": [PHRASES], "say"}], "fallback"?, "goodbye"?:
// [PHRASES], "farewell"?, "llm"?, "instructions"?}: each agent turn gets
// the first answer one of whose phrases it contains, else the fallback; a
// goodbye phrase ends the call after the farewell. The file is read
// strictly, every problem at once with its JSON pointer, line and column
// (an unknown key, a wrong type, a name that resolves to nothing, an
// unused persona; then, once those are right, an unreachable node or a
// cycle that never waits for the agent); assay validate voice/ivr.json
// checks one without serving it.
//
// An LLM persona ("llm": true) asks a Chat Completions server for the turns
// its answers do not cover: --persona-url and --persona-model
// (Options.PersonaURL, PersonaModel) choose it, the key comes from
// ASSAY_PERSONA_API_KEY (Options.PersonaAPIKey), and --persona-cache FILE keeps its answers so a
// rerun replays them without the server. The prompt holds only the
// looked-up member's facts; an answer naming another member, empty, too
// long or late is replaced by the fallback.
//
// Events of the line: voice_call {call_id, state: started|completed},
// voice_turn {call_id, speaker, text} per turn, voice_persona per LLM
// answer (model, a hash of the conversation, the answer or why it was
// replaced) and voice_error for every request refused. The snapshot's
// voice/transcript.json holds every turn, for voice-transcript criteria.
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
//     describes these fields. A request after complete is answered 409
//     and is not recorded: the run's events were closed into its snapshot,
//     which stays what was judged.
package serve
