package serve

import (
	"io/fs"

	"github.com/assaykit/assay/serve/internal/sim"
)

// SetSimulators replaces the simulators for a test and returns a function
// that restores them.
func SetSimulators(list ...func(fs.FS) (sim.Sim, error)) (restore func()) {
	old := simulators
	simulators = list
	return func() { simulators = old }
}
