package serve

import (
	"io/fs"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
)

// SetSimulators replaces the simulators for a test and returns a function
// that restores them.
func SetSimulators(list ...func(fs.FS) (sim.Sim, error)) (restore func()) {
	old := simulators
	simulators = func(time.Time) []func(fs.FS) (sim.Sim, error) { return list }
	return func() { simulators = old }
}
