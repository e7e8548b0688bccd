// Package filesim is assay serve's file drop (DESIGN.md 13.9): an SFTP
// server and a files API over HTTP, both reaching the same in-memory tree
// per run.
//
// The seed's sftp/ folder is read once into memory. Every run starts from
// it without copying a file's bytes: a run copies the tree's index (paths,
// folders) and shares the seed's byte slices, which nothing ever changes
// (a write makes a new file).
//
// # SFTP
//
// One SSH listener serves every run (the frame starts it with Listen, on
// --sftp-port, and prints its address in the ready line). A client logs in
// with a run's credentials.sftp (the user is the run's id) by password;
// its session's root is that run's tree, writable, the root included:
// upload, mkdir, rename (SFTP's own, which refuses to replace, and
// posix-rename@openssh.com, which replaces a file), remove of files and of
// empty folders, stat, list, and a size set by setstat (truncate). Links
// are refused with a failure status: symlink, hard link and readlink; lstat
// is stat. No shell, exec or other channel is served (package
// internal/sshsftp). Endpoint sftp is sftp://USER@HOST:PORT/.
//
// When a run completes (Stop), its user can no longer log in, its SSH
// connections are closed, and Stop returns once their sessions have ended:
// an upload whose close had succeeded is in the tree, one still open is
// dropped.
//
// # Files over HTTP
//
// Under the run's files endpoint:
//
//   - GET files?prefix=P: {"data": [{"path", "size", "modified"}]}, every
//     regular file whose path starts with P, in byte order of path.
//   - GET files/PATH: the file's bytes; 404 when absent or a folder.
//   - PUT files/PATH: the body becomes the file, its folders made; 201 and
//     {"path", "size", "modified"} for a new file, 200 when it replaced
//     one.
//   - DELETE files/PATH: 204; 404 when absent.
//
// Paths are relative to the tree's root. One the tree cannot hold is 400
// (see Decisions); nothing ever leads out of the tree, which is in memory
// and has no links.
//
// # Events, snapshot, evidence
//
// Every change is an sftp_op event {op: write|mkdir|rename|remove, path,
// size, transport: sftp|http}, in the order the tree changed. Bad input is
// recorded too (DESIGN 13.11): a refused operation is an sftp_op event with
// "error" (and, over HTTP, "status"), see Decisions. The snapshot
// writes the final tree, folders included, under sftp/. The run's live
// evidence (Run.Env) is the tree as it is when a check first reads it.
//
// # Decisions
//
//   - Names: a path is at most 4095 bytes and a segment at most 255 (what
//     file systems hold, so a snapshot can always be written), valid
//     UTF-8, without NUL or backslash, without empty, "." or ".."
//     segments. Over HTTP such a path is 400 (a leading "/" too: it is
//     absolute); over SFTP, where the request server has already resolved
//     "." and ".." inside the root, it fails the request.
//   - sftp.url at the root of the tree is refused (400 over HTTP, a
//     failure over SFTP; a seed error in the seed): a snapshot's
//     sftp/sftp.url names a live endpoint that assay eval would connect
//     to, so a file an agent wrote there would change what its evidence
//     is. Below the root the name is an ordinary file.
//   - Modification times come from the run's clock: the time of the write
//     (a rename keeps it); the seed's entries read as the run's start.
//     Permissions, owners and times set over SFTP are accepted and not
//     kept; files read as 0644, folders 0755.
//   - PUT answers 200 when it replaced a file and 201 when it made one; a
//     folder where the file would go, or a file where a folder is needed,
//     is 409. DELETE removes a file or an empty folder (a folder that is
//     not empty is 409). GET of a folder is 404: the API serves files.
//     The listing's prefix is a string prefix of the path ("inbox/" for
//     the hosted inbox alias); a leading "/" is dropped.
//   - The folders a PUT makes are mkdir events, before its write event. A rename's event carries "to",
//     the new path, beside the fields 13.10 lists; size is the file's
//     size (0 for a folder).
//   - Refusals are events: 13.11 records every bad input, and 13.10's
//     sftp_op is the nearest shape, so a refused operation is an sftp_op
//     event with two more fields, "error" (what was wrong, as the
//     answer says it, cut to 4 KiB) and over HTTP "status" (the answer's
//     status). Over HTTP that is every answer of 400 or more except a GET
//     or HEAD of a file that is not there (a lookup that found nothing is
//     an answer, not a refusal); op is the method's (GET and HEAD read,
//     DELETE remove, any other write) and path the path as sent, below
//     files/. A write's size is the body's when it was read, else 0. Over
//     SFTP it is every failed change (an upload's open, write or close, a
//     size set, mkdir, rename, remove), every link request (op link, the
//     path of the link to be made), every request whose path the tree
//     cannot hold (op read for reads, stats and listings), and every
//     failed login as an active run's user (op login, path "", the
//     password never written): a read or stat of a path that does not
//     exist is not recorded, since clients probe paths as they work. So
//     read, link and login appear only in refusals. The tree did not
//     change for any of them.
//   - An SFTP upload is written to a buffer of its own and becomes the
//     file when its handle closes; a write or close that fails (a bound,
//     the budget) fails the upload as a whole, and a session that ends
//     before the close drops it. Reads see the last closed version.
//     Without truncation the buffer starts as the file's bytes; appends go
//     to the end.
//   - Bounds: a file at most 64 MiB (an SFTP write past it fails; a larger
//     HTTP PUT is 413: DESIGN 13's size rules cap "an SFTP or files upload"
//     at 64 MiB, which rules over the general 16 MiB body cap), a run's files at
//     most 256 MiB together and its open uploads at most 256 MiB more, at
//     most 100,000 files and folders per run; past them a write is
//     refused (507 over HTTP, a failure status over SFTP). The sandbox's
//     memory budget (--max-memory) is charged with every byte a run adds,
//     plus 256 bytes an entry, as uploads grow and as files are written,
//     and given back as they shrink or go; past it a write is refused the
//     same way. The seed's bytes are charged to no run.
//   - The SSH listener: at most 128 connections at once, all runs together
//     (more wait: accept waits for a slot, and they queue in the kernel's
//     backlog); 10 s to finish the handshake, login included; an idle
//     timeout of 5 minutes (an SSH keepalive counts as traffic); accept
//     errors are waited out with a backoff (package internal/netlimit for
//     a lack of descriptors). A login names no reason for its failure; a
//     password never appears in a message or a log. The host key is a
//     fresh ed25519 key per sandbox.
//   - The sftp endpoint's HOST:PORT is the sandbox's public URL's host
//     with the listener's bound port (sim.PublicAddr), as the ready line's
//     sftp is: with --listen 0.0.0.0 --public-url URL an agent reaches it
//     where it reaches the HTTP endpoints, not at the bound [::]:PORT.
package filesim
