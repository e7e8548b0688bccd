// Package spec builds assertion specs in Go: one struct per kind, for all
// sixteen kinds, whose Spec method writes the kind's assertion object with
// exactly the keys of the design, in its order, and cannot fail.
//
//	s := spec.HL7Structural{
//		CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM")},
//		Fields: []spec.Field{
//			{Path: "PID.3.1", Expected: spec.String("W123456789")},
//			{Path: "OBR.4.1", Expected: spec.Number(72148)},
//		},
//	}.Spec()
//	a, err := assert.Decode(s) // validated like a spec read from a file
//
// A Spec is an assert.Spec: put it in an assert.Criterion, send it with the
// client (which re-exports these types), or decode it through a registry.
// Spec only writes; it does not validate what the kind's schema checks
// (run_count's bounds, exactly one of sftp's path and path_pattern): the
// registry does that when the spec is decoded, exactly as for a spec read
// from a file, so a hand-built spec can never be judged by other rules than
// a written one.
//
// The criteria kinds (FHIRResourceState, HL7Structural, X12Response,
// PortalStateMatch, SFTPFilePresent, VoiceTranscript) write
// {"assert": KIND, ...}; the ten cli-bench kinds (ExitCode, OutputContains,
// OutputEquals, ErrorContains, FileExists, FileContains, Ran, NotRan,
// RunCount, Verify) write {"assert": KIND, KIND: VALUE}, which the registry
// reads like the single-key {KIND: VALUE} of a cli-bench.yaml.
//
// # Values
//
// Expected values are a sealed type, Value, made by String, Number, Bool,
// Null (the zero Value), ParseNumber (a literal kept as written) and Of (a
// Go scalar known only at run time). Since no other Value exists, every
// spec has a JSON form. Optional members are small value types, not
// pointers: run_count's bounds are OptionalInt (spec.Int(3)), verify's
// output checks OptionalString (spec.Text("ok")); their zero values leave
// the member out. One Field type ({Key or Path, Expected}) serves every
// kind with fields.
//
// The package imports only assert (and the standard library).
//
// # Decisions
//
//   - Keys with a documented default (search, correlate_by, fields,
//     assertions, parse_json, speaker, contains, not_contains) are always
//     written, so the object says what it checks: nil maps as {}, nil lists
//     as [], an empty Speaker as "any". Optional keys without a default
//     (portal, correlate_by's value, run_count's min and max, verify's
//     output_contains and output_equals) are left out when unset.
//   - A portal-state-match correlation Value of null is left out: the kind
//     reads a null value and a missing one alike (any value matches).
//   - An x12-response Transaction of "" is written as null (every recorded
//     pair).
//   - Map keys (search, correlate_by) are written sorted, so a spec is the
//     same bytes every time. A FHIR search parameter with one value is a
//     string, with several a list, and with none it is left out (as
//     url.Values.Encode leaves it out of a query).
//   - A Field writes "key" when Key is set and "path" when Path is set or
//     Key is not; Path "" with no Key is written as "path": "". What the
//     kind does not allow (a key outside sftp-file-present, both key and
//     path) is written as given and rejected by the schema on decoding.
//     Likewise both or neither of SFTPFilePresent's Path and PathPattern.
//   - Numbers are written as encoding/json writes them. JSON has no NaN
//     or infinity: Number writes NaN as the string "NaN" and infinities as
//     "Infinity" and "-Infinity". A string never equals a JSON number, so
//     such a field fails against any number, as a comparison with NaN
//     would; writing null instead would pass on a missing field.
//   - Strings are written as encoding/json writes them without HTML
//     escaping: "<", ">" and "&" as written, invalid UTF-8 as U+FFFD,
//     U+2028 and U+2029 escaped.
package spec
