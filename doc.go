// Package assay decides whether an AI agent did what a task asked, from the
// evidence its run left behind.
//
// This package holds no code: it is the map. The work is done by:
//
//   - assert: the core. An assertion is a small JSON spec keyed by its kind
//     ({"assert": "hl7-structural", ...}, or the cli-bench shape
//     {"exit_code": 0}); a Registry validates it against the kind's JSON
//     Schema and decodes it; an Env holds a rollout's evidence as typed
//     sources; Evaluate runs weighted criteria concurrently and returns a
//     score, per-axis scores and a verdict (pass >= 0.9, partial, fail).
//   - check: what every criteria kind shares: field assertions
//     ({path, expected}) against JSON or text documents, comparison rules,
//     best-candidate selection and the field_results evidence.
//   - fhir, hl7, x12, sftp, voice, portal, clitask: the kinds, each with its
//     evidence sources and parsers, written to one contract (KINDS.md). Each
//     registers its kinds in assert's default registry when imported, and
//     exports Register(*assert.Registry) for programs that want a registry
//     of their own.
//   - spec: typed builders for every kind's spec.
//   - report: results as text, JSON, JUnit and JSON lines.
//   - assaytest: Require and Check for go test.
//   - sandbox: loads a snapshot directory (fhir/, hl7/, x12/, sftp/, voice/,
//     portal/, cli/, run.json), or any fs.FS, into an Env, and imports every
//     kind.
//   - client: the criteria API client; client/clienttest fakes the API for
//     tests.
//   - command and cmd/assay: the command, for harnesses written in any
//     language; command.Main builds a command with kinds of your own.
//
// A complete evaluation, as cmd/assay eval does it:
//
//	criteria, err := assert.ParseCriteria(data)      // a JSON array, or {"data": [...]}
//	env, err := sandbox.Load("run-42/sandbox", sandbox.Options{})
//	result, err := assert.Evaluate(ctx, criteria, env)
//	fmt.Println(result.Score, result.Verdict, result.Axes["safety"].Score)
//
// Evidence can also be attached by hand, without files:
//
//	env := assert.NewEnv()
//	state, _ := portal.ParseState(stateJSON)
//	portal.Attach(env, portal.MemorySource(state))
//
// A check that cannot run because of its evidence (a source missing,
// unreachable or unreadable) reports status error, never a silent failure;
// an invalid spec fails its own criterion, with details that say why, and
// never stops the others.
package assay
