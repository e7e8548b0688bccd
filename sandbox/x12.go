package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/x12"
)

func init() { register("x12", loadX12) }

// loadX12 attaches the recorded X12 exchanges of the x12/ folder:
// NAME.request.x12 / NAME.response.x12 pairs with optional NAME.meta.json,
// and records.json. The folder is read when a check first needs it, each
// file capped at opts.MaxFileSize; a file that cannot be read makes the
// checks that need the folder report status error.
func loadX12(f folder, env *assert.Env, opts Options) {
	x12.Attach(env, x12.FolderSource(f.fsys, opts.MaxFileSize))
}
