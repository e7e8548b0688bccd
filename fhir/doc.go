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
//     check.ReadFile (regular files only, capped), all of them together
//     within the total cap of check.CapTotal (256 MiB by default, checked
//     on their sizes before any is read).
//   - *Client (NewClient): any FHIR R4 server over REST.
//   - URLSource(text, token, maxFileSize, opts...): the Client for the server a
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
// What a search reads is bounded and confined (DESIGN.md section 12 rules 17
// and 18): the pages of one search together hold at most WithMaxTotalSize
// bytes (256 MiB by default; past it an error wrapping
// check.ErrTotalTooLarge that names the cap, however fresh each next link
// is); a redirect to another origin, of the first request or of any page,
// is refused (origin.ErrLeftOrigin), not followed without the token: what
// another origin sends is not this server's evidence; a body over its cap,
// a redirect loop and such a redirect are final, never retried. Every
// token the client sends (a token source's too, as it changes) is scrubbed,
// in every spelling a server may echo it in (as written, JSON- or
// URL-escaped), from each response's body, status line and headers before
// anything reads them, and from every error: an OperationOutcome, an HTML
// error page or a resource that echoes the Authorization header puts
// "[REDACTED]" into details and evidence, never the token. BackendServices
// scrubs the same way what proves the client's identity (ClientSecret, as
// written and as sent, the Basic credentials in base64, the signed
// assertion) from its errors and TokenError's Body, so a token endpoint
// that echoes them gets none into a search's error either.
//
// # The store
//
// A Store holds resources of any type, loaded from resources and Bundles
// or written through Create, Update, Delete and Transact (or the Handler);
// Read, VRead and History return them. LoadJSON and LoadFS apply a Bundle
// of type transaction as a transaction (below), so that a seed of
// Synthea's bundles loads as a FHIR server would load it; the entries of
// a collection, batch, searchset or history Bundle are stored as they are
// (a urn:uuid reference becomes Type/id). A loaded meta.lastUpdated is
// kept; the load time fills it only when missing. meta.versionId counts
// versions from 1 (a loaded one is kept). Client-chosen ids are any FHIR
// id (1 to 64 letters, digits, '-' and '.'), digits alone included.
//
// Every write is all or nothing: it runs under the store's write lock and
// logs how to undo each change, so a transaction that fails, or a write
// past a bound, leaves the store exactly as it was (indexes included),
// and readers never see half of one.
//
// # Transactions and batches
//
// POST [base] (Store.Transact) takes a Bundle of type transaction or batch
// (R4 http.html#transaction). Entries run in R4's order, whatever their
// order in the Bundle: DELETE, then POST, then PUT, then GET and HEAD; the
// response Bundle (transaction-response, batch-response) lists them in the
// Bundle's order, each with response.status ("201 Created"), location
// (Type/id/_history/vid) for writes, etag (W/"vid") and lastModified, and
// the resource (a searchset or history Bundle for a GET).
//
//   - A transaction is all or nothing: the first entry that fails fails
//     it, with that entry's OperationOutcome and status (a BundleError
//     naming the entry), and nothing is written. A batch runs each entry
//     on its own; a failed entry's response carries its status and
//     outcome.
//   - Identities first: every create's id and every conditional match is
//     worked out before anything is written, so an entry may refer to any
//     other's fullUrl (urn:uuid or urn:oid), cycles included; a JSON string
//     equal to an entry's fullUrl becomes its Type/id, and a reference to a
//     urn no entry names is a 400. Two entries may not change one resource
//     (400).
//   - request.ifNoneExist (and the If-None-Exist header): no match
//     creates, one match answers 200 with it and writes nothing, more
//     answer 412.
//   - PUT Type?query (conditional update): no match creates (with the
//     resource's id if it has one), one match is updated (a different id
//     in the resource is a 400), more answer 412. DELETE Type?query: no
//     match is a 204, one is deleted, more answer 412.
//   - request.ifMatch (and If-Match): W/"vid" or "vid" must name the
//     current version, else 412 (a resource that does not exist fails it
//     too, as RFC 9110 has it).
//   - Conditional references, "reference": "Type?query", in what the
//     transaction wrote are resolved after its writes (R4's step 5), each
//     to its one match: none is a 404, several a 412, failing the whole.
//   - PATCH is not supported (405); an unknown method, a url that is not
//     relative to the base or does not suit its method, an entry without
//     request, a resource of another type than its url are 400s.
//
// GET [type]/[id]/_history answers a history Bundle of the kept versions,
// newest first (a deletion as a DELETE entry without resource; _count and
// _offset page it).
//
// # Bounds
//
// A store holds at most DefaultMaxBytes (256 MiB) of resource JSON, every
// kept version counted as stored (WithMaxBytes), and at most
// DefaultMaxVersions (100) versions of one resource (WithMaxVersions): a
// write drops the oldest, whose vread then answers 410.
// WithMaxCurrentBytes bounds the current versions alone, and WithReserve
// sets a hook each write consults with the bytes it adds before it
// commits (a sandbox charges its memory budget through it). A write past
// a bound is refused with a BoundError naming it (HTTP 507); a write that
// does not grow what a bound counts (a delete, a shorter update) never
// passes it, though the Reserve hook may still refuse the layer a clone
// makes on its first write to a type. A request body with a key repeated
// in any object (which JSON parsers read differently) or a meta that is
// not an object is a 400;
// JSON nested deeper than MaxDepth levels is refused wherever it is read.
//
// # Clone
//
// Store.Clone copies a store in constant time (about half a microsecond
// and 350 bytes, whatever it holds): the copy shares the tables of its
// origin, which no store changes again. The first write to a shared
// table, in either store, gives the writer a table of its own in two
// layers: the shared one as its base, read-only and searched through the
// indexes it was given once (by whichever store searched it first, under
// a lock of its own, so that clones search them at once), and an own
// layer that holds what the writer changed (a changed base resource moves
// there, its base position marked). That first write costs some
// microseconds and a few hundred bytes whatever the base holds (it used
// to copy the type's table: about 2 ms and 900 KB for 5,000 resources),
// and a store's memory grows with what it wrote; the resource JSON itself
// is never copied. The sandbox gives every run a clone of the seed's
// store, with WithClock set to the run's clock.
//
// # Search
//
// Search parameters come from the official R4 definitions
// (search-parameters.json of FHIR 4.0.1), generated into params_gen.go by
// `go generate` for every R4 resource type (1,700 parameters for the 146
// types), plus those of Resource (_id, _lastUpdated, _tag, _profile,
// _security, _source) for every type; the generator also reads the
// resource definitions for each type's summary and mandatory elements
// and the element types token parameters reach. The FHIRPath expressions
// are evaluated over the raw JSON. Semantics:
//
//   - string: starts-with, ignoring case and accents ("eve" finds Eve and
//     Evelyn, not Severine; "muller" finds Müller); :exact is the whole
//     string, case- and accent-sensitive; :contains anywhere, folded. A
//     HumanName or Address matches on any of its parts.
//   - token: code, system|code, |code (no system), system|; codes and
//     systems case-sensitive, but for tokens over strings (a ContactPoint's
//     value: email, phone, telecom; string elements such as version),
//     which R4 compares ignoring case (smyth2@example.org finds
//     smyth2@Example.org); :not (no value matches, resources without one
//     included); :text (starts-with on CodeableConcept.text,
//     Coding.display, Identifier.type.text); :of-type=system|code|value
//     (an Identifier whose type has that coding, and that value). A
//     ContactPoint matches on its value.
//   - reference: Type/id and a bare id (any type) match references to this
//     server's resources: relative ones, and absolute ones under its base
//     URL; an absolute URL matches the reference as written, and, when it
//     is this server's base joined with Type/id, references to that
//     resource (another server's base never does). :Type narrows to a
//     type; :identifier=system|value matches Reference.identifier (a
//     logical reference).
//   - date: prefixes eq ne gt lt ge le sa eb ap; every value, searched or
//     stored, is the range it stands for (2024 is the whole year, a
//     Period's missing end is open); eq means the search range contains the
//     value's range, per R4.
//   - number and quantity: the same prefixes; eq and ne use the search
//     number's precision (100 is [99.5, 100.5)); quantity takes
//     number|system|code or number||code (code or unit).
//   - uri: exact.
//   - :missing=true|false on any parameter; OR by comma, AND by repetition.
//   - Chains: subject:Patient.name=eve, patient.identifier=sys|val,
//     patient.organization.name=acme (several levels): the references
//     must name resources that match the rest of the chain.
//   - Reverse chains: _has:Observation:patient:code=1234 (the resources
//     some Observation that matches code=1234 refers to by patient),
//     nested (_has:...:_has:...), and mixed with chains.
//   - _include and _revinclude (SourceType:param, SourceType:param:Target,
//     SourceType:*, *; :iterate): the Handler's searchset adds, for the
//     matches of its page, the resources they refer to (or that refer to
//     them), each once, as entries whose search.mode is include; the
//     matches are marked match, and total counts the matches alone.
//   - System search: GET [base]?_type=Patient,Organization&... searches
//     those types (each must define every parameter given); GET [base]?...
//     without _type searches every type the store holds, with the
//     parameters every resource has.
//   - _summary (true, text, data, count, false) and _elements shape the
//     matches (and id, meta and the mandatory elements stay), marked with
//     the SUBSETTED tag; _summary=count answers the total alone.
//   - _count, _sort (several keys, - for descending), _total
//     (none|estimate|accurate; the total is always exact), _format (JSON
//     only). _count and _offset size the Handler's pages; Store.Search,
//     as a Source, returns every match, and only the matches.
//   - An empty value (name=, or an empty OR item) is an error, not a
//     parameter left out.
//   - In a query string a + is a space, as in a form (servlet-based
//     servers read it so): a zone offset's + travels as %2B. The client
//     sends a space as %20 and a + as %2B, and the Handler's links do too.
//
// Any other parameter, modifier or composite or special parameter is a
// SearchError (HTTP 400): never ignored. :in, :not-in, :below and :above
// answer that they need a terminology server (or a hierarchy), _text and
// _content that they need a text index.
//
// The Handler serves a Store (search GET and POST _search, system search
// GET [base] and POST [base]/_search, read, vread, history, create,
// update, delete and their conditional forms, transaction and batch
// Bundles, searchset Bundles with self and next links and total,
// OperationOutcome errors, bounded bodies and pages, Prefer:
// return=minimal); Server owns a listener with a connection cap, idle
// timeout and accept retries.
//
// # Decisions
//
//   - A Bundle the server writes (a searchset, a history, a transaction or
//     batch response, the store's collection) leaves "entry" out when it
//     has none, as R4's JSON format allows no empty arrays; _summary=count
//     answers with total and no entry.
//   - Dates without a zone, stored or searched, are read as UTC; a value
//     with a time but no seconds stands for the whole minute, fractional
//     seconds for their own precision.
//   - ap means within 10% of the distance between now and the value, on
//     both sides (R4 leaves the amount to the server).
//   - _sort orders by a resource's lowest value ascending and its highest
//     descending; resources without the value come last either way; ties
//     keep load order.
//   - Indexes: the values of a parameter are extracted for every resource
//     of a layer on the first search that uses it (its column); a token or
//     reference parameter also gets a map from code or referenced id to
//     positions, and a date parameter a list of positions sorted by range
//     start, so that a token, reference or chain search, or a date search
//     with eq, sa, lt, le or eb, over 100,000 resources visits only its
//     candidates (a chain over 100,000 Observations takes tens of
//     microseconds); other prefixes compare the precomputed ranges of
//     every resource. Writes keep the columns exact and add to the maps
//     and lists, which may still name a position under a value it no
//     longer holds (a search checks every candidate against the columns)
//     and are rebuilt when what was added passes their size, so that a
//     write costs the same whatever the layer holds and a search after a
//     write rebuilds nothing. The first search of a parameter builds its
//     index (about 0.25 s for a token over 100,000 resources);
//     Store.Index builds chosen ones ahead, at load time. Building every
//     parameter's index at load instead would cost hundreds of extractions
//     per resource, mostly for parameters a store is never searched by.
//   - The generated table holds 1,700 parameters for the 146 types (plus 8
//     of Resource); the 72 composite ones, the special one (Location's
//     near) and the two without an expression (_content, _query) are
//     refused as unsupported, and names the table lacks (_list, _filter,
//     _contained) as unknown.
//   - number: the comparison uses the prefixes and precision above (R4
//     has six number parameters, MolecularSequence's and ChargeItem's).
//   - A token parameter compares ignoring case when every element its
//     expression reaches is of type string or ContactPoint (the generator
//     follows the expression through the resource and data type
//     definitions): 57 parameters, the email, phone and telecom of
//     Patient, Practitioner, PractitionerRole, RelatedPerson, Person and
//     OrganizationAffiliation among them. An Identifier's value, though a
//     string, stays case-sensitive: the parameter is over Identifier.
//   - A chain without a type modifier searches every target type of the
//     reference that defines the next parameter (subject.name: Patient,
//     Group, Device, Location...); a type modifier that is not a target
//     is a 400. Chains and _has nest at most 8 levels. A _has whose
//     reference never names the searched type finds nothing (no error).
//   - _include=* (and SourceType:*) follows every reference parameter of
//     each match's type; :recurse, STU3's name, is read as :iterate.
//     Includes are worked out for the page's matches only, at most
//     MaxIncluded (10,000) a page: past it the search is a 400 that asks
//     for smaller pages, never a silently shorter list. Included resources
//     are whole (_summary and _elements shape the matches).
//   - _summary=true keeps the elements the definitions mark summary and
//     the mandatory ones; text keeps text and the mandatory ones; data
//     drops text. _summary and _elements together are a 400. _elements
//     takes element names (Patient.name is read as name). A subsetted
//     resource gets meta.tag SUBSETTED, as R4 asks.
//   - _type on a search of one type is a 400 (it selects the types of a
//     system search). A system search orders by type (_type's order, or
//     byte order) then as each type's search does; _sort sorts across
//     types.
//   - The store on its own (Store.Search) has no base URL: an absolute
//     reference URL matches only references written so. The Handler
//     passes its BaseURL (or the request's http://Host), and Transact
//     its baseURL, to every search, chains, _has and includes included.
//   - A GET in a transaction or batch answers the first page the query
//     asks for at the package's page sizes (DefaultPageSize), with what it
//     includes.
//   - _id searches find resources by id directly, without a column.
//   - The client checks the self link by parameter name (modifier
//     included), not by value: servers normalise values legitimately. A
//     searchset without a self link is refused when parameters were asked;
//     WithoutSelfLinkCheck opts out. An entry without search.mode is a
//     candidate when its resourceType is the one searched.
//   - A raw '+' in a query is a space (rule 25); a date whose offset then
//     reads as a space is a 400 that says to send the + as %2B.
//   - A Bundle of type document or message is stored as a Bundle resource,
//     not unpacked.
//   - The candidates are the match entries of resource_type; an entry of
//     another type marked match (a server bug) is not a candidate.
//   - A create in a transaction whose fullUrl is urn:uuid:X gets the id X
//     when X is a valid id the store never held (Synthea's ids survive, and
//     runs given the same Bundle mint the same ids); otherwise, and for
//     every other create, the store mints "assay-N", N counting per store.
//   - Conditional matches (ifNoneExist, PUT and DELETE Type?query) are
//     searched after the transaction's deletes and before its creates and
//     updates, as Medplum does; conditional references after the writes,
//     as R4 orders them. A batch's entries run in the same order, each on
//     its own, and one may refer to the fullUrl of an entry run before it.
//   - A conditional reference with no match answers 404 and one with
//     several 412 (R4 says only that the transaction fails); a reference to
//     a urn no entry names is a 400 (R4 bundle.html resolves urns within the
//     Bundle only).
//   - An empty transaction is answered with an empty
//     transaction-response; a DELETE of a resource the store does not hold
//     fails the transaction (404), as the lone DELETE does; a failed GET in
//     a transaction fails it too.
//   - Response statuses carry their reason phrase ("201 Created"); a
//     DELETE answers "204 No Content" (R4 allows 200 or 204).
//   - In a history Bundle the first version is a POST and later ones PUT
//     (the store does not remember whether a create came by PUT).
//   - The bytes a store holds are the resource JSON as stored, meta
//     included; the Reserve hook is also charged for the layer a clone
//     makes on its first write to a type (256 bytes; a clone of a clone
//     that wrote copies that writer's own layer: an estimate of 112 bytes
//     a resource and 24 a built column), never given back. Bounds are
//     checked when a write (a whole transaction) commits.
//   - Repeated keys and a meta that is not an object are refused in what
//     requests send; files loaded keep today's leniency (a malformed meta
//     stays as written), since evidence is read as it was captured.
//   - MaxDepth (128) applies to everything the store reads, files
//     included: gjson's validator recurses once per level, and 8 million
//     levels of [ (16 MiB) overflowed the goroutine stack.
//
// Paths: see ../check/SYNTAX.md.
package fhir
