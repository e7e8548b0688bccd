package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

func init() { register("cli", loadCLI) }

// loadCLI attaches cli/trace.json, the trace of the rollout's one run (a
// run object, or a {"runs": [...]} file holding exactly one run), read from
// the folder's file system once, on first use, within opts.MaxFileSize;
// the files file_contains reads in the trace's workdir count, with it,
// against opts.MaxTotalSize (rule 17: the cli source's total). Its
// workdir, when relative, is relative to the cli folder on disk; a snapshot
// that is not on disk has no folder to resolve it against, so the checks
// that look at the working directory report status error saying so. A cli/
// folder without a readable trace still attaches a source, which reports
// the problem as an error; verify runs with the process environment.
func loadCLI(f folder, env *assert.Env, opts Options) {
	clitask.Attach(env, clitask.FolderSource(f.fsys, f.dir, opts.MaxFileSize, clitask.MaxTotalSize(opts.MaxTotalSize)))
}
