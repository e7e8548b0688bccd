package sandbox

import (
	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/fhir"
)

func init() { register("fhir", loadFHIR) }

// loadFHIR attaches the fhir/ folder: its *.json resources and Bundles,
// loaded into an in-memory store on the first search, or the live server
// that fhir/fhir.url names.
func loadFHIR(f folder, env *assert.Env, opts Options) {
	fhir.Attach(env, fhir.FolderSource(f.fsys, opts.MaxFileSize))
}
