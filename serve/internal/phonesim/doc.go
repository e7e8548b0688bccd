// Package phonesim is assay serve's phone line in text mode (DESIGN.md
// 13.8): an agent places calls, says things or presses keys, and hears an
// IVR and then a person (a persona), all as text turns on the run's clock.
// Every turn lands in the snapshot's voice/transcript.json, which the
// voice-transcript criteria judge, and in the run's events.
//
// # The calls API (mounted at BASE/voice)
//
//	POST /voice/calls                {"to"?}            201: the call, with the line's first turns
//	POST /voice/calls/ID/turns       {"text"} | {"dtmf"} 200: the agent's turn, then the line's answers
//	POST /voice/calls/ID/hangup                          200: the whole call, ended
//	GET  /voice/calls/ID                                 200: the whole call
//
// A call is {"call_id", "status": "in-progress"|"completed", "turns",
// "awaiting": {"input", "num_digits"?, "finish_on_key"?} or null}. Turns
// are {"speaker", "text", "start_ms", "end_ms", "call_id"}.
//
// # The line (voice/ivr.json)
//
// Parse reads it strictly (strictjson: unknown and repeated keys, wrong
// types, every problem with its pointer, line and column) and checks it
// whole: every name (start, next, routes, default, found, not_found,
// persona) resolves, every node is reachable from start, every persona is
// handed a call, a lookup_member names a value some gather saves, and no
// cycle of nodes goes round without a gather or a persona (the line would
// talk forever). New also needs payer/policy.json when the line looks
// members up, and Configure needs a model for an LLM persona: assay serve
// reports all of these before it listens.
//
// A node says its say (speaker ivr), holds hold_seconds on the run's clock
// (sim.Run.Advance: a delayed determination resolves during it), then does
// one of: gather (the call waits for the agent), persona (the call is handed
// to it, which says its greeting and waits), lookup_member (goes to found
// or not_found), next, or, with none of these, ends the call.
//
// # Reading input
//
// Digits are read as 13.8 says: up to num_digits keys, or up to the
// finish key (default #, never part of the value), or to the end of the
// request's keys; keys after the gather's end are ignored, and the agent's
// turn records every key pressed ("DTMF 1 2 #"). Speech is read with
// voice.Normalize, the voice-transcript check's own normalisation, so
// "W one two three", "w-123" and "W as in William one twenty three" all
// read "w 123". A member is found when a roster id, compared
// case-insensitively (or as voice.Normalize reads the id, spaces removed),
// equals the value with spaces removed or a run of its consecutive words
// joined ("my id is W123" finds W123). Input of a kind the gather does not
// take is recorded and the node's say repeated.
//
// # Facts
//
// {name} in a say, greeting, answer, fallback or farewell reads a fact of
// the looked-up member at the moment it is said: member_name, plan,
// coverage_status, pa_status, auth_number, certification_number,
// valid_from, valid_to (13.8), and also member_id, procedure_code and
// reason (the denial or need-more-info reason). pa_status and the rest
// read the member's latest prior_auth_requests row (payer.Ledger.Latest).
// A fact without a value reads "unknown"; so does a {name} that is no fact,
// and a voice_error event (code UNKNOWN_FACT) says which.
//
// # Personas
//
// A persona answers each agent turn with the first answer one of whose
// when phrases the turn contains (voice.Loose, the voice-transcript
// check's matcher), else its fallback; a turn with a goodbye phrase ends
// the call after the farewell, the answer first when one matched. Keys
// pressed while a persona listens are recorded and answered with the
// fallback.
//
// An LLM persona ("llm": true) asks a Chat Completions model (internal/chat:
// the shared retry policy, the key only to its origin and never in an
// error) for turns its answers do not cover. Its system prompt holds the
// rules of the call, the persona's instructions and the looked-up member's
// facts, never another member's; the conversation follows (the greeting
// and the persona's turns as the assistant's, the agent's as the user's).
// Each answer is a voice_persona event {call_id, persona, model,
// conversation, answer, reason?}, where conversation is the SHA-256 of the
// model and the messages sent; answers are kept by that key, in memory for
// every run of the server and in Config.Cache (--persona-cache), so the
// same conversation replays the recorded answer and a rerun in a new
// process is byte-identical.
//
// # Events
//
// voice_call {call_id, state: started|completed}; voice_turn {call_id,
// speaker, text} per turn, in order (a text over 4 KiB is cut there, with
// digest {size, sha256} of the whole); voice_persona (above); voice_error
// {call_id?, status?, code, message} for every request refused and every
// unknown fact.
//
// # Decisions
//
//   - Bounds: a request body at most 1 MiB (MaxBody; 413), at most 1000
//     calls per run (429), 1000 turns per call (an agent turn on a call
//     that holds as many is 429), 256 keys per dtmf, and a run's transcript
//     at most 48 MiB of JSON (413), so transcript.json stays within the
//     64 MiB an evaluation reads. Calls and turns are charged to the memory
//     budget (--max-memory; 507 when it is spent): 1 KiB a call, each turn
//     its size in the transcript.
//   - A turn body is a JSON object with text or dtmf, not both and not
//     neither, and no other key (400 VALIDATION_ERROR). Text that is only
//     whitespace is no turn. dtmf holds 0-9, * and # (spaces ignored).
//   - Call ids are CA and six digits, from the run's counter voice_call.
//   - to, when given, must equal the line's number (404); a line without a
//     number answers any to.
//   - hangup of an ended call answers the call again (200); a turn on one
//     is 409. When a run completes, calls still in progress end (their
//     voice_call completed event is written).
//   - After a gather: the route the value names (for speech, a route key
//     read as speech is, so "two" takes route "2"), else default, else next;
//     with none of them the node's say is repeated. A gather must have at
//     least one of next, routes and default.
//   - A node does one of gather, persona and lookup_member; next is refused
//     beside persona and lookup_member (it would never be taken); routes and
//     default only beside a gather.
//   - A failed lookup clears the call's member: facts read unknown until a
//     lookup finds one.
//   - A persona's speaker is caller (default) or ivr: the agent is the one
//     calling. Its fallback defaults to "Sorry, could you say that again?",
//     its farewell to "Thank you, goodbye."; without goodbye phrases the
//     call ends only when the agent hangs up.
//   - An LLM persona's scripted answers are tried first; the model answers
//     the rest. A goodbye turn gets the farewell without asking the model.
//   - An LLM answer is one spoken turn: valid UTF-8 without control
//     characters, whitespace collapsed, 1 to 1000 bytes, not starting
//     with {, [ or <. An answer that is not, a server that fails or answers
//     later than Config.Timeout (default 20 s, retries and waiting for one
//     of 16 slots included), and an answer that names another member of the
//     roster (by id, spoken or written, or by full name) are replaced by the
//     fallback, and the voice_persona event says why (without the rejected
//     text, since the agent may read the events). Every outcome is recorded,
//     the fallback too, so replays stay byte-identical; delete the entry (or
//     the file) to ask again.
//   - An LLM persona needs a model and either a server or recorded answers:
//     with --persona-cache alone an answer that was not recorded is the
//     fallback, and the event says so. The cache file is JSON,
//     {"answers": {KEY: {"model", "answer", "reason"?}}}, at most 10,000
//     answers, rewritten through a temporary file renamed into place.
//   - Turn times follow 13.8: a turn starts at the later of the run's clock
//     and the end of the call's previous turn and lasts 300 ms a word
//     (words split at white space), at least 300 ms.
//   - The transcript is written one turn a line, ordered by start_ms, ties
//     by call creation then turn order; a run without calls writes
//     {"turns": []}, so a voice criterion fails for want of a phrase rather
//     than erroring for want of a file.
package phonesim
