// Package sandbox loads a sandbox snapshot directory, one rollout's evidence
// recorded as files, into an assert.Env, so evidence can be recorded once and
// evaluated offline:
//
//	sandbox/
//	  fhir/        *.json resources or bundles, or fhir.url naming a live server
//	               (its first line that is not blank or a # comment; bearer
//	               token from ASSAY_FHIR_TOKEN)
//	  hl7/         *.hl7 outbound messages (CR/LF/CRLF; MLLP framing allowed)
//	  x12/         NAME.request.x12 / NAME.response.x12 pairs, NAME.meta.json, or records.json
//	  sftp/        the final SFTP tree, or sftp.url naming a live endpoint
//	               (sftp://user@host:port/root; key and known_hosts from
//	               ASSAY_SFTP_KEY and ASSAY_SFTP_KNOWN_HOSTS, else ~/.ssh)
//	  voice/       transcript.json or transcript.txt
//	  portal/      state.json
//	  cli/         trace.json
//	  run.json     optional: {"input_entity_id": ...}, the input entity of the rollout
//
// Each subfolder is optional. A missing one means that source is absent, and
// the checks that need it report status error; the other checks still run.
// Importing sandbox registers every kind in assert's default registry.
//
// Load reads a snapshot on disk; LoadFS reads one from any fs.FS (an
// embed.FS, a tarball unpacked in memory, an object store). Every evidence
// file is read through check.ReadFile: a regular file of at most
// Options.MaxFileSize bytes (64 MiB by default), and on disk a symbolic link
// is followed only while it stays inside the snapshot. Each evidence folder
// is one source with a total of its own (check.CapTotal): its files
// together, each name counted once however many checks read it, at most
// Options.MaxTotalSize bytes (256 MiB by default); a live server named by
// fhir.url or sftp.url gets the same total (over one search's pages, or the
// files read from the endpoint). Past it the checks that need the folder
// are errors that name the cap. Files are read when a
// check first needs them, once. Close the Env when done: a live source holds
// its connection until then.
//
// Load and LoadFS apply run.json: the input entity it names is recorded in
// the Env (assert.Env.SetEntity), so that assert.Evaluate on that Env runs
// only the entity's criteria and the unscoped ones, and counts the others
// as skipped (TaskResult.Counts.Skipped): the library gives what assay eval
// gives on the same folder. assert.WithEntity (assay eval --entity) wins
// over it. RunEntity reads run.json on its own.
//
// RegisterFolder adds a folder of your own, for the evidence of a kind you
// wrote.
package sandbox
