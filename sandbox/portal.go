package sandbox

import (
	"path/filepath"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

func init() { register("portal", loadPortal) }

// loadPortal attaches portal/state.json. A portal/ folder without it still
// attaches a source, which reports the missing file as an error.
func loadPortal(f folder, env *assert.Env, _ Options) {
	dir := f.dir
	portal.Attach(env, portal.FileState(filepath.Join(dir, "state.json")))
}
