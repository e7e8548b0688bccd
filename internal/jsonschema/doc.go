// Package jsonschema is assay's JSON Schema (draft 2020-12) validator: it
// compiles a schema into an immutable, concurrency-safe Schema and reports
// every way a document breaks it, each violation with the JSON pointer of the
// offending value, the keyword path that found it and a message worded
// exactly as github.com/santhosh-tekuri/jsonschema/v5 words it.
//
// # Why it exists
//
// assay validated with jsonschema/v5 until it set itself a start-up budget
// (`assay eval` within 3x a Go hello-world process). That library compiles
// the metaschemas of five drafts in its package init (draft.go, loadMeta):
// GODEBUG=inittrace=1 on the assay binary measured about 3.0 ms and 1 MB in
// 8,557 allocations for that one init, against about 1.4 ms for a whole
// hello-world run. Linked in, it alone broke the budget however lazily assay
// compiled its own schemas. This package has no package init at all (no
// package-level maps or regular expressions). It also compiles the
// repository's schemas about 25x faster (under 1 ms and 1,900 allocations
// against 24 ms and 112,000 for all 40 of them; a kind's schema in 3 to 14
// µs and 10 allocations, 49 for the one with a pattern, on a busy 2-core
// machine) and validates a typical criterion about
// 5x faster (3 µs and 2 allocations against 15 µs and 126) than
// jsonschema/v5: see BenchmarkCompileAll, BenchmarkCompileKind and
// BenchmarkValidateCriterion.
//
// jsonschema/v5 stays in go.mod as this package's test oracle only: it is
// imported from _test.go files, never from the binary. The differential
// test validates every JSON and YAML document under the repository's
// testdata/ folders and examples/, and mutations of every spec in them
// (a key dropped, an unknown key added, a value of another type), against
// every schema the repository validates with, with both validators, and
// requires the same set of leaf violations (instance pointer and message);
// FuzzAgreesWithJSONSchemaV5 does the same for arbitrary documents, and the
// keyword cases of the unit tests are checked against it too.
//
// # What is supported
//
// Compile takes the schema as JSON text (numbers read exactly, as
// json.Number); CompileOpen does too, with every "additionalProperties":
// false and "unevaluatedProperties": false dropped as it reads (what
// OpenObjects does to a decoded schema); CompileValue takes a schema
// encoding/json already decoded. Validate takes a document as encoding/json
// with UseNumber decodes it (map[string]any, []any, string, json.Number,
// bool, nil), which is also what assert's YAML conversion produces; float64
// and the Go integer types are numbers too. Any other Go value is a
// violation ("invalid JSON value of Go type T"), never a panic.
//
//   - Assertions: type (integer accepts any number without a fractional
//     part, 1.0 and 1e2 included, read from the decimal text so no exponent
//     is too large), enum and const (numbers equal by value: 1, 1.0 and
//     10e-1 are one number), required, minProperties, maxProperties,
//     dependentRequired, minItems, maxItems, uniqueItems, minContains,
//     maxContains, minLength and maxLength (in code points), pattern (Go
//     RE2 syntax, unanchored, compiled once), minimum, maximum,
//     exclusiveMinimum and exclusiveMaximum (exact: the decimal texts are
//     compared digit by digit, so 1.5e999999 costs nothing), and
//     multipleOf (exact, with math/big).
//   - Applicators: properties, patternProperties, additionalProperties,
//     propertyNames, dependentSchemas, prefixItems, items, contains, allOf,
//     anyOf, oneOf, not, if/then/else, and unevaluatedProperties and
//     unevaluatedItems with annotations collected through every in-place
//     applicator ($ref, allOf, anyOf, oneOf, not, if/then/else,
//     dependentSchemas).
//   - Boolean schemas, $defs, $ref to a JSON pointer in the same document
//     ("#", "#/$defs/x", "#/properties/a", percent-encoded or not) or to an
//     $anchor ("#name"), $id at the root (accepted, not used: references
//     must start with "#"), $schema when it names draft 2020-12.
//   - Annotations, never asserted: title, description, $comment, default,
//     examples, deprecated, readOnly, writeOnly, format, contentEncoding,
//     contentMediaType, contentSchema. format is an annotation as 2020-12
//     says and as jsonschema/v5 treats it in a schema that names 2020-12 in
//     $schema.
//
// A word that is no keyword of any JSON Schema draft ("x-ui",
// "definitions", "discriminator") is ignored, as 2020-12 says; a subschema
// under it can still be the target of a $ref.
//
// # What is a compile error
//
// A *CompileError, naming the keyword and the JSON pointer of its schema
// object, for: text that is not one JSON value (its Syntax field then holds
// what encoding/json's Unmarshal says of the text, for callers that word
// the error themselves); a schema that is neither an object nor a
// boolean; a keyword whose value has the wrong shape (what the
// 2020-12 metaschema would reject: "type": "text", "minLength": -1,
// "multipleOf": 0, "required": "a", a title that is no string, ...); a
// pattern or patternProperties key Go's regexp cannot compile; a $ref that
// does not start with "#" (remote and relative references), that points at
// nothing, or names an unknown anchor; a duplicate $anchor; $id below the
// root (embedded resources); a $schema other than draft 2020-12; references
// that loop without moving into the instance ({"$ref": "#"}); and the
// keywords of JSON Schema that this package does not implement, whose
// silent omission would change verdicts: $dynamicRef, $dynamicAnchor,
// $recursiveRef, $recursiveAnchor, $vocabulary, dependencies,
// additionalItems and the array form of items. The line: a keyword some
// draft defines as an assertion or applicator, or that changes how
// references resolve, is implemented or refused; annotations and words no
// draft defines are accepted and ignored.
//
// # Decisions
//
// Messages and which violations are reported follow jsonschema/v5, leaf by
// leaf: a failed anyOf or oneOf (no branch passes) reports every branch's
// violations; a oneOf that two branches pass reports "valid against
// schemas at indexes i and j" alone; a failed contains reports each item's
// violations, or "valid must be >= n, but got m" when no item failed; a
// failed type ends the checks of its schema object (nothing else of that
// object is reported); not and if report nothing of their subschema. The
// annotation quirks of jsonschema/v5 are kept, since they decide which
// unevaluatedProperties violations appear: a passing subschema of not
// contributes its evaluated members, a failed one never does.
//
// Four deliberate differences. jsonschema/v5 formats the message of a
// failed enum with the values as a format string, so a '%' in a value
// garbles it (value must be "%!"(MISSING), or "%" for "%%"); here the
// value is printed as it is. Instance pointers are RFC 6901:
// jsonschema/v5 also percent-encodes each token as a URL path ("a b"
// becomes "a%20b") and locates a member named "" at its parent's pointer;
// here "a b" stays "a b" and the member "" is at "/". The names of a failed
// "additionalProperties": false are listed in sorted order (jsonschema/v5
// lists them in map order), and Violation.Properties carries them unquoted,
// so that callers need not parse the message. And format is never
// asserted: jsonschema/v5 asserts it in a schema without $schema (every
// schema of this repository names 2020-12, where it does not).
//
// Violations come out sorted by instance location, stable, so that the
// violations of one value keep the order of the keywords that found them
// (the order of jsonschema/v5's error tree). Numbers are never expanded
// except for multipleOf: where jsonschema/v5 panics on an exponent beyond
// what math/big reads (a million), this package compares, and multipleOf
// reports "N is beyond what can be divided exactly". uniqueItems compares
// long arrays through a hash of each item, so a long array costs linear
// time. Inside not and if, and on the first pass over the branches of
// anyOf and oneOf and the items of contains, only verdicts are computed (no
// message is built); the branches' violations are built on a second pass
// only when they are reported, so a valid document costs two allocations.
//
// # How a schema is compiled
//
// Compilation was most of the cost of a schema used once (as assay uses
// each kind's), so it does no more than a schema needs. The text is read
// by a small reader of this package into one slice of values in document
// order, each string a substring of one copy of the text unless it has an
// escape: no map per object, no encoding/json. The reader accepts exactly
// what json.Valid accepts (nesting included, to encoding/json's 10,000
// levels) and reads the values encoding/json decodes: of a member written
// twice the last counts, invalid UTF-8 and lone surrogates read as U+FFFD,
// numbers keep their text. FuzzParseText holds it to that. CompileValue
// converts its input into the same slice, so there is one compiler, and a
// value that is not JSON (a float64, a struct) is refused or accepted
// exactly where it was before.
//
// Only a $ref needs to find a schema by its JSON pointer, so the pointer of
// every schema, the table of compiled schemas by pointer and the check for
// references that loop are made only when the text has a member named
// "$ref"; otherwise each subschema is compiled once, where it stands, and
// the pointer of a schema is worked out from the slice only for a compile
// error. Keywords are compiled in sorted order as before, so that of two
// faults the same one is reported: FuzzCompileErrorsAsBefore holds all
// three entry points to the pointer, keyword and message of the compiler
// they replaced (kept in oldcompile_test.go). A compiled schema is a few
// slabs: the keywords most schemas use are fields of a node, the rest in a
// side struct allocated only for the node that uses one; nodes and the
// slices of required, properties and subschema lists are carved from
// shared slabs; const and enum messages are formatted only when reported.
// A pattern is compiled with regexp.Compile when its schema is: a bad
// pattern stays a compile error, and a pattern costs what Go's regexp
// costs (about 5 µs and 40 allocations for ^[A-Z][A-Za-z0-9]*$).
//
// # Precompiled schemas
//
// The schemas of assay's sixteen kinds are compiled when assay is built:
// static_gen.go holds each compiled schema as a package variable, data the
// linker lays out, and Compile returns it for that exact text instead of
// compiling. In a one-shot assay eval, compiling the kinds' schemas was
// about 0.2 ms, the first of them paying for the reader and the compiler
// being read from disk; a precompiled schema costs a look-up. For a
// schema to be static data, a pattern keeps its source and is compiled on
// its first use (a schema compiled from text holds it compiled already),
// and minimum, maximum and their exclusive forms keep their exact decimal
// and the float64 a message prints, not a *big.Rat; a schema with
// multipleOf, patternProperties or a $ref is compiled as before. go
// generate ./internal/jsonschema rewrites the file (TestStaticSchemas with
// -write-static, from the kinds registered in the default registry);
// TestStaticSchemas fails when the file is stale, and
// TestStaticSchemasAsCompiled holds every precompiled schema to what
// compiling its text gives (reflect.DeepEqual, patterns compiled). Lenient
// registries (CompileOpen) compile as before.
package jsonschema
