// Package command is the assay command, importable: cmd/assay is a few
// lines around Main, and a team that registers kinds of its own builds its
// own command the same way and keeps validate, eval, schema, check, the
// criteria API and every output format:
//
//	func main() {
//		mykind.Register(assert.DefaultRegistry()) // beside every built-in kind
//		_ = clitask.BecomeSubreaper()              // as assay does, for verify
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//		defer stop()
//		os.Exit(command.Main(ctx, os.Args[1:], command.Config{}))
//	}
//
// The subcommands:
//
//	assay eval --criteria FILE --sandbox DIR [--entity ID] [--format text|json|junit|html]
//	assay eval --runs DIR [--criteria FILE] [--shard K/N] [--summary] [--format text|json|junit|jsonl|html]
//	assay eval --merge [--summary] [--format ...] FILE.jsonl...
//	assay check --suite FILE --trace FILE [--task ID] [--format text|json|junit] [--evidence] [--no-verify]
//	assay run --suite FILE [--model M]... [--task ID]... [--base-url URL] [--out DIR] [--concurrency N] [--timeout D] [--format ...]
//	assay serve --seed DIR --out DIR [--listen ADDR] [--port N] [--sftp-port N] [--criteria FILE] ...
//	assay validate FILE...
//	assay schema [KIND|suite|criterion|criteria|result|benchmark|check|trace|records|events] [--draft 07]
//	assay hl7 get FILE PATH...
//	assay x12 get FILE PATH...
//	assay criteria list|get|create|update|delete ...
//	assay version
//
// Exit codes: 0 success (eval: verdict pass; check and run: every task
// passed, or with thresholds none of behavior error violated), 1 a failing
// result (or an API error), 2 bad usage or bad input. Main never panics: a
// bug is reported as a message and exit code 2.
//
// # assay eval, validate, check and criteria
//
// Decisions where the design is silent:
//
//   - eval --runs streams in every format: runs are judged concurrently
//     and written in name order, at most a window of four results per
//     worker waiting for a slow one; JUnit and HTML spool the runs to an
//     unlinked temporary file because their head carries totals. Each
//     distinct criteria file is compiled once (by content). Peak memory is
//     then the criteria, the runs' names and each criterion's failing runs.
//   - The skipped criteria of a run are said on stderr once (one line for
//     a single rollout, a count of runs for --runs), beside counts.skipped.
//   - --summary goes with text, JSON (then {"benchmark": ...} alone),
//     JUnit (then the testsuite "benchmark" alone: see package report) and
//     HTML; with jsonl, whose lines are the runs, it is bad usage.
//   - --criterion is a Go (RE2) regular expression matched, unanchored,
//     against each criterion's id (#N when it has none) and label; --kind
//     takes kinds (repeated or comma-separated) and suggests the nearest
//     for an unknown one. A selection that keeps no criterion is bad usage.
//     Left-out criteria are neither results nor skipped.
//   - --merge reads its files a line at a time (a line at most
//     --max-file-size), three times: to check every record, to check the
//     order and names, and to write; nothing is printed unless all is well.
//     Lines without "shard" are shard 0/1. A file may hold several shards
//     (concatenated); each shard's lines must be in name order, as jsonl
//     writes them.
//   - --timeout bounds each evaluation (per run with --runs); a run cut
//     short still counts, with its unfinished criteria in error.
//   - The progress line (stderr on a terminal) redraws at most ten times a
//     second and is cleared before output and at the end.
//   - A file is a criteria file in YAML when its name ends in .yaml or .yml,
//     or its first line that is not blank or a comment does not start with
//     [ or {. validate classifies by content whatever the syntax.
//   - validate reads as eval does (rule 17): --max-file-size caps each file
//     it is given and each task file a suite includes, --max-total-size a
//     suite's includes in all (each name read counts: hard links too). A
//     file over a cap is named as what it is (an input, a suite or task
//     file), not as evidence.
//   - validate checks what schemas cannot, for every criterion whatever
//     else is wrong with it: duplicate ids and paths that can never match
//     are problems; a cli pattern that is not a regular expression is a
//     warning (it still matches, as a substring), as it is in a suite. So is
//     an sftp path_pattern holding [ ] { } (eval reads them as themselves
//     and reports the file absent: not an error) or a literal path with a
//     "*" or "?"; what eval refuses (a trailing backslash, "..") is an error.
//     Warnings are located as errors are: "file:line:col: warning: /ptr:".
//   - criteria create --file checks the file before calling the API and
//     prints every problem as validate does (line:column in YAML), one a
//     line. With a list it creates in order and stops at the first API
//     error, printing what it created before it.
//   - check notes on stderr, before running anything, how many verify
//     commands will run. --no-verify runs none: each verify is reported as
//     not run ("skip" in text, <skipped> in JUnit, "skipped": true in JSON
//     beside status error, the only status of the dialect for a check
//     that did not run) and counts neither as passed nor as failed: a run
//     is judged on its other assertions, a run with none is "not judged"
//     (JSON "skipped": true on the run) and counts in no pass rate and not
//     against the exit code, and the text summary says how many verifies
//     were not run. Skipping must not fail a model (a run the verify would
//     have passed) nor pass one (a verify it would have failed): the
//     verdict rests on what was checked.
//   - Config.Name (default: the base name of os.Args[0]) replaces "assay"
//     in usage text, in version's first line and at the start of every
//     message line on stderr ("mykinds: eval: ..."): a team's own command
//     names itself everywhere a user reads it.
//   - Every message on stderr is one line written through report.Escape
//     (rule 23), whole: run folder and model names, file names and errors
//     quoting inputs, agents or servers are written with control
//     characters escaped and a newline as \n. An API error's details are
//     each a line of their own, escaped alike. validate's "FILE: valid" on
//     stdout escapes the name too.
//
// # assay run
//
// Decisions where DESIGN.md section 14 is silent:
//
//   - The model's key is redacted from every message and output (as
//     written, and as JSON and URLs escape it), and the base URL's
//     userinfo (user name and password) is never printed, whether or not
//     the password is the key. Redaction alone would miss the key printed
//     encoded (`env | base64`), so the runs' commands must not be able to
//     read it at all:
//   - The key is left out of the environment the runs' commands get
//     (every variable whose value is the key). A CLI under test that needs
//     a key of the same value gets it under another name.
//   - On Linux a command can also read the environment its parent started
//     with, /proc/$PPID/environ, as the same user and always as root. So
//     when the key comes from the environment, assay run, once its flags
//     are good and before it writes or runs anything, re-executes itself
//     (/proc/self/exe, the same arguments) with every variable whose value
//     is the key removed, and hands the key to the new image on an
//     inherited pipe (its descriptor named by ASSAY_RUN_KEY_FD), which it
//     reads once and closes. The key is then in no process's environment
//     or command line that assay starts or is, and it is never written
//     to a file. The process also makes itself not dumpable
//     (PR_SET_DUMPABLE 0), so that a command running as another user
//     than root cannot read its memory either (root can: run commands you
//     do not trust as root only in a sandbox). This re-execution happens
//     only when Main runs with the process's own streams and environment
//     (a zero Config but for Name and Registry): a program embedding
//     Main must reach it again when re-executed with the same arguments.
//     If the re-execution fails, a warning says the key stays in the
//     environment, and the run goes on.
//   - What this does not cover: processes that started assay and hold the
//     key in their own environment (a shell script that exports it, a CI
//     runner's step) are readable by the runs' commands as ever; set the
//     key for assay alone (`ASSAY_LLM_API_KEY=... assay run ...`) or run
//     the commands as another user. Off Linux there is no /proc/PID/environ
//     and no re-execution: the key stays in assay's environment, which
//     some systems show to processes of the same user (`ps eww` on the
//     BSDs and macOS).
//   - "No run could reach the server" means no model call got an HTTP
//     response, of any status: a refused connection, and a server that
//     never answers before --timeout. Then there is no report, only the
//     message and exit 2; a server that answers errors (401, 500) is
//     reached, and its runs fail with the error.
//   - A suite's cli not on PATH (its first word, looked for on the PATH
//     the runs get, {{workdir}} standing for the scaffold; after the first
//     task's setup when the suite has setup commands) is bad input, exit
//     2, before any model is asked; so is a --help of help mode injected
//     that cannot run.
//   - --out DIR must not hold trace.json, workdirs or conversations of an
//     earlier run (exit 2): nothing is overwritten. With --out, every run
//     works in DIR/workdirs/RUN, the suite's workdir notwithstanding, so
//     that runs stay apart and the trace re-judges. The trace's workdirs
//     are relative ("workdirs/RUN"), so DIR can be moved. A run's
//     conversation is written as it ends; trace.json when all have.
//   - Text streams each run as it is judged (held back until a model call
//     has reached the server). Run names are "task [model, help mode]
//     #N", or with --out the RUN name, which is the folder's. The text
//     summary adds pass rates by help mode and usage per model.
//   - A run cut short, by --timeout or by max_turns, is judged on what it
//     did and says so: "stopped": "timeout" or "max_turns" on the run in
//     JSON (beside "passed"; absent when the model finished or the attempt
//     broke down, which "error" says), a "stop" line under the run in
//     text, a "stopped" property in JUnit. The conversation's "stop" says
//     the same for every run.
//   - assay schema check describes assay run's JSON as well (run,
//     help_mode, error and stopped on runs; by_help_mode and usage beside
//     pass_rates), and every object in it is closed (additionalProperties
//     false), so that a key the schema does not describe is a defect a
//     test catches, not a silent extension.
//   - Ctrl-C prints the report of the runs that finished, says
//     "interrupted" and exits 1, as check does; a setup that fails is bad
//     input (exit 2), since a broken environment says nothing of a model.
//   - Progress on a terminal is one line on stderr, redrawn each second
//     and as runs finish, erased before each report line and at the end.
package command
