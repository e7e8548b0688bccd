// Package x12sim is assay serve's X12 clearinghouse (DESIGN.md 13.6): it
// answers an agent's eligibility (270), claim status (276) and prior
// authorization (278) requests from the run's payer ledger (package
// payer), so that the 271, 277 and 278 it gets agree with the portal and
// the phone line, and it records every exchange for x12-response criteria.
//
// # What it serves
//
// Endpoints (every one POST, with the run's or the operator's token):
//
//	x12          BASE/x12                       raw X12 in, raw X12 out (application/edi-x12)
//	x12_core     BASE/x12/core                  CAQH CORE real-time HTTP+MIME (Phase II, rule 2.2.0)
//	eligibility  BASE/clearinghouse/eligibility the hosted platform's JSON call; also
//	                                            /sandboxes/ID/clearinghouse/eligibility
//
// A request is one interchange holding one functional group with one
// 270, 276 or 278 of its 5010 guide (X279, X212, X217). The answer is a
// 271, 277 or 278; an ISA that cannot be read gets a TA1 (TA104 R); a
// request with envelope findings, another transaction set or version, or
// more than one group or set gets a 999 whose IK5 and AK9 say R. TA1 and
// 999 are HTTP 200, like any answer, and recorded. Every answer is parsed
// with assay's own parser (strictly) before it is sent; one with a finding
// is a 500, never sent, and its event says why.
//
// The rules: the envelope swaps ISA05/06 with ISA07/08 and GS02 with GS03,
// echoes the delimiters (ISA11 included), ISA12 and ISA15, numbers ISA13,
// GS06 and ST02 from the run's counters (ST02 0001 on), and dates
// everything by the run's clock; GS01 is HB, HN or HI, GS08 and ST03 the
// request's version; BHT01 and BHT03 are echoed, the HL tree is the
// request's levels numbered anew, and every TRN comes back as TRN*2. The
// 271, 277 and 278 follow 13.6 and 13.5: the provider and member checks in
// order (AAA 43, 51, 72, 75, 71, the first failure only, in the loop it
// concerns), the roster's name and birth date, EB*1 (or EB*6) with the
// plan's name, the benefits asked about (each once), STC from
// Ledger.Inquire, one Ledger.Submit and one HCR per 2000F service.
//
// Records: x12/records.json in the snapshot, every exchange in order,
// {"transaction", "request", "response", "metadata": {"request_id",
// "patient_id", "transport"}}; Run.Env attaches the same records live as
// the x12 source (an x12.MemorySource, rebuilt when an exchange is added,
// so checks share each record's parse). Events: one x12_exchange per
// request, {"transaction", "transport", "request_id", "patient_id",
// "status", "error"?}.
//
// # Decisions
//
// Where DESIGN.md and the brief are silent:
//
//   - Answers never echo ISA01 to ISA04 (authorization and security
//     information may be passwords): they read 00 and blanks. A sender or
//     receiver that cannot be echoed (too long, holding a delimiter) is
//     replaced by the payer's id, or UNKNOWN.
//   - ISA13 and GS06 share one counter (x12_interchange); ST02 has its own
//     (x12_set), written with four digits. A TA1 takes an ISA13 and no
//     GS06.
//   - A request whose ISA11 equals ISA16 is answered, not rejected: its
//     finding is the one the clearinghouse reads past, and the answer uses
//     the standard delimiters * ~ : ^ (13 "from a cold read"). Its pieces
//     are read as repetitions where an element repeats (EQ01) and as
//     components where it is composite (SV101). When its data holds one
//     of the standard delimiters (not a delimiter there, but one in the
//     answer) it gets a 999 instead, IK3/IK4 naming the segment and element, IK403 6 (invalid
//     character).
//   - The answer keeps the request's delimiters; when a value of the
//     policy holds one of them it is written again with the standard ones.
//     Free text of the policy (payer, plan and member names, benefit
//     messages) has delimiters it holds replaced by spaces, since X12 has
//     no escape. A request whose delimiters the x12.Writer refuses (a
//     letter, a digit, a space, non-ASCII) is answered with the standard
//     ones.
//   - 999 codes: IK502 4 for a wrong SE01, 3 for SE02, 2 for a missing SE,
//     1 for a set other than 270/276/278, I6 for another version, 5 for
//     other findings inside the set; AK905 5, 4, 3 for GE01, GE02 and a
//     missing GE, 2 for another version. Interchange findings (IEA) have no
//     999 code: the set's IK5 says R without one. A 270 whose EQ loop
//     repeats more than 99 times under one subscriber or dependent (the
//     most 005010X279A1 allows for 2110C/2110D) gets a 999: IK3 names the
//     100th EQ with IK304 4 (loop occurs over maximum times), no IK303
//     (X12 loop ids are 4 characters at most), IK502 5. Other loop repeat
//     counts of the guides are not enforced. A request with several
//     groups gets one 999 per group in one GS*FA; a request with no group
//     to acknowledge gets a TA1 R 024. TA105 for an unreadable ISA: 023
//     when the input ends inside it, 026 when its delimiters collide, 022
//     otherwise; TA101 to TA103 echo ISA13, ISA09 and ISA10 when they read
//     as numbers of their width.
//   - 271: the provider is the 2100B NM1 with NM108 XX; a 270 without a
//     2000B is answered without the provider check. A missing NM1 is
//     written as NM1*1P*2 or NM1*IL*1 so the AAA has its loop. After a
//     failure the levels below are echoed (TRN, NM1) without AAA or EB.
//     The date of service is the subscriber's first DTP*291 (D8, or the
//     start of an RD8); one that cannot be read is AAA*N**57*C. A
//     dependent (2000D) is asked about: the roster has subscribers only,
//     so the subscriber's loop gets NM1 and DMG and no EB, and the
//     dependent's 2100D AAA*Y**67*C (patient not found). Benefits come in
//     the order the request asks service types (EQ01 repetitions, across
//     every EQ), each benefit once, with EB03 the service type that
//     brought it.
//   - 277: BHT02 is 08 and BHT06 DG, as X212 has them (13.6's BHT02 11 is
//     the 278's); each 2200D/2200E claim (a TRN, up to its service lines)
//     gets TRN*2, STC (STC02 the run's date; STC05 the paid amount) and
//     its REF*EJ echoed; service lines are not answered.
//   - 278: the member is 2010C's (a dependent is echoed); diagnosis codes
//     are the second components of the event's HI elements; the service
//     date is 2000F's DTP*472, else the event's DTP*AAH (the start of a
//     range); units are SV104 (SV205) when a whole number of at least 1.
//     Each 2000F answers TRN*2, its UM, the HCR (with DTP*AAH for an
//     approval), its SV1/SV2/SV3 and, for need_more_info, MSG; the event
//     answers TRN*2, UM and HI. A service the ledger refuses (no procedure
//     code) is AAA*N**33*C in its 2000F, an event without services
//     AAA*N**33*C in 2000E; neither writes a row. The rows' memory is
//     reserved before the first is written.
//   - CORE: the required fields are checked in the order PayloadType,
//     ProcessingMode, PayloadID, TimeStamp, SenderID, ReceiverID,
//     CORERuleVersion, Payload (<Field>Required when missing or empty),
//     then PayloadType (one of the three request types, and the one the
//     Payload holds: <Field>Illegal), ProcessingMode RealTime (batch is
//     not served), CORERuleVersion 2.2.0 (else VersionMismatch), TimeStamp
//     as xsd:dateTime (RFC 3339). UserName, Password, PayloadLength and
//     Checksum are CORE fields and read past (the bearer token
//     authenticates; the password is never kept). A field CORE does not
//     have is <Name>Illegal, a field given twice <Field>Illegal, and a body
//     that is not multipart/form-data PayloadTypeRequired (it has no
//     fields at all). Errors answer PayloadType CoreEnvelopeError with
//     what the request gave echoed; refusals CORE has no code for carry
//     the sandbox's (PAYLOAD_TOO_LARGE, INSUFFICIENT_STORAGE, UNAVAILABLE,
//     INTERNAL). A payload the clearinghouse answers with a TA1 or 999 is
//     still Success: the envelope was fine, and the acknowledgment is the
//     Payload (PayloadType X12_TA1_Response_00501X231A1 or
//     X12_999_Response_005010X231A1). ErrorMessage is None on success.
//   - JSON eligibility: strict keys (another is 400 VALIDATION_ERROR
//     naming it); patient_id or member_id required (both must agree);
//     service_type_codes one or two capital letters and digits, at most
//     99; date_of_service YYYY-MM-DD. The 270 comes from ASSAYCLIENT with
//     trace ELIG and a six-digit counter of the run (BHT03 and TRN02) and
//     one EQ per code. benefits are those the 271 gives the subscriber
//     (service_types as the policy lists them; null for what a benefit
//     does not give), aaa every AAA of the 271 with its loop.
//   - Records and events: only a 200 is recorded. A refusal (a body over
//     1 MiB, a run's records past 64 MiB, the memory budget, a CORE or
//     JSON error) is an event with its HTTP status and error and no
//     transaction; a TA1 or 999 is an event of that transaction with the
//     reason in error. patient_id is the first NM1*IL's NM109 of the
//     request (a 999 or TA1 too, when the request could be read),
//     request_id its first TRN02 (270, 276) or BHT03 (278).
//   - Bounds: an X12 request (or CORE Payload) is at most 1 MiB (413), a
//     CORE envelope at most 32 parts of 4 KiB besides the Payload, a JSON
//     call 64 KiB; a run's records at most 64 MiB (413), charged to the
//     sandbox's memory budget (507 when it is spent). Exchanges of a run
//     are serialised, so control numbers, records and events share one
//     order.
package x12sim
