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
//	assay validate FILE...
//	assay schema [KIND|suite|criterion|criteria] [--draft 07]
//	assay hl7 get FILE PATH...
//	assay x12 get FILE PATH...
//	assay criteria list|get|create|update|delete ...
//	assay version
//
// Exit codes: 0 success (eval: verdict pass; check: every task passed), 1 a
// failing result (or an API error), 2 bad usage or bad input. Main never
// panics: a bug is reported as a message and exit code 2.
package command
