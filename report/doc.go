// Package report writes assay's results for people and for machines: a task
// result (criteria against one rollout), a benchmark (many runs), and a
// cli-bench report, each as text, JSON or JUnit XML (and JSON lines for
// benchmarks). The assay command prints through it, and a Go harness can
// too:
//
//	res, err := assert.Evaluate(ctx, criteria, env)
//	...
//	report.WriteTask(os.Stdout, report.Text, res, report.Options{Color: report.IsTerminal(os.Stdout)})
//
// Text is for a person: a mark, the score, the label and the criterion id
// per criterion, its one-sentence details and, for a failure, every failing
// field as expected vs actual (read from the evidence's field_results,
// assertion_results or phrase_results); then the axes, a line "N passed, M
// failed, K errors", and the failures listed again. Scores print with 3
// decimals. Colour is used only when Options.Color is set; ColorFor decides
// it the way the command does (a terminal, and NO_COLOR unset or empty).
//
// JSON is the command's contract: the task result's keys are score,
// verdict, axes, criteria, counts; each criterion's end with kind, axis
// (null when the criterion names none) and weight. JSON is written without
// HTML escaping, so evidence such as "<PID>" reads as written.
//
// JUnit has one testsuite per task (or run), one testcase per criterion or
// assertion; a failed check is a <failure> whose text carries the details
// and the field diffs, a check that could not run an <error>; times are
// decimal seconds.
//
// HTML is one self-contained page (inline style and script; a
// Content-Security-Policy forbids every fetch), built with html/template so
// that every string from the input is escaped.
//
// Decisions where the design is silent:
//
//   - Text escapes every string that came from input (Escape): control
//     characters, escape sequences, Unicode format characters and invalid
//     UTF-8 are written as backslash escapes on one line; printable text,
//     non-ASCII letters included, is unchanged.
//   - A benchmark in text ends with a table of the criteria: pass rate,
//     mean score, errors, runs, kind, axis ("-" for none), label and id,
//     and the first five runs that did not pass each. HTML names the first
//     twenty.
//   - A benchmark in JUnit ends with a testsuite "benchmark": properties
//     score, verdict, runs, verdicts.pass|partial|fail and axis.NAME (and
//     shard); a testcase "verdict" that fails unless the verdict is pass,
//     as the exit code does; then a testcase per criterion, named as the
//     text table names it and classed by kind, whose properties (as
//     pytest's record_property writes them) are criterion_id, kind, axis,
//     runs, pass_rate, mean_score and errors, failing when some run did
//     not pass it, its text listing every such run. With Summary it is the
//     only testsuite.
//   - BenchmarkWriter writes a benchmark as its runs come and keeps only
//     aggregates; WriteBenchmark is a BenchmarkWriter over a slice.
package report
