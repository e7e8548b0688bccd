// Package check is the machinery every criteria kind shares: field
// assertions ({path, expected}) against a document, value comparison, the
// field_results evidence, and candidate selection.
//
// A check collects candidates (search results, correlated messages, matching
// files, rows), evaluates its field assertions against each with JSONField
// or TextField, and lets BestOf pick the best: the candidate with the most
// fields passed, the first on ties. Match.Result then gives the check's
// result: passed when a candidate satisfies every field (with no fields,
// when there is a candidate), the best candidate's fraction of fields as the
// score, and the evidence
//
//	{"matched": KEY|null, "field_results": [{path, expected, actual, passed, reason?}], "candidates": N}
//
// Comparison rules. JSON documents (FHIR, portal rows, SFTP JSON): numbers
// compare numerically (5 equals 5.0; plain decimals exactly, so 20-digit
// identifiers compare digit for digit), strings and booleans exactly, a
// string never equals a number or boolean (the reason says the types
// differ), and expected null passes when the path is missing or null. Text
// documents (HL7, X12): an expected string compares exactly, an expected
// number passes when the text parses to the same number, an expected boolean
// passes on the text "true" or "false", and expected null passes when the
// value is absent, empty or HL7's explicit null "".
//
// A path that selects several values passes when any of them matches;
// actual is then the list of values seen (two or more), the one value, or
// null. JSON paths use gjson's syntax; SYNTAX.md beside this file is the
// grammar as a table of examples.
//
// Evidence files are read with ReadFile (regular files only, at most a
// per-file cap) through DirFS (confined to the snapshot); CapTotal bounds
// what one source reads in all (DESIGN.md section 12 rule 17).
//
// Decisions where the design is silent: a failing string comparison says
// when the values differ only in case or surrounding whitespace, since that
// is the usual cause; numbers written with an exponent compare as float64
// (so a huge exponent cannot make the exact comparison allocate without
// bound); a final '#' segment (gjson's array length) selects one value. The
// total cap counts each file name once (reading it again costs nothing
// more), and two names of one file (hard links, or a link and its target)
// twice: a source reads and parses each name on its own, so that is what
// it costs; counting by file identity would let 60 names of one 60 MB file
// cost 3.6 GB to parse while charging 60 MB. A folder source checks the
// sizes of all its files against the cap before reading any (FitTotal),
// so a folder too large in all fails at once; what is read counts too, so
// a file that grows while read is stopped at the cap. A file past the
// total is ErrTotalTooLarge, not ErrTooLarge: a check may leave out a file
// over the size cap, but one past the total makes it status error.
package check
