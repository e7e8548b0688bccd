package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/fhirsim"
	"github.com/assaykit/assay/serve/internal/filesim"
	"github.com/assaykit/assay/serve/internal/hl7sim"
	"github.com/assaykit/assay/serve/internal/portalsim"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/serve/internal/x12sim"
)

// PolicyFile is where a seed holds its payer policy.
const PolicyFile = "payer/policy.json"

// readPolicy reads the seed's payer policy, or nil when it has none.
func readPolicy(seed fs.FS) (*payer.Policy, error) {
	data, err := check.ReadFile(seed, PolicyFile, check.DefaultMaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PolicyFile, err)
	}
	p, err := payer.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PolicyFile, err)
	}
	return p, nil
}

// simulators returns the constructors of every simulator, each reading its
// own part of the seed once; at is the load time seeded records without a
// time of their own are stamped with (Options.Clock; zero: the real time).
var simulators = func(at time.Time) []func(seed fs.FS) (sim.Sim, error) {
	return []func(seed fs.FS) (sim.Sim, error){
		fhirsim.NewAt(at),
		hl7sim.New,
		filesim.New,
		portalsim.New,
		phoneSim,
		x12sim.New,
	}
}

func buildSims(seed fs.FS, at time.Time) ([]sim.Sim, error) {
	var out []sim.Sim
	for _, build := range simulators(at) {
		s, err := build(seed)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
