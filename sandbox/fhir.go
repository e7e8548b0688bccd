package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/fhir"
)

func init() { register("fhir", loadFHIR) }

// loadFHIR attaches the fhir/ folder: its *.json resources and Bundles,
// loaded into an in-memory store on the first search, or, when the folder
// holds fhir.url, the live server it names (its first line that is neither
// blank nor a # comment; the bearer token from ASSAY_FHIR_TOKEN). Nothing
// connects until a check searches. As with sftp.url, the sandbox reads the
// URL file and the environment; package fhir only builds the sources.
func loadFHIR(f folder, env *assert.Env, opts Options) {
	data, err := check.ReadFile(f.fsys, fhir.URLFile, maxURLFile)
	switch {
	case err == nil:
		fhir.Attach(env, fhir.URLSource(string(data), os.Getenv(fhir.TokenEnv), opts.MaxFileSize, fhir.WithMaxTotalSize(opts.MaxTotalSize)))
	case !errors.Is(err, fs.ErrNotExist):
		fhir.Attach(env, fhir.Unavailable(fmt.Errorf("fhir/%s: %w", fhir.URLFile, err)))
	default:
		fhir.Attach(env, fhir.FolderSource(f.fsys, opts.MaxFileSize))
	}
}
