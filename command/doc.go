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
//	assay eval --criteria FILE --sandbox DIR [--entity ID] [--format text|json|junit]
//	assay eval --runs DIR [--criteria FILE] [--shard K/N] [--format text|json|junit|jsonl]
//	assay eval --merge [--format ...] FILE.jsonl...
//	assay check --suite FILE --trace FILE [--task ID] [--format text|json|junit]
//	assay run --suite FILE [--model M]... [--task ID]... [--base-url URL] [--out DIR] [--concurrency N] [--timeout D] [--format ...]
//	assay validate FILE...
//	assay schema [KIND|suite|criterion|criteria] [--draft 07]
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
