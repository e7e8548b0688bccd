// Package payer is the payer behind assay serve's clearinghouse, portal and
// phone line (DESIGN.md section 13.5): one policy file, payer/policy.json,
// says who is covered by which plan, which providers are on file, what each
// plan pays, how prior-authorization requests are decided and how claims
// progress, so an agent sees one truth whichever channel it uses.
//
// Parse reads the policy strictly (every problem with its JSON pointer).
// A Ledger is one run's state at the payer: the prior-authorization
// requests every channel submitted, as rows of the portal's resource
// prior_auth_requests, and the claim inquiries answered so far. It reads the
// run's clock and mints numbers from the run's counters (PA-000001,
// AUTH000001), so two runs given the same requests in the same order hold
// the same rows.
//
// The package imports no domain package: the X12 clearinghouse, the portal
// and the phone line (in package serve) translate their protocols to and
// from it.
//
// # Rules
//
//   - A member is found by member_id exactly; coverage is active on a date
//     when coverage_start <= date and (no coverage_end or date <=
//     coverage_end).
//   - An NPI is valid when it is 10 digits passing the Luhn check with the
//     prefix 80840. providers lists the NPIs on file; without providers any
//     valid NPI is on file.
//   - A request gets the first determination whose given keys
//     (procedure_code, patient_member_id) all equal the request's, else
//     default_determination, else pending. With delay_seconds D it reads
//     pending until D seconds of the run's clock have passed since it was
//     submitted, then reads its status.
//   - An approval reserves a certification number (AUTH and six digits) when
//     it is determined, at submission, and shows it once the request reads
//     approved; valid_from is the service date, else the decision date, and
//     valid_to is valid_days (default 90) later, minus one day.
//   - The n-th inquiry about a claim answers statuses[min(n, len)-1].
//
// # Decisions
//
//   - Rows write times as RFC 3339 in UTC to the second, and dates as
//     YYYY-MM-DD. Fields a request did not give are null, diagnosis_codes
//     included.
//   - reason is set for denied and need_more_info requests, from the
//     determination; it is null while a request reads pending.
//   - default_determination may not name procedure_code or
//     patient_member_id (it applies to every request that no determination
//     matched).
//   - amount and percent are strings, as X12 writes them ("1500", "0.2").
package payer
