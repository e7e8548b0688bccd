package serve

import (
	"io/fs"

	"github.com/assaykit/assay/serve/internal/fhirsim"
	"github.com/assaykit/assay/serve/internal/sim"
)

// simulators are the constructors of every simulator, each reading its own
// part of the seed once.
var simulators = []func(seed fs.FS) (sim.Sim, error){fhirsim.New}

func buildSims(seed fs.FS) ([]sim.Sim, error) {
	var out []sim.Sim
	for _, build := range simulators {
		s, err := build(seed)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
