// Package hl7sim is assay serve's HL7 v2 simulator (DESIGN.md 13.9): an
// interface engine that takes the messages an agent sends, over HTTP or
// over MLLP on a port of the run's own, and an inbox of messages for the
// agent to read.
//
// Per run it serves:
//
//   - POST hl7/outbound: {"payload": MESSAGE} (application/json) or the
//     raw message (text/plain, x-application/hl7-v2+er7), answered 200
//     {"ack": ACK}.
//   - The run's MLLP port (endpoint hl7_mllp, HOST:PORT), on the sandbox's
//     listen host, a port chosen by the system.
//   - GET hl7/inbox: {"data": [{"id", "message_type", "control_id",
//     "payload", "received_at"}]}, the seed's hl7/inbox/*.hl7 messages in
//     name order (several per file allowed).
//
// Both transports feed one hl7.Listener: the MLLP port serves it, and an
// HTTP message goes through its Submit, so the ACK rules (section 7: AA
// kept; AE when MSH parses and the body does not; AR when the header cannot
// be read, lacks MSH.9 or MSH.10, or is over a limit) and the capture list
// are one, whatever the transport. Every ACKed message is an hl7_outbound
// event {control_id, message_type, ack_code, transport: http|mllp}, in the
// order of the capture list. The snapshot's hl7/NNNN.hl7 holds every AA
// message in arrival order from 0001, as received; the run's live evidence
// (Run.Env) is the listener itself, rejects included.
//
// # Decisions
//
//   - Inbox ids are the message's position in the inbox from 1, as a
//     string ("1", "2", ...): the same in every run, since every run reads
//     the same seed. received_at is the run's start on its own clock (the
//     messages are in the inbox when the run begins), RFC 3339 with
//     milliseconds in UTC, like event times. The payload is the message as
//     the seed file holds it (its segment terminators included).
//   - An inbox file of only whitespace and MLLP framing holds no messages
//     (as a snapshot's hl7/ reads it); a file that does not parse, is not
//     a regular file or is over 64 MiB is a seed error naming it, and the
//     inbox's files hold at most 256 MiB together. A folder named x.hl7 is
//     skipped.
//   - POST hl7/outbound answers 200 with the ACK whatever its code: AE and
//     AR are the protocol's own refusals, carried in the ACK (MSA.1, and
//     ERR.8 saying why). That includes a message refused because the
//     sandbox's memory budget (--max-memory) is spent: AR with ERR.3 207
//     and the budget named in ERR.8, over HTTP as over MLLP, never 507.
//     Only what cannot carry a message at all is an HTTP error, with the
//     sandbox's error body: a body over 16 MiB (413), a JSON body that is
//     not an object with a string "payload" (400), a Content-Type that is
//     neither JSON nor one of the raw types (415). A request without
//     Content-Type is read as the JSON wrapper when it starts with "{",
//     else as the raw message. Unknown members of the JSON wrapper are
//     ignored. These HTTP errors, and a method other than POST on
//     hl7/outbound (405), are bad input recorded as hl7_outbound events
//     (13.11) although no ACK was sent: ack_code, control_id and
//     message_type are null, and two fields beyond 13.10's say why,
//     "status" (the HTTP status) and "error" (the message, cut to 4 KiB).
//     Refusals of hl7/inbox and of paths that are not endpoints are
//     reads, not outbound messages: they are not events. Raw types taken: text/plain, x-application/hl7-v2+er7,
//     application/hl7-v2, application/hl7-v2+er7, application/x-hl7 and
//     application/edi-hl7v2.
//   - A message refused over HTTP is a Reject of the run's source like a
//     refused frame, its From "http " and the client's address.
//   - The memory budget is charged per kept frame with its bytes and its
//     segment table; captured messages stay until the run completes. Each
//     run's port serves at most 16 connections at once (more wait) and
//     holds at most 32 MiB of frames being received; the listener's other
//     bounds (16 MiB frames, 256 MiB kept, the idle timeout, accept
//     retries) are hl7.Listener's defaults.
//   - Events copy at most 4 KiB of a control id or message type; an empty
//     one (a header that could not be read) is null. An MLLP input that no
//     ACK can answer (a frame cut off by the connection closing, bytes
//     outside any frame) is an hl7_outbound event with a null ack_code
//     and its reason in "error", beside its Reject in the source.
//   - Snapshot names have four digits (0001.hl7), more when the run
//     captured more than 9999 messages, so that name order stays arrival
//     order. A frame holding a batch writes one file per message (each as
//     received, without the batch's header and trailer).
//   - hl7_mllp is the public URL's host with the port's bound port
//     (sim.PublicAddr): with --listen 0.0.0.0 --public-url URL it names
//     URL's host, as the HTTP endpoints and the ready line's sftp do, not
//     the bound [::]:PORT.
package hl7sim
