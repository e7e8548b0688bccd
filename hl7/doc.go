// Package hl7 reads HL7 v2 messages, captures the ones an agent sends over
// MLLP, and implements the hl7-structural assertion:
//
//	{"assert": "hl7-structural",
//	 "correlate_by": {"message_type": "ORM", "trigger_event": "O01"},
//	 "fields": [{"path": "OBR.4.1", "expected": "72148"},
//	            {"path": "PID.3[*].1", "expected": "W123456789"}]}
//
// passes when some captured message whose every correlate_by entry matches
// satisfies every field assertion. correlate_by keys are HL7 paths or the
// names message_type (MSH.9.1), trigger_event (MSH.9.2), message_structure
// (MSH.9.3), control_id (MSH.10), sending_application (MSH.3.1) and
// receiving_application (MSH.5.1). Paths follow SYNTAX.md.
//
// # Evidence
//
// hl7-structural reads a Source (attach one with Attach): MemorySource
// (parsed messages held in memory), FolderSource (the *.hl7 files of a
// sandbox snapshot's hl7/ folder, over any fs.FS, read through
// check.ReadFile when a check first asks and parsed once) or a Listener,
// an MLLP receiver that acknowledges and keeps what it is sent. A Source
// also reports its Rejects: inputs it received that are not messages.
//
// # Evidence shape
//
//	{"matched": CONTROL_ID|"#N"|null,
//	 "field_results": [{"path", "expected", "actual", "passed", "reason"?}],
//	 "candidates": N,
//	 "message_index": I|null,   // the best message's 0-based position among the captured ones
//	 "captured": M,             // how many messages the source held
//	 "rejected": [{"index", "from", "code"?, "control_id"?, "reason"}],  // only when some input was refused
//	 "rejects_not_listed": K}   // only when there were more rejects than the first 100 listed, or than a Listener kept
//
// # Parsing
//
// Parse reads one input (a message, several back to back, a batch or a
// file, MLLP-framed or not) into a Batch of Messages. It copies nothing:
// segments, fields and values are views of the input, located by one scan
// for segment terminators, and a field is found only when a path reads it.
// Parse allocates three times per input whatever its size. A parsed message
// is never altered, so Message.Bytes is its byte-for-byte re-encoding.
//
// Paths (SYNTAX.md) name a node: Get returns the first Value a path
// selects, GetAll, Values and Texts every one. A leaf reads with its escape
// sequences decoded, in one pass; a node with structure reads as encoded.
// A batch of more than 128 segments indexes its segments by ID on its first
// path read (once, in linear time), so a batch-wide read such as MSH[N].10
// takes constant time instead of a scan from the start. To read everything,
// iterate: Batch.All, Message.Segments (or Len and Segment), Segment.Fields,
// Value.Repetitions, Components and Subcomponents visit each node once
// without allocating (a path read finds its field by a scan of its
// segment, so reading every field by path costs more in long segments).
//
// Select reads a few paths from a large input in one pass that keeps no
// segment table, with the same results and errors as Parse followed by
// Batch.Texts: a 64 MiB file is read with nothing allocated in proportion
// to it but the selected text.
//
// Errors: a *ParseError (wrapping ErrHeader, ErrNoMessage, ErrStructure or
// ErrTooLarge) and a *PathError locate the problem with an assert.Location
// and render it with Location.Prefix; byte offsets are 0-based, lines and
// columns 1-based.
//
// # Decisions
//
// Parsing:
//   - Terminators are chosen per MLLP frame, or per input when it is not
//     framed: a frame that holds a CR (other than
//     the one after an end block) ends segments at CR or CRLF, and a lone
//     LF inside a segment is data, but for LFs (and CRs) that end the frame
//     or input: they end its last segment (rule 9: a CR file that ends in LF
//     reads its last field without the LF); otherwise LF ends segments. An LF right
//     before a CR ends the segment with it (LF CR is one line break, as
//     CRLF is), so files written with LF CR still read as their lines.
//   - Leading whitespace (spaces, tabs, a stray LF or CR), MLLP framing
//     bytes and a UTF-8 byte-order mark at the start of a segment are
//     skipped, and a start block at its end; blank lines are ignored. An
//     end block (0x1C) ends a segment wherever it is: it ends a frame.
//   - A segment ID is three upper-case ASCII letters or digits, followed by
//     the field separator or the end of the segment. Anything else is an
//     error (ErrStructure), including a line that continues the previous
//     segment after a stray line break in an LF file: a segment without an
//     ID cannot be addressed, and a sender must hear that it was not
//     understood.
//   - A delimiter may be any byte except a control character, a space, a
//     letter or a digit. Two to five encoding characters are read by
//     position, so "^~\" (no subcomponent separator) and "^~&" (& is then
//     the escape character) are valid, as the design reads them.
//   - Batch structure: FHS only first and once; BHS not inside an open
//     batch; BTS only closing a BHS, FTS only closing an FHS; nothing after
//     FTS; every other segment inside a message. Missing BTS and FTS are
//     accepted and trailer counts are not checked. An input with no MSH is
//     an error, even an empty batch.
//   - Text is bytes: MSH.18 (character set) is not applied, so values come
//     back in the sender's encoding (UTF-8 in practice).
//   - Inputs are limited to 2 GiB (offsets are 32-bit to keep the segment
//     table small).
//
// Paths and values:
//   - `*` is allowed for the segment occurrence and the field repetition
//     only. A path that stops at the segment (PID) reads the whole segment
//     as written. Segment IDs in paths are upper-case; positions are at
//     most 1,000,000.
//   - MSH.1 and MSH.2 (and BHS's, FHS's) are never split or unescaped;
//     MSH.2.1 reads MSH.2, MSH.2.2 is absent.
//   - \P\ decodes to the truncation character when the header declares
//     one; \Xhh..\ with an odd number or non-hex digits, an empty \\ and
//     every sequence not listed in SYNTAX.md stay as written.
//
// hl7-structural:
//   - correlate_by values compare with the text rules of package check
//     (expected null matches an absent, empty or "" value; a wildcard path
//     matches when any selected value does). Entries are applied, and named
//     in details, in key order.
//   - Evidence "matched" is the message's control id (MSH.10), or #N, its
//     0-based position among the captured messages, when it has none.
//   - A reject's "index" is its 0-based position among the inputs the
//     source received: files in name order (FolderSource), frames and runs
//     of stray bytes in arrival order (Listener). "rejected" is left out
//     when nothing was refused, so sources that never refuse anything
//     (MemorySource) report what they always did.
//
// FolderSource:
//   - It reads *.hl7 in the folder itself (not subfolders, and a folder
//     named x.hl7 is not a file), in name order. A file of only whitespace
//     and framing holds no messages. A file that cannot be read (not a
//     regular file, over the cap, a link out of the snapshot) makes the
//     source an error; a file that does not parse is a Reject whose error
//     names the file, line, column and segment.
//
// Listener:
//   - ACKs use original-mode codes (AA, AE, AR) whatever MSH.15/16 ask. The
//     ACK's MSH swaps sender and receiver, echoes MSH.11 and MSH.12
//     (defaulting to P and 2.5), reads MSH.9 ACK^<trigger>^ACK and takes
//     MSH.10 ACK<n>. The ACK of a header that cannot be read is written
//     with the default delimiters, in the sender's field separator only
//     when that is none of ^~\& (so the ACK always parses). A refusal
//     adds ERR with ERR.3 from HL7 table 0357 (100 segment sequence error,
//     101 required field missing, 102 data type error, 207 otherwise),
//     ERR.4 E and the reason in ERR.8.
//   - One ACK per frame. A frame holding a batch is kept whole and ACKed
//     with its first message's control id. A message whose MSH has no
//     message type (MSH.9.1) or no control id (MSH.10), such as a bare
//     MSH|^~\&|, is refused with AR (ErrMissingField): it can be neither
//     acknowledged by id nor told apart.
//   - The ACK is written as soon as the end block arrives; the CR that
//     should follow it is not waited for (a sender that omits it still
//     hears back), and is skipped as whitespace before the next frame.
//   - A frame over MaxFrameSize is read to its end and discarded, and
//     refused with AR; the connection stays usable. Bytes other than
//     whitespace outside frames, and a frame cut off by the connection
//     closing or by the idle timeout, are recorded as rejects without an
//     ACK.
//   - Memory is bounded as a whole. MaxConns connections are served at
//     once (more wait in the kernel's backlog). Frames being received share
//     MaxPendingBytes: a frame that needs more waits (its sender held back
//     by TCP flow control) while other frames that hold budget make
//     progress, and is refused with AR (ErrBusy, "send again later") when
//     it cannot fit alone, when every frame that holds budget is waiting
//     (so that one always finishes), or after the idle timeout. Kept
//     messages are limited to MaxCaptureBytes (then AR, ErrBusy). Reject
//     records are kept up to MaxRejectBytes and counted beyond it.
//   - IdleTimeout closes a connection that sends nothing, or does not read
//     its ACK, for that long (deadlines are moved at most every quarter of
//     the timeout, so a silent connection closes after 3/4 of it to all of
//     it). Shutdown closes idle connections at once.
//   - Submit takes one input from another transport (a sandbox's HTTP
//     endpoint) by a frame's rules, into the same list of messages and
//     rejects, and returns the ACK: one capture list, whatever the
//     transport. Admit lets the owner refuse a frame with AR past a budget
//     of its own (charged with the frame's bytes and its segment table);
//     Answered hears of every ACKed input, kept or refused, in the order
//     of Messages and Rejects, so an event log kept from it agrees with
//     them.
//   - Accept errors that pass (EMFILE, ENFILE, ENOBUFS, ENOMEM, an aborted
//     or reset connection, EINTR, EAGAIN, a timeout) are waited out with a
//     backoff from 5 ms doubling to 1 s; any other error ends Serve.
package hl7
