package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/x12"
)

func init() { register("x12", loadX12) }

// loadX12 attaches the recorded X12 exchanges of the x12/ folder:
// NAME.request.x12 / NAME.response.x12 pairs with optional NAME.meta.json,
// and records.json. A folder that cannot be read still attaches a source,
// which reports the problem to the checks that need it.
func loadX12(f folder, env *assert.Env, _ Options) {
	dir := f.dir
	x12.Attach(env, x12.DirSource(dir))
}
