// Package sftp implements sftp-file-present, which checks the final file
// tree an agent left on an SFTP server: a regular file at a path, or
// matching a glob, exists, and (read as JSON) one of them satisfies every
// field assertion.
//
//	{"assert": "sftp-file-present",
//	 "path_pattern": "/outbox/**/*.json",
//	 "parse_json": true,
//	 "fields": [{"key": "claim.id", "expected": "C-1"},
//	            {"path": "patient.mrn", "expected": "12345"}]}
//
// Give exactly one of path (a literal path) and path_pattern (a glob: "*"
// and "?" within a segment, a whole segment "**" across zero or more
// segments, "\" to make the next character literal). Paths are relative to
// the tree's root; a leading "/" means the root. fields need parse_json:
// true (otherwise the spec is invalid); each names a literal top-level
// member by key (dots and all: "claim.id" is one member) or a gjson path
// by path ("claim.id" is member id of member claim; see check's SYNTAX.md).
// Values compare by package check's JSON rules.
//
// Every matched regular file is a candidate; the check passes when one
// satisfies every field (with no fields, when there is one; with
// parse_json, one that is JSON). A file that is not JSON fails all its
// fields, saying so with the line and column of the problem. The score is
// the fraction of fields the best candidate satisfies, ties going to the
// first in byte order of path.
//
// # Evidence
//
// The evidence is a Source: the final tree, listed and read with a
// context. Its implementations:
//
//   - Dial or Open: a live SFTP endpoint (github.com/pkg/sftp over
//     golang.org/x/crypto/ssh) with password, private key or agent
//     authentication, a remote root folder, and one connection for the
//     whole evaluation. Host keys are checked against known_hosts by
//     default ("[host]:port" entries, hashed entries, @revoked);
//     Config.InsecureSkipHostKeyCheck turns that off and is never the
//     default. An unknown host and a key that does not match are two
//     different errors (ErrUnknownHost, ErrHostKeyMismatch).
//   - FolderSource: a folder through fs.FS, such as a sandbox snapshot's
//     sftp/ folder.
//   - MemorySource: a map of paths to contents.
//   - URLSource: what a snapshot's sftp/sftp.url names
//     (sftp://user@host:port/root).
//
// All three list each folder at most once, when a check first needs it,
// and share the listing with every other check of the evaluation: a path
// check only looks up the entries on its way (an lstat each over SFTP), a
// pattern walks only below its longest literal prefix, and a later walk
// below a folder already walked is answered from memory. Walks are bounded
// (Limits: folders listed at once, depth, entries in the tree) and never
// descend into symbolic links, so link cycles cannot loop them. Package
// sftptest runs an SSH server with the SFTP subsystem in process, for
// tests and sandboxes.
//
// # Evidence shape
//
//	{"matched": PATH|null,
//	 "field_results": [{"key": K, "expected", "actual", "passed", "reason"?}
//	                  | {"path": P, "expected", "actual", "passed", "reason"?}],
//	 "candidates": N,
//	 "matched_paths": [every file the path or pattern matched, relative to the root, byte order],
//	 "excluded": [{"path", "reason"}: matched entries that are not candidates]}
//
// # Decisions
//
// Where the design is silent:
//
//   - Hidden files. A wildcard ("*", "?", "**") never matches a name that
//     starts with "." unless the pattern segment itself starts with a
//     literal "." (".*.json"), and "**" does not enter hidden folders, as
//     shells and most glob libraries have it. So "*.json" does not match
//     ".claim.json", the temporary name many clients upload to.
//   - Partial uploads. Matching is anchored: "*.json" does not match
//     "claim.json.part". A zero-byte "claim.json" is a regular file and is
//     present; with parse_json it is not JSON ("the file is empty"), so it
//     is not a candidate without fields and fails its fields with them.
//   - Glob syntax. Only "*", "?" and "**" are special, with "\" escaping;
//     brackets and braces are literal characters, so an unbalanced "[" is
//     no error. "**" inside a segment ("a**b") is one "*". "/" runs and "."
//     segments are dropped; ".." anywhere, a NUL byte, or a pattern that
//     names the root itself make the spec invalid (status failed).
//   - Folders are never candidates. A pattern ignores the folders it
//     matches (they are not in matched_paths); a path naming a folder
//     fails, saying so.
//   - Symbolic links. A matched link is followed while it stays inside the
//     tree: to a regular file, it is a candidate read through the link;
//     leading out of the tree (a relative target climbing above the root,
//     or an absolute one outside the endpoint's root folder; in a folder
//     source every absolute target), dangling, in a loop or a chain of
//     more than 40 links, or to anything but a regular file, it is not a
//     candidate and "excluded" says why. A link on the way to a path (a
//     folder link inside "a/link/b.json") is not followed, and walks never
//     descend into folder links. Over SFTP, absolute targets are the
//     server's paths: under a chroot, "/etc/passwd" names a file inside
//     the chroot.
//   - Size cap. A file is read only with parse_json. One over the cap
//     (Config.MaxFileSize or FolderSource's maxFileSize, 64 MiB by
//     default) is then not a candidate ("N bytes, over the cap; not
//     read"); without parse_json the cap does not apply.
//   - Total cap. What one source reads of all its files together is capped
//     too (Config.MaxTotalSize for an Endpoint, check.CapTotal on a
//     FolderSource's file system: 256 MiB by default), each path counted
//     once however many checks read it; two names of one file (a hard
//     link) count twice, as each is read. A file that would take the
//     source past it makes the check status error, naming the cap: unlike
//     a file over the size cap, leaving it out would judge a tree the
//     check has not seen whole.
//   - Listings. An Endpoint lists folders over an SFTP channel of its own
//     (a second session on the connection), one READDIR answer at a time,
//     and stops at the walk's limits (Limits.MaxEntries, 500,000 entries,
//     and Limits.MaxNameBytes, 64 MiB of names; every page counts as one
//     entry at least, so endless empty pages end too), rather than
//     reading a folder to its end first as pkg/sftp's ReadDir does. A
//     server that opens no second session cannot be listed: the checks
//     that walk report status error saying so. Its answers are capped at
//     256 KiB a packet, as pkg/sftp caps its own.
//   - A matched file that cannot be read for lack of permission, or that
//     vanished or changed type since the listing, is not a candidate. Any
//     other failure to read the tree (a lost connection, a timeout, a tree
//     over the walk limits) makes the check status error.
//   - Over SFTP a file is read by the size its listing gave (one request
//     for a small file): the tree is the agent's final one, so a file that
//     grows after it was listed is read as listed.
//   - A key names a member of a top-level object only: on a JSON array or
//     scalar it selects nothing ("0" is not an array index).
//   - An Endpoint never reconnects: one connection serves the evaluation,
//     and once it is lost every check that still needs the tree reports
//     status error (what was listed before remains). A failure to connect
//     is remembered too, except a cancelled context. Refresh forgets the
//     listings for a new evaluation over the same connection.
//   - The host key algorithms offered to the server are the types of the
//     keys known_hosts holds for the host (all RSA signature algorithms for
//     an RSA key), as OpenSSH does, so a server with an ECDSA key beside
//     the listed ed25519 one presents the ed25519 key. A revoked key is a
//     mismatch. An empty Config.Root is the login folder; the root is
//     resolved with the server's realpath and must be a folder.
//   - URLSource with a password in the URL uses it; the password never
//     appears in messages. An Endpoint scrubs every password given through
//     PasswordAuth (which URLSource uses) from all it reports: its errors,
//     server-sent status messages included, and the names, link targets and
//     problems of entries (DESIGN.md section 12 rule 18), in every spelling
//     origin.Secret knows. A password shorter than 6 bytes is not scrubbed
//     from server text (it would mangle every message), and one given
//     through ssh.Password directly cannot be seen. A file whose name holds
//     the password is reported under the scrubbed name, so a check cannot
//     read it: the rule's price.
package sftp
