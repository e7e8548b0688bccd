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
//   - --summary goes with text, JSON (then {"benchmark": ...} alone) and
//     HTML; with jsonl or junit, which exist for machines, it is bad usage.
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
//     commands will run; --no-verify makes each verify an error ("not
//     run"), so a run with one cannot pass unverified.
//   - Config.Name (default: the base name of os.Args[0]) replaces "assay"
//     in usage text.
//
// # assay run
//
// Decisions where DESIGN.md section 14 is silent:
//
//   - The model's key is left out of the environment the runs' commands
//     get (every variable whose value is the key), beside being redacted
//     from every output: redaction alone would miss the key printed
//     encoded (`env | base64`). A CLI under test that needs a key of the
//     same value gets it under another name.
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
//   - Ctrl-C prints the report of the runs that finished, says
//     "interrupted" and exits 1, as check does; a setup that fails is bad
//     input (exit 2), since a broken environment says nothing of a model.
//   - Progress on a terminal is one line on stderr, redrawn each second
//     and as runs finish, erased before each report line and at the end.
package command
