// Package clitask speaks cli-bench: the suites (cli-bench.yaml) that test how
// an LLM agent uses a command-line tool, the ten assertion kinds they use,
// the command trace those kinds judge, a recording shell for harnesses, and
// pass rates with thresholds.
//
// A task's assert items are single-key maps, in YAML or JSON; as criteria
// they are {"assert": KIND, KIND: VALUE}:
//
//	{"exit_code": 0}
//	{"ran": "git commit.*-m"}
//	{"run_count": {"pattern": "^git push(?!.*--dry-run)", "max": 1}}
//	{"file_contains": {"path": "out/report.txt", "text": "total: 42"}}
//	{"verify": {"run": "jq -e .ok result.json", "output_equals": "true"}}
//
// # Evidence
//
// A task run leaves a Trace: its working directory and every command in
// order, with exit code, stdout, stderr and duration. The kinds read it
// through a Source attached to an assert.Env (Attach); every Source method
// takes a context. Three sources exist: MemorySource over a trace held in
// memory; FolderSource over a snapshot's cli/ folder, which reads
// trace.json from an fs.FS through check.ReadFile (a regular file of at
// most 64 MiB by default) once, on first use; and a Shell, which a harness
// hands its agent and which records each command it runs. ReadRuns reads
// the trace files `assay check` takes: a single run object, or {"runs":
// [...]} with task_id and model per run. A Source also runs verify
// commands in the working directory after the task. MemorySource,
// FolderSource and NewShell take Options: VerifyEnv, VerifyTimeout,
// PatternBudget, MaxFileSize, MaxTotalSize.
//
// exit_code, output_contains, output_equals and error_contains judge the
// last command; ran, not_ran and run_count all commands; file_exists,
// file_contains and verify the working directory. Register adds the ten
// kinds to a registry; the package's init adds them to the default one.
// The decoded assertions are unexported, immutable values.
//
// # Evidence shape
//
// LastEvidence (exit_code, output_contains, output_equals,
// error_contains): {"commands", "command", "expected", "actual"}.
// FileEvidence (file_exists, file_contains): {"path", "resolved", "exists",
// "is_dir", "leads_to"?, "contains"?}. PatternEvidence (ran, not_ran,
// run_count): {"pattern", "mode", "fallback"?, "commands", "matches":
// [{"index", "command"}], "count"?, "min"?, "max"?}. VerifyEvidence:
// {"run", "exit_code", "stdout", "stderr", "duration_ms", "output_capped"?,
// "output_contains"?, "output_equals"?}.
//
// # Suites
//
// LoadSuite reads a suite, validates it against SuiteSchema, expands its
// file:// includes and decodes every assert item through a registry that
// holds only the ten kinds. Every problem in every file is reported at once,
// in a *SuiteError, each with file, line, column and JSON pointer. Suite.Check
// evaluates recorded runs (what `assay check` does); a Runner makes runs with
// an Agent, preparing each working directory with Suite.Prepare.
//
// # Decisions where the format is silent
//
// Patterns. ran, not_ran and run_count patterns are JavaScript regular
// expressions compiled once, at decode time, with regexp2 in ECMAScript
// mode, no flags, searched unanchored. A pattern without metacharacters is
// searched as a substring (the same match, faster), and so is one that is
// such text after ^ or before \b, with the anchor and the word boundary
// (as regexp2 has it: a letter, mark, digit or connector on one side only)
// tested by hand; a fuzz target holds that to regexp2. A pattern that does not
// compile is matched as a plain substring; the details say so and the
// evidence has mode "substring" and the reason under fallback. Empty
// patterns and empty paths are invalid specs (they would match
// everything). One match may take MatchTimeout, and one check's matching
// over all the commands of a trace DefaultPatternBudget (5 s, see
// PatternBudget) in total; past either, or when ctx ends, the check is
// status error saying so, as it could not decide (the matching stops at the
// next command, so within MatchTimeout). regexp2 matches code
// points where JavaScript matches UTF-16 code units, which differs only for
// characters outside the BMP under "." or ranges. redact_patterns must
// compile: a redaction silently turned literal would leak the secret.
//
// Trimming. output_equals (and verify's) trims exactly what JavaScript's
// String.prototype.trim trims, so U+FEFF is trimmed and U+0085 is not.
//
// Files. The path an assertion names is the suite author's and stands as
// written: absolute, or relative to the working directory, `..` included.
// The working directory's own links are resolved first; then the path is
// followed one component at a time. A symbolic link located inside the
// resolved working directory is followed only when its target, resolved,
// is inside it too: one that leads out (an agent's out.txt ->
// /etc/passwd) makes file_exists and file_contains fail, with the target in
// the details and under leads_to; links elsewhere (on an absolute or `..`
// path) are followed as the system follows them. A dangling link, a loop
// of links and a path through a regular file do not exist, as with Node's
// fs.existsSync. file_exists passes for any existing entry (a FIFO too);
// file_contains fails on a directory, on an entry that is not a regular
// file (a FIFO, a device: never opened, so never a hang) and on a file
// over MaxFileSize (64 MiB by default), saying so. What file_contains
// reads counts against its source's total, MaxTotalSize (256 MiB by
// default; rule 17), with a FolderSource's trace.json: each real path once
// however many checks read it, two hard links as two files; a check whose
// file, at the size it has when looked at, would go past the cap is status
// error naming it, the file unread. The files lie in the agent's working
// directory, anywhere on disk, not in the snapshot's cli/ folder, so the
// folder's own cap (check.CapTotal) cannot count them: the source keeps a
// check.Budget of its own. A path that cannot be
// examined (permissions) is status error, as is a relative path when the
// trace has no workdir; a workdir that does not exist makes file_exists,
// file_contains and verify status error naming the folder, whatever the
// path. A relative workdir read by a FolderSource resolves against the cli/
// folder on disk; a snapshot that is not on disk has none, and the checks
// that need the workdir say so.
//
// Traces. Unknown members are ignored, so traces written by other
// harnesses read; "command" and "exit_code" are required in each command
// and "commands" in each run; stdout, stderr and duration_ms may be missing
// or null; a fractional duration_ms is rounded. A relative workdir resolves
// against the trace file's folder; a missing one leaves the file checks
// without a folder (status error). Errors are *TraceError with the file,
// line, column (counted by assert.LineColumn) and JSON pointer of the
// offending value; member types are named as assay names JSON types
// ("an object", "a number"). Member names match exactly (case-sensitive)
// and the first of duplicate members counts. trace.json of a snapshot must
// hold exactly one run.
//
// Commands. Every command (setup, the agent's, verify) runs as sh -c in its
// own process group with a timeout (DefaultTimeout); at the timeout the
// whole group is killed, and the record gets exit code TimeoutExitCode (124,
// as timeout(1) reports) and a note at the end of stderr. A command killed by
// a signal exits 128+signal, as a shell reports it. Each of stdout and
// stderr keeps DefaultMaxOutput bytes, cut at a rune boundary; a Shell's
// and Executor.Run's record ends a cut stream with a note of how much was
// dropped, while verify judges only what was captured and its details say
// "output capped at N bytes". A verify that times out is status error.
//
// Leftovers. Executor.Run and verify end every process a command left
// behind before they return; a Shell instead lets background processes live
// (an agent may start a server and query it) until Close. Leftovers are
// never found by a remembered process group number, which may have been
// reused: the shell's exit is awaited without reaping it (Linux), so its
// group number stays taken while the group is killed; and every command
// runs with ASSAY_RUN_TAG=<random tag> added to its environment, so that
// when the process is a child subreaper (BecomeSubreaper; the assay command
// is one, a library user opts in) the tagged processes among its children,
// and what descends from them, are killed and reaped round by round,
// descendants that called setsid included. A process without the tag (the
// host's own children) is never signalled. Without a subreaper only the
// process group is killed (Shell.Close: the processes of the commands'
// groups that carry the shell's tag); descendants that started a new
// session and cleared their environment can escape. Elsewhere than on
// Linux, groups are killed by number after the command, as before. A Shell
// records commands in the order they finish; one that could not start is
// not recorded. verify never is.
//
// Checks. A task's assertions are all evaluated, in order, each through
// assert.Run (a panicking check is status error), against one snapshot of
// the trace; the task passes when all pass. ran and not_ran
// stop at the first match (the evidence lists it); run_count counts all and
// lists up to MaxListedMatches. Evidence shapes: LastEvidence,
// FileEvidence, PatternEvidence, VerifyEvidence.
//
// Suites. A YAML syntax error carries a line only (yaml.v3 gives no
// column). A file holding more than one YAML document is an error; anchors
// and aliases work, merge keys (<<) do not. Include globs are
// slash-separated: `*`, `?` and `[...]` match within a segment as
// path.Match does (dot files too), a `**` segment matches zero or more
// folders; matches are regular files (symbolic links to files count;
// symbolic links to folders are not walked), sorted in byte order. An
// include that matches nothing is an error, as is a file that is not a
// list of tasks; a task file may not include further (a file:// item in it
// is an error). A task file matched by several includes (the same absolute
// path once cleaned and with its links resolved) loads once, at its first
// match. Suite and task files are read as evidence is: regular files of at
// most MaxFileSize (64 MiB by default), the included task files at most
// MaxTotalSize in all (256 MiB by default; each path read counts, so two
// hard links of one file count twice, as they are read twice), both
// options of LoadSuite and ParseSuite; a file over either cap is a problem
// at its include that names the cap and calls it a suite or task file.
// Included files are read in parallel. Problems carry an
// assert.Location. Duplicate ids are reported at the second definition,
// naming the first. The suite's workdir and scaffold resolve against the
// suite file's folder; a missing scaffold is reported when a workspace is
// prepared, not when the suite loads, so that `assay check` works on a
// machine that only has the suite and the traces.
//
// Environment. Values of the suite's env, then the task's, override the
// base environment (the process's unless given); {{workdir}} expands in
// values only.
//
// Pass rates and thresholds. Rates are percentages (0..100), the unit of
// thresholds, in PassRate and ThresholdResult alike. Runs without a model
// count under DefaultModel ("default"). A threshold applies to each model
// that has runs: its own value, else the default; a model with neither,
// and a model without runs, gets no entry. A rate below the effective
// minimum (max(0, threshold - tolerance)) violates it, with 1e-7 of slack
// for floating-point noise. behavior defaults to "error".
//
// Runner. Models are the Runner's, else the suite's providers, else one
// run set without a model; help modes are the Runner's, else the suite's
// help_modes, else "injected", and every help mode runs every task (the
// agent reads Attempt.HelpMode; results and traces carry it). A task's
// repeat wins over the suite's. Runs go in task, model, help mode, repeat
// order, and RunName names each by its position ("0007-add-entry"). Runs
// share nothing but a suite's fixed workdir, which makes them sequential;
// with Workdirs set, each run works in Workdirs/NAME instead (made fresh:
// a folder already there is an error, never reused; kept after the run),
// the suite's workdir notwithstanding, and RunResult.Run names it. An agent
// that returns an error fails its run (its assertions are still evaluated
// and reported, and RunResult.Error holds the message); a setup that fails
// stops the runner with a *SetupError, since a broken environment says
// nothing about a model. RunTimeout bounds each attempt: its context ends
// with ErrRunTimeout as the cause, and the run is judged on what it did,
// its RunResult.Stopped StoppedTimeout (an agent that stops at its own turn
// limit sets Attempt.Stopped to StoppedMaxTurns). The agent reports its model calls in Attempt.Usage; the runner adds the
// attempt's wall time, and the report totals them per model (Usage), and
// pass rates per help mode (ByHelpMode). Each fresh working directory is
// removed after its run unless KeepWorkdirs; the traces and errors in the
// report are redacted (redact_env values, redact_patterns matches and the
// Runner's Secrets become Redacted), evaluation sees the real trace.
// Attempt.Redact applies the same redaction, for what the agent shows its
// model.
//
// Package clitask/chatagent is an Agent that works on each task with a
// model behind a Chat Completions API, as assay run does.
//
// Recorded runs may carry "run", "help_mode" and "error" (how the attempt
// broke down, as assay run writes it): Suite.Check keeps them in each
// RunResult and counts a run with an error failed, with that message.
package clitask
