package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/portal"
)

func init() { register("portal", loadPortal) }

// loadPortal attaches portal/state.json. A portal/ folder without it still
// attaches a source, which reports the missing file as an error.
func loadPortal(f folder, env *assert.Env, opts Options) {
	portal.Attach(env, portal.FolderSource(f.fsys, opts.MaxFileSize))
}
