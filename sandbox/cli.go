package sandbox

import (
	"path/filepath"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

func init() { register("cli", loadCLI) }

// loadCLI attaches cli/trace.json, the trace of the rollout's one run (a
// run object, or a {"runs": [...]} file holding exactly one run). Its
// workdir, when relative, is relative to the cli folder. A cli/ folder
// without a readable trace still attaches a source, which reports the
// problem as an error; verify runs with the process environment.
func loadCLI(f folder, env *assert.Env, _ Options) {
	dir := f.dir
	clitask.Attach(env, clitask.OpenTrace(filepath.Join(dir, "trace.json")))
}
