// Package payer is the payer behind assay serve's clearinghouse, portal and
// phone line: one policy file, payer/policy.json in a seed folder,
// says who is covered by which plan, which providers are on file, what each
// plan pays, how prior-authorization requests are decided and how claims
// progress, so an agent sees one truth whichever channel it uses.
//
// Parse reads the policy strictly: an unknown or repeated key, a wrong type,
// a missing required key, a date that is not YYYY-MM-DD, a member whose
// plan is not in plans, an invalid NPI, an unknown status. It reports every
// problem at once, each with its JSON pointer, line and column, as assay
// validate and assay serve print them.
//
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
// # The policy file
//
//	{"payer": {"name": "Acme Health Plan", "id": "ACME01"},
//	 "members": [{"member_id": "W123456789", "first_name": "JANE", "last_name": "DOE",
//	              "birth_date": "1984-03-12", "sex": "F", "plan": "gold",
//	              "coverage_start": "2026-01-01", "coverage_end": "2026-12-31"}],
//	 "providers": [{"npi": "1234567893", "name": "SPRINGFIELD ORTHOPEDICS"}],
//	 "plans": {"gold": {"name": "Acme Gold HMO", "benefits": [
//	    {"service_types": ["30"], "code": "B", "coverage_level": "IND", "amount": "25"},
//	    {"service_types": ["MR"], "code": "1", "auth_required": true, "message": "PRIOR AUTHORIZATION REQUIRED"}]}},
//	 "determinations": [
//	    {"procedure_code": "73721", "patient_member_id": "W123456789", "status": "approved", "valid_days": 30},
//	    {"procedure_code": "97110", "status": "approved", "delay_seconds": 172800}],
//	 "default_determination": {"status": "denied", "reason": "Not medically necessary", "reason_code": "0F"},
//	 "claims": [{"patient_control_number": "PCN-1", "member_id": "W123456789",
//	             "statuses": [{"category": "A1", "code": "19", "entity": "PR"},
//	                          {"category": "F1", "code": "65", "paid": "120.00"}]}]}
//
// payer, members and plans are required; the types Policy, Member, Provider,
// Plan, Benefit, Determination, Claim and ClaimStatus document every key
// (their json tags; strict:"required" marks the required ones). A benefit
// becomes a 271 EB segment (code EB01, coverage_level EB02, default IND,
// time_period EB06, amount EB07, percent EB08, auth_required EB11 Y,
// message a MSG); a claim status a 277 STC (category:code:entity, paid
// STC05); a determination's status is approved, denied, pending or
// need_more_info, and reason_code is the 278's HCR03 of a denial.
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
