package serve

import (
	"io/fs"

	"github.com/assaykit/assay/serve/internal/phonesim"
	"github.com/assaykit/assay/serve/internal/sim"
)

// PhoneLineFile is where a seed holds its phone line (DESIGN.md 13.8).
const PhoneLineFile = phonesim.File

// ParsePhoneLine checks a phone line (voice/ivr.json) as assay serve reads
// it at start: decoded strictly, with every node, route and persona it
// names resolved, every node reachable from start, and no cycle of nodes
// in which none gathers or hands the call to a persona. The error lists
// every problem with its JSON pointer, line and column. It does not check
// what needs the rest of the seed (a payer policy for lookup_member, a
// model for an LLM persona).
func ParsePhoneLine(data []byte) error {
	_, err := phonesim.Parse(data)
	return err
}

// phoneSim builds the phone line from the seed.
func phoneSim(seed fs.FS) (sim.Sim, error) {
	s, err := phonesim.New(seed)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// configurePhone gives the phone line's LLM personas their model and
// server from the options.
func configurePhone(sims []sim.Sim, o Options) error {
	for _, s := range sims {
		if p, ok := s.(*phonesim.Sim); ok {
			if err := p.Configure(phonesim.Config{
				URL: o.PersonaURL, Model: o.PersonaModel, APIKey: o.PersonaAPIKey,
				Cache: o.PersonaCache, Timeout: o.PersonaTimeout,
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
