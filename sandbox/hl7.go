package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

func init() { register("hl7", loadHL7) }

// loadHL7 attaches the outbound messages of the hl7/ folder: every *.hl7
// file, in name order, each holding one or more messages. The files are
// read (at most opts.MaxFileSize bytes each) when a check first needs them,
// and parsed once. One that cannot be read makes the checks that read the
// source report status error; one that does not parse is listed under
// "rejected" in their evidence.
func loadHL7(f folder, env *assert.Env, opts Options) {
	hl7.Attach(env, hl7.FolderSource(f.fsys, opts.MaxFileSize))
}
