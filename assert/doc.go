// Package assert is the core of assay: assertions, the registry of kinds,
// the evidence environment, results, criteria and their scoring.
//
// An assertion is written as a Spec, one JSON object discriminated by its
// kind: {"assert": "portal-state-match", ...} in the criteria dialect, or the
// cli-bench single-key map {"exit_code": 0}, which is the spec
// {"assert": "exit_code", "exit_code": 0}. A Registry maps each kind to a
// JSON Schema and a DecodeFunc; Decode validates a spec against its kind's
// schema (every violation reported with its JSON pointer, and line and column
// for YAML) and returns an Assertion, whose Check judges an Env.
//
// An Env holds one rollout's evidence as typed sources, keyed by the
// source's static interface type (Attach, Lookup). A check whose source is
// missing reports StatusError; so does one that cannot read its source.
// StatusFailed is reserved for evidence that contradicts the assertion and
// for specs that are invalid.
//
// A Criterion wraps a spec with a label, weight and axis. Evaluate runs
// criteria concurrently and rolls them up:
//
//	score   = sum(score_i * weight_i) / sum(weight_i)
//	axes    = the same mean per axis ("__default__" for criteria with none)
//	verdict = pass when score >= 0.9, partial when 0 < score < 0.9, fail when 0
//
// with 1e-9 of slack for floating-point sums. Benchmark averages several
// tasks' scores.
//
// The domain packages register their kinds in DefaultRegistry from init,
// through their exported Register(*Registry) functions; a program that wants
// only some kinds calls those on a Registry of its own.
//
// Decisions where the design is silent:
//
//   - A criterion without an assertion fails with details saying so.
//   - A negative or non-finite weight handed to Evaluate is a programmer
//     error: Evaluate returns an error wrapping ErrInvalidWeight and checks
//     nothing. ParseCriteria rejects such weights in documents.
//   - A check that panics is reported as StatusError ("internal error"), so
//     one buggy kind cannot take the others down.
//   - When ctx ends, criteria not yet checked get StatusError and Evaluate
//     returns the partial result with ctx's error.
//   - DefaultConcurrency is 8: checks wait on I/O far more than on the CPU.
//   - JSON null and "" are the same axis and the same input entity.
//   - YAML merge keys (<<) are rejected rather than guessed at.
//   - The input entity a rollout was run for can travel with its evidence:
//     Env.SetEntity (sandbox.Load sets it from run.json) scopes evaluation
//     as WithEntity does, and WithEntity wins. An entity that could not be
//     read makes Evaluate return the error rather than guess which criteria
//     apply. Criteria left out for another entity are counted in
//     Counts.Skipped and named by TaskResult.Entity (not in the JSON, whose
//     keys are fixed); WithFilter leaves criteria out without counting them.
//   - When ctx ends with a cause (context.WithTimeoutCause), the criteria
//     cut short say the cause ("evaluation timed out after 10m0s").
//   - A benchmark keeps aggregates only (BenchmarkBuilder): per axis, per
//     criterion (told apart by criterion_id, in the order first met: pass
//     rate, mean score, errors, and the runs where it did not pass, failed
//     or error), and verdict counts. Benchmark names its runs "#0", "#1", ...
//   - Criteria files may be YAML (ParseCriteriaYAML, ValidateCriteriaYAML):
//     the YAML is converted to JSON keys in document order, and every
//     problem carries its line and column beside its pointer.
//   - Messages speak as a person does: an unknown key or kind (and an
//     unknown criterion key) suggests the nearest known one ("did you
//     mean"), a oneOf whose branches each require one key says "give
//     exactly one of" when several are given and `needs "a" or "b"` when
//     none is, a value that fits no branch's type "must be a string or a
//     list of strings", and jsonschema/v5's own phrasings are reworded (see
//     Validator). null prints as null.
//   - A YAML syntax error is located at the line to fix: yaml.v3 names the
//     line where the enclosing block began, so the line reported is the
//     first at which the document stops parsing (internal/yamlline).
package assert
