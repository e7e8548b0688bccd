// Package portal implements portal-state-match, which checks a web portal's
// final state: some row of a state resource, picked by a key column,
// satisfies every field assertion.
//
//	{"assert": "portal-state-match",
//	 "correlate_by": {"resource": "prior_auths", "key": "member_id", "value": "W123456789"},
//	 "assertions": [{"path": "status", "expected": "approved"}]}
//
// Evidence. The evidence is a Source: MemorySource over a State parsed from
// JSON (ParseState) or built from Go values (StateOf), or FolderSource over
// a folder holding state.json (what a sandbox snapshot's portal/ folder
// holds; read once, at most 64 MiB by default, regular files only). The state document is {resource: rows}, or, for
// criteria that name a portal, {portal: {resource: rows}}. Rows are an
// array of objects, or an object of objects keyed by each row's key value.
//
// Evidence shape:
//
//	{"matched": KEY|null, "assertion_results": [{path, expected, actual, passed, reason?}], "candidates": N}
//
// Decisions where the design is silent:
//
//   - The key column is a literal top-level member name, not a path.
//   - A row "has the column" when the member is a string, number or boolean;
//     null, objects and arrays key nothing. Values compare as text: a string
//     as itself, a number as written (so 5 matches "5", but 5.0 does not
//     match "5"), booleans as true/false.
//   - In keyed rows the object key is the row's key value for any key
//     column the criterion names.
//   - A resource that is neither an array nor an object holds no rows, and
//     array items that are not objects are counted as held but are never
//     candidates.
//   - The evidence's matched value is the best row's key value.
//
// Field paths and comparison are package check's: gjson paths, numbers
// compared numerically, strings and booleans exactly, null = missing or
// null.
package portal
