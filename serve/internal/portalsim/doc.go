// Package portalsim is assay serve's payer portal (DESIGN.md 13.7): a REST
// API and a server-rendered web UI in front of the run's payer ledger
// (package payer), so a prior authorization sent through the portal, an
// X12 278 or the phone line is one row of the same truth.
//
// # What it serves
//
// Endpoints: portal = BASE/portal/ (the web UI), portal_api =
// BASE/portal/api (the REST API, the run's or the operator's bearer
// token). The hosted platform's /v1/benchmark-runs/ID/portal/... answers
// the same.
//
// REST, JSON in and out, errors as {"error": {"code", "message",
// "details"?}} with details [{"field", "message"}]:
//
//	POST prior-auths                          201, the row (payer.Row); Location names it
//	GET  prior-auths?patient_member_id=       {"data": [rows]}: the seed's, then the run's
//	GET  prior-auths/{auth_number}            the row as it reads now
//	POST prior-auths/{auth_number}/attachments  JSON {"filename", "document_type"?, "content_base64"}
//	                                          or multipart (file, document_type): 201, the attachment
//	GET  prior-auths/{auth_number}/attachments  {"data": [attachments]}
//	GET  patients?member_id=&last_name=&birth_date=  {"data": [{"member_id", "first_name",
//	                                          "last_name", "birth_date", "plan", "active"}]}
//	GET  providers?npi=                       {"data": [{"npi", "name"}]}
//
// Every prior authorization goes through the run's payer.Ledger (channel
// api, or web for the form), which checks it as every channel does: a
// missing required key, an unknown member, a provider_npi that is not a
// valid NPI or not on file, a service_date that is not YYYY-MM-DD, or units
// below 1 is 400 VALIDATION_ERROR naming the field, and nothing is stored.
//
// The web UI works without JavaScript: a login form (the run's
// credentials.portal), patient search (the start page), the list of
// requests, the prior-authorization form (inputs named as the REST keys),
// a status page per request (status and certification number first, then
// the details, the attachments and the upload form) and sign-out. Every
// input has a <label for>; errors sit next to the field they concern (the
// input gets aria-invalid and aria-describedby). Styles are inline; the
// pages load nothing else, and a Content-Security-Policy says so.
// Screenshots of every page, taken by the browser test, are in
// screenshots/ (README.md there shows them).
//
// State and snapshot: the portal's state is {SLUG: {RESOURCE: rows}}: the
// seed's resources, with prior_auth_requests (the seed's rows, then the
// ledger's as they read at that moment) and attachments (the seed's, then
// the run's) always present. Run.Env attaches it live, built anew each time
// a check reads it, so a delayed determination reads as it does when the
// check runs; the snapshot writes it, indented, to portal/state.json, and
// each uploaded document's bytes to portal/attachments/ATTACHMENT_ID (plus
// the file name's extension, lower-cased, when it is 1-10 letters or
// digits), so the manifest hashes the bytes the row's sha256 names.
//
// Events: one portal_action per call or page that does something (sim
// portal): {"action": login|search|submit|attach|view, "auth_number",
// "channel": api|web, "status", "error"?}.
//
// # Decisions
//
// Where DESIGN.md and the brief are silent:
//
//   - Seed. portal/portal.json is {"slug"} only; the slug matches
//     [A-Za-z0-9_-]{1,64}. portal/state.json holds that slug only (another
//     top-level key is a seed error: a typo would otherwise leave the
//     portal's rows out of every criterion). Rows are an array of objects or
//     an object of objects; no key may be written twice at any depth, and
//     rows nest at most 256 deep. Each problem names the file, the JSON
//     pointer, the line and the column. Both files are read once, as
//     evidence is (regular files, at most 64 MiB).
//   - Seeded requests. Rows of prior_auth_requests in the seed are history
//     the portal shows and serves (listed before the run's, found by
//     auth_number, a keyed row's key standing for it, open to attachments)
//     but never changes. Their auth numbers may not have the form the payer
//     mints (PA- and six digits): a run's own request would take the same
//     number. Seeded attachment ids are skipped when a run mints ids.
//   - Copy on write. The seed's rows are kept once, as JSON text, and
//     shared by every run; a run keeps only what it adds, and its state is
//     the seed's text with the run's rows appended in the seed's form
//     (array items, or members keyed by auth_number and attachment_id), so
//     the seed is never copied or changed.
//   - Patients: at least one of member_id, last_name and birth_date is
//     needed (400 otherwise, as at a payer's portal, which lists no roster);
//     member_id and birth_date match exactly, last_name without regard to
//     case. active is judged on the run's clock date (UTC).
//   - Providers: without npi, every provider on file; an npi that is not a
//     valid NPI is 400; a policy that lists no providers has every valid NPI
//     on file, and answers it with "name": null.
//   - Queries: a parameter a call does not take, or one given twice, is 400
//     naming it. JSON bodies are decoded strictly (unknown or repeated keys,
//     wrong types: 400 naming each field), at most 1 MiB for a
//     prior-authorization request. The web's forms and pages ignore fields
//     and parameters they do not show (a browser sends what a page holds);
//     the form takes diagnosis codes separated by commas, semicolons or
//     spaces, and a field left empty reads null in the row, as through the
//     API.
//   - GET prior-auths/{auth_number}/attachments lists a request's
//     attachments; the design has no call for that and an agent needs one.
//   - Attachments: the filename loses any folder (/ or \), must be
//     printable and at most 255 bytes; document_type is optional free text
//     of at most 64 characters (the web form offers a list); an empty file
//     is 400. A multipart upload takes only the fields file and
//     document_type (and the web's csrf_token); anything else, or a field
//     given twice, is 400 naming it; multipart without file is 400 naming
//     file.
//   - Upload bounds: an upload's request body is at most 16 MiB (MaxUpload),
//     the sandbox's cap on every request body (13.11), so a JSON upload,
//     base64-encoded, carries a document of about 12 MiB at most. The 64 MiB
//     the sandbox's size rules allow "an SFTP or files upload" is for writes
//     to the run's tree over SFTP and the files endpoint, whose files must
//     stay judgeable; a portal attachment is not one of them, so the general
//     cap applies. A larger body is refused with 413 before a byte is read
//     when Content-Length says more, else once that much has been read; a
//     run's attachments together at most 256 MiB (MaxRunAttachments, 413).
//     Bodies are read through the run's share of the sandbox's memory budget
//     (sim.Run.Reserve) as they arrive, so parallel uploads cannot exceed
//     --max-memory; past it the upload is 507 INSUFFICIENT_STORAGE and gives
//     back what it held. A kept document holds its size until the run
//     completes; a request row holds an estimate of its size. Uploaded bytes
//     go into the snapshot (above): a grader can open what the agent sent.
//   - Sessions: a random cookie (assay_portal_session; HttpOnly,
//     SameSite=Lax, Secure behind an https --public-url) whose path is the
//     run's portal as the browser reached it (BASE's path or the hosted
//     alias's). Sessions live until sign-out or until the run completes; a
//     run keeps at most 64 (MaxSessions), a new login ending the oldest.
//     A session is the run's own, so another run's cookie, sent to this
//     run's URL, is no session here.
//   - CSRF: each session has a random token that every form it shows
//     carries as csrf_token (a hidden input: hidden inputs take no label);
//     a post whose token is missing or another session's is 403 with a
//     page that says to reload. The login form has none (there is no session
//     yet, and it needs the run's password).
//   - Without a session, a page is 401 with the login form (which returns to
//     that page after sign-in, through a next field that may only name a path
//     below the portal), and a form post is 401 with the login form saying to
//     sign in and send again: a browser shows something useful, and an
//     agent sees a status it can act on. The portal's root without a session
//     is the login form with 200.
//   - Web statuses: a form with problems is 400 and shows the form again with
//     the values kept and each problem by its field; a successful post
//     redirects (303) to the page showing its result, so reloading does not
//     post twice. Events record the status answered (303 for those).
//   - Without a policy every portal endpoint answers 503 UNAVAILABLE naming
//     payer/policy.json (the web UI as a page saying so); the snapshot still
//     writes the seed's rows.
//   - Events add status (the HTTP status answered) and, for a refusal,
//     error (why) to the fields DESIGN.md 13.10 lists, so bad input is
//     recorded with its reason; they never hold a password, token or body.
package portalsim
