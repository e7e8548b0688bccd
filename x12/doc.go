// Package x12 reads ASC X12 interchanges (4010 and 5010) and checks the
// responses an agent got from a payer: a parser with envelope checks, 5010
// loop recognition for the eligibility (270/271), claim status (276/277,
// and the 277CA) and prior authorization (278) transactions, the path
// grammar of SYNTAX.md, and the x12-response assertion. A Writer builds
// interchanges, envelopes and counts included (assay serve's
// clearinghouse answers with it).
//
// # Parsing
//
// Parse reads the delimiters from the ISA: the element separator is the
// byte after "ISA", the repetition separator ISA11, the component separator
// ISA16, the segment terminator the byte after ISA16. Any characters may
// serve. White space after a terminator (line breaks, and the blanks and
// tabs of hand-edited files: no segment starts with one) is skipped, as are
// a byte order mark and white space before the first ISA. An ISA must be the fixed 106
// characters: each of its elements is checked against its width, and the
// error names the first that is off. Several functional groups, transaction
// sets, and even interchanges (each with its own delimiters) read as one
// sequence of segments.
//
// The envelopes are checked as they are read: ISA13/IEA02 and GS06/GE02
// control numbers (compared as numbers, so 000000907 equals 907), ST02/SE02
// (compared exactly: ST02 is text), IEA01, GE01 and SE01 counts, headers and
// trailers that are missing or out of place, segments outside a transaction
// set (TA1 is allowed between ISA and GS), segment identifiers that are not
// 2 or 3 capital letters and digits, a last segment without its terminator,
// and an HL02 that names no earlier HL. Each is a Finding with the
// segment's position: an assert.Location (1-based segment number, line and
// column, where LF, CR and CRLF each end a line, so CR-terminated files count
// their lines) and a 0-based byte offset. When ISA11 is a repetition
// separator equal to ISA16, the ISA gets a finding too.
// Evidence is read leniently: findings are reported and the data is read
// anyway. Strict turns them into a *FindingsError. A parse keeps at most
// 1,000 findings. Input that is not X12 at all is a *SyntaxError.
//
// Values are substrings of the input: ParseString reads the string it is
// given, Parse copies its []byte into a string once, and reading a path
// allocates nothing beyond the slice it returns (AppendValues reuses the
// caller's). Offsets are int32, so an input must be smaller than 2 GiB.
//
// # How it reads
//
// Parse is one loop over the segments: each ends at the next segment
// terminator (strings.IndexByte), its identifier is the text before the
// first element separator, and only the envelope segments (and, in a set
// with a guide, the HL) are looked into. It records where each ISA, GS and
// ST segment starts, four bytes each; a transaction set's code, control
// number and version are read from its ST when asked for. The segment
// index (eight bytes per segment: where it starts, and its innermost loop)
// and the loops are built by one indexer, fed each segment in order: by
// the parse itself for an input of up to 1 MiB (every response an agent
// gets), and for a larger one by a scan the first time something needs
// them (Segment, Transactions' segment numbers, or a path that names a
// loop), so that reading loop-free paths out of a large file costs a scan,
// not an index. A path without a loop reads the input in one scan before
// that, and through the index after; a path on ST reads the list of
// transaction sets, and ST(n) directly.
//
// The loops are made from the guides' definitions in guides.go, written
// the way the guides nest them, the first time they are needed.
//
// # Repetitions and components
//
// ISA11 is the repetition separator from version 00402 on, and only when it
// is not a letter, a digit, a space, the element separator or the segment
// terminator: 4010 files, and some 5010 senders, put "U" there, and then
// elements have no repetitions. When it equals ISA16 (some senders write ":"
// in both), the ISA gets a finding and that character splits an element
// into pieces P1..Pn that both readings reach: EB03[i], EB03-i and
// EB03[i]-1 read Pi, EB03[i]-j with j > 1 reads nothing, EB03[*] selects
// every piece, and a plain EB03 reads the element as written. ISA elements are read whole, without repetitions or
// components, since ISA11 and ISA16 are the delimiters themselves.
//
// # Loops
//
// Loops exist for the transaction sets of the 5010 guides the design names:
// 270 and 271 (X279), 276 and 277 (X212), the 277 claim acknowledgment
// (X214, HL level PT) and 278 (X217; BHT02 11 selects the response's
// loops). A set's guide is the one its ST03 names or, without ST03, its
// group's GS08 (X12 lets ST03 override GS08), when the set's ST01 fits it.
// Anything else (4010's X092, 835, 837, 999...) has no loops: a loop path
// reads nothing there, and Interchange.PathWarning says why (assay x12 get
// prints it as a warning). Each HL opens the loop of its level code (HL03)
// and nests in the loop of its parent (HL02): a 2000D is inside its 2000C,
// as the guides nest them. Within a level, a loop opens at its first
// segment: NM1 opens 2100C, EB opens 2110C, III 2115C, an NM1 between LS
// and LE 2120C; LS and LE belong to the enclosing 2110 loop. Where siblings
// open with the same segment (the 2010E and 2010F loops of the 278), the
// qualifier NM101 decides, and the guide's order breaks ties: a code two
// siblings accept opens the first of them not before the one last opened
// (a 278 response's NM1*FA after its 2010EB contact is another contact). An
// NM101 no sibling lists still opens an NM1 loop, the first not before the
// last one opened, rather than being filed in the loop before it. An HL
// level code the guide does not have opens an unnamed loop, so that its
// segments are not read as part of the previous loop. Transaction sets of
// other kinds have no loops; their paths name no loop.
//
// An HL whose parent is not among the current HL's ancestors (the HL
// hierarchy is a pre-order walk, so it always is in a well-formed file) is
// found by its HL01 anyway; an HL02 that names no earlier HL is a finding,
// and the HL becomes a top-level loop.
//
// # Paths
//
// SYNTAX.md has the grammar and tables of examples that run as a test. A
// loop without an occurrence, or with (*), stands for every instance of it
// inside the scope before it, and the segment occurrence counts in document
// order across every selected instance: 2110C/EB(*)01 is EB01 of every
// benefit, 2110C/EB(2)01 the second EB in any 2110C, 2110C(2)/EB01 the
// first EB of the second 2110C. Only a wildcard on the segment occurrence or
// the repetition selects several values. Nesting follows the HL hierarchy
// (HL02), not the order of the segments: a loop's scope is its own segments
// and its descendants', wherever they are in the file.
//
// Decisions the design left open: a loop path element matches loops nested
// at any depth inside the previous one (not the loop itself); LOOP(n)
// counts the instances across everything the previous level selected; a
// qualifier matches element 01 as written or, for a composite, its first
// component (HI[ABK]01-2); a loop ID no guide has selects nothing rather
// than being an error, since paths are shared across transaction sets; ISA
// elements are read whole, without repetitions or components, since ISA11
// and ISA16 are the delimiters themselves.
//
// # Writing
//
// A Writer builds one interchange: NewWriter writes the ISA from the
// delimiters and a Header (its IDs padded to their fixed widths, ISA11 the
// repetition separator or "U" when there is none, ISA13 with nine
// digits), Group opens a GS, Set an ST (with ST03 from version 005010
// on), and Segment and SegmentOf write the segments between; Bytes closes
// the open set, group and interchange with SE, GE and IEA, counted (SE01
// the segments from ST to SE, GE01 the sets, IEA01 the groups) and
// numbered (SE02, GE02 and IEA02 repeat their headers'), so a caller
// never counts. Trailing empty elements, repetitions and components are
// left out. What a Writer builds parses with Parse, strictly, without
// findings (a fuzz target holds it to that).
//
// Decisions: X12 has no escape, so a value that holds one of the
// interchange's delimiters is refused, never changed: the *WriteError
// wraps ErrDelimiter and names the segment, element and value, so that a
// caller can choose other delimiters or refuse its own input. Delimiters
// must be distinct ASCII characters, none a letter, a digit or a space
// (the segment terminator may be a line break); a repetition separator
// needs ISA12 00402 or later, and may not equal the component separator
// (the parser reports that as a finding). The Writer writes the envelope
// segments itself and refuses them from Segment; a TA1 may go between the
// ISA and the first group, every other segment inside a transaction set.
// Errors are sticky, as bufio.Writer's are: the first one is kept, later
// calls do nothing, and Err and Bytes report it, so that a builder of a
// hundred segments checks once. The Writer does not check what goes inside
// a transaction set (HL numbering, a guide's loops): that is its caller's.
//
// # x12-response
//
// Candidates are the records of the Source whose request or response is a
// transaction set of the same family as "transaction" ("270" and "271" are
// one family, "276" and "277" another; the record's declared transaction
// counts too), and whose correlate_by entries hold. A correlate_by key that
// the record's metadata has compares with that value; any other key is read
// as an X12 path on the response (so snake_case metadata names and paths
// never collide: no path is snake_case). Values compare as text with
// check.CompareText, so 5 matches "5". Fields read the response with
// check.TextField; the best candidate is reported under "matched" by its
// ST02. A response that cannot be parsed is malformed evidence (status
// error); a request that cannot be parsed only says nothing about the
// transaction set, since the request is what the agent produced.
//
// The assertion is not an exported type: the registry's decoder returns an
// immutable value holding the compiled paths, so an invalid path is always
// a spec error (never a check that passes expected: null), and a spec built
// in Go (package spec) goes through the same decoder. The check is written
// on check.Candidates.
//
// Evidence shape:
//
//	{"matched": ST02 | null, "field_results": [{"path", "expected", "actual", "passed", "reason"?}], "candidates": N}
//
// # Evidence
//
// Source gives the records and Attach sets it. MemorySource(records...)
// holds records in memory. FolderSource(fsys, maxFileSize) reads a
// snapshot's x12 folder through an fs.FS when a check first asks:
// records.json first, then the NAME.response.x12 files in byte order of
// NAME, each with its optional NAME.request.x12 and NAME.meta.json, every
// file through check.ReadFile (regular files only, at most maxFileSize
// bytes, 64 MiB by default). Other files are ignored; a file that cannot be
// read, a request or metadata file without its response, or a records.json
// that is not an array of objects with a string "response" (unknown
// members are ignored) makes Records return an error, and every check that
// needs the records reports status error. Both sources parse each record's
// response and request once, on first use, and every later check shares
// the parse; a Source of your own returns plain Records, which each check
// parses.
package x12
