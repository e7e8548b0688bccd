package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

func init() { register("hl7", loadHL7) }

// loadHL7 attaches the outbound messages of the hl7/ folder: every *.hl7
// file, in name order, each holding one or more messages. The files are
// read when a check first needs them; one that cannot be read or parsed
// makes the checks that read the source report status error.
func loadHL7(f folder, env *assert.Env, _ Options) {
	dir := f.dir
	hl7.Attach(env, hl7.DirSource(dir))
}
