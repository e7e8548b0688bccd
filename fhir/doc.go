// Package fhir implements fhir-resource-state, the assertion that a FHIR R4
// server holds a resource in a given state, together with the evidence it
// reads: a search client for any FHIR R4 server, and an in-memory FHIR store
// with the R4 search rules, served over HTTP so that it doubles as a FHIR
// server for tests and agents' sandboxes.
//
// # The kind
//
//	{"assert": "fhir-resource-state",
//	 "resource_type": "Appointment",
//	 "search": {"patient": "Patient/123", "date": ["ge2024-03-01", "lt2024-04-01"]},
//	 "fields": [{"path": "status", "expected": "booked"},
//	            {"path": "participant.0.actor.display", "expected": "Dr Who"}]}
//
// The check runs GET [base]/{resource_type}?{search} (a list value repeats
// the parameter: AND), following next links to the end; every match entry
// is a candidate. With no fields it passes when there is a candidate;
// otherwise when one candidate satisfies every field, scoring the fraction
// of fields the best candidate satisfies (ties: the first in the server's
// order). Paths are gjson paths over the resource JSON (check/SYNTAX.md):
// dotted members, numeric segments index arrays from 0, "#" selects every
// element (identifier.#.value passes when any matches) and queries such as
// identifier.#(system=="urn:mrn").value. Values compare by the JSON rules of
// package check: numbers numerically, strings exactly, a string never equals
// a number, expected null passes on a missing or null value.
//
// A search that cannot be run (no source attached, an unreachable server, a
// timeout, an OperationOutcome, a server that ignored a parameter, a folder
// file that is not JSON or has no resourceType, a bad date in the search) is
// status error: score 0, and callers can tell it from a real failure.
//
// # Evidence
//
// The Source interface runs a search; attach one with Attach.
//
//   - *Store: the in-memory store, itself a Source.
//   - MemorySource(docs...): resources and Bundles in memory, loaded into a
//     Store on first use.
//   - FolderSource(fsys, maxFileSize): the sandbox fhir/ folder: its *.json
//     files (resources or Bundles) loaded lazily, once, each read through
//     check.ReadFile (regular files only, capped).
//   - *Client (NewClient): any FHIR R4 server over REST.
//   - URLSource(text, token, maxFileSize): the Client for the server a
//     sandbox's fhir/fhir.url names. Package sandbox attaches it when the
//     folder holds fhir.url (bearer token from ASSAY_FHIR_TOKEN), as it
//     attaches sftp.URLSource for sftp/sftp.url: reading the environment
//     and choosing between a folder and a live server is the sandbox's.
//
// # Evidence shape
//
//	{"matched": "Appointment/a1" | null,
//	 "field_results": [{"path", "expected", "actual", "passed", "reason"?}],
//	 "candidates": 2,
//	 "search": "Appointment?date=ge2024-03-01&patient=Patient/123",
//	 "version": "3" | null}
//
// version is the matched resource's meta.versionId.
//
// # The client
//
// Requests send Accept: application/fhir+json and Prefer: handling=strict, a
// bearer token (WithBearerToken, or a TokenSource such as BackendServices:
// SMART Backend Services client credentials with an RS384 or ES384 JWT
// assertion, or a client secret, cached until it expires, and asked for
// again once when the server answers 401) only to the base URL's origin, and retry by the shared policy (408, 429, 5xx but 501,
// connection failures; Retry-After honoured). Each attempt is bounded by a
// timeout and each body by a cap. The searchset's self link must name every
// parameter asked: a server that silently drops an unknown parameter returns
// everything, and that must not pass a check (IgnoredParameterError). Next
// links are followed as sent (absolute, relative or host-relative; never
// decoded and re-encoded, so a raw + stays a +), never to another origin,
// never twice (a loop), and at most MaxPages times (ErrPaging). Only entries
// whose search.mode is match are candidates. An OperationOutcome sent in
// place of a searchset (whatever the status) is an OperationOutcomeError; an
// HTML page or any other body that is not a FHIR JSON searchset, or a status
// other than 200, an HTTPError.
//
// # The store
//
// A Store holds resources of any type, loaded from resources and Bundles
// (collection, transaction, batch, searchset, history: their entries are
// stored; a transaction's urn:uuid references become Type/id) or written
// through Create, Update and Delete; Read and VRead return them. A loaded
// meta.lastUpdated is kept; the load time fills it only when missing.
// meta.versionId counts versions from 1 (a loaded one is kept).
//
// Search parameters come from the official R4 definitions
// (search-parameters.json of FHIR 4.0.1), generated into params_gen.go by
// `go generate` for Patient, Practitioner, Organization, Appointment,
// Encounter, Coverage, ServiceRequest, Observation, Condition, Task,
// Communication, DocumentReference, Claim, CoverageEligibilityRequest and
// CoverageEligibilityResponse, plus those of Resource (_id, _lastUpdated,
// _tag, _profile, _security, _source) for every type. Their FHIRPath
// expressions are evaluated over the raw JSON. Semantics:
//
//   - string: starts-with, ignoring case and accents ("eve" finds Eve and
//     Evelyn, not Severine; "muller" finds Müller); :exact is the whole
//     string, case- and accent-sensitive; :contains anywhere, folded. A
//     HumanName or Address matches on any of its parts.
//   - token: code, system|code, |code (no system), system|; codes and
//     systems case-sensitive; :not (no value matches, resources without
//     one included); :text (starts-with on CodeableConcept.text,
//     Coding.display, Identifier.type.text). A ContactPoint matches on its
//     value.
//   - reference: Type/id, a bare id (any type), an absolute URL (the
//     reference as written, or a relative one with the same Type/id), and
//     the :Type modifier.
//   - date: prefixes eq ne gt lt ge le sa eb ap; every value, searched or
//     stored, is the range it stands for (2024 is the whole year, a
//     Period's missing end is open); eq means the search range contains the
//     value's range, per R4.
//   - number and quantity: the same prefixes; eq and ne use the search
//     number's precision (100 is [99.5, 100.5)); quantity takes
//     number|system|code or number||code (code or unit).
//   - uri: exact.
//   - :missing=true|false on any parameter; OR by comma, AND by repetition.
//   - _count, _sort (several keys, - for descending), _total
//     (none|estimate|accurate; the total is always exact), _format (JSON
//     only). _count and _offset size the Handler's pages; Store.Search,
//     as a Source, returns every match.
//   - An empty value (name=, or an empty OR item) is an error, not a
//     parameter left out.
//
// Any other parameter, modifier (:above, :below, :in, :identifier, ...),
// composite or special parameter, chain or _include is a SearchError
// (HTTP 400): never ignored.
//
// The Handler serves a Store (search GET and POST _search, read, vread,
// create, update, delete, searchset Bundles with self and next links and
// total, OperationOutcome errors, bounded bodies and pages); Server owns a
// listener with a connection cap, idle timeout and accept retries.
//
// # Decisions
//
//   - Dates without a zone, stored or searched, are read as UTC; a value
//     with a time but no seconds stands for the whole minute, fractional
//     seconds for their own precision.
//   - ap means within 10% of the distance between now and the value, on
//     both sides (R4 leaves the amount to the server).
//   - _sort orders by a resource's lowest value ascending and its highest
//     descending; resources without the value come last either way; ties
//     keep load order.
//   - Indexes: the values of a parameter are extracted for every resource
//     of the type on the first search that uses it, and then kept up to
//     date by every write; a token parameter also gets a code -> resources
//     map and a date parameter a list sorted by range start (rebuilt after
//     writes), so that a token search, or a date search with eq, sa, lt, le
//     or eb, over 100,000 resources visits only its candidates (well under
//     a millisecond); other prefixes compare the precomputed ranges of
//     every resource of the type. The first search of a parameter builds its
//     index (about 0.25 s for a token over 100,000 resources);
//     Store.Index builds chosen ones ahead, at load time. Building every
//     parameter's index at load instead would cost 305 extractions per
//     resource, mostly for parameters a store is never searched by.
//   - The generated table holds 305 parameters for the 17 types (plus 8 of
//     Resource); the 9 composite ones and the two without an expression
//     (_content, _query) are refused as unsupported, and names the table
//     lacks (_has, _list, _type, _text, chains) as unknown.
//   - number: no parameter of the 15 types is of type number, but the
//     comparison is implemented, with the prefixes and precision above.
//   - The client checks the self link by parameter name (modifier
//     included), not by value: servers normalise values legitimately. A
//     searchset without a self link is refused when parameters were asked;
//     WithoutSelfLinkCheck opts out. An entry without search.mode is a
//     candidate when its resourceType is the one searched.
//   - A query with a raw '+' whose value then holds a space is answered 400
//     by the Handler: the client almost surely meant a zone offset.
//   - A Bundle of type document or message is stored as a Bundle resource,
//     not unpacked.
//   - The candidates are the match entries of resource_type; an entry of
//     another type marked match (a server bug) is not a candidate.
//
// Paths: see ../check/SYNTAX.md.
package fhir
