package filesim

import (
	"net"
	"time"

	"github.com/assaykit/assay/serve/internal/sim"
)

// SetHandshakeTimeout shortens the handshake deadline for a test and
// returns a function that restores it.
func SetHandshakeTimeout(d time.Duration) (restore func()) {
	old := handshakeTimeout
	handshakeTimeout = d
	return func() { handshakeTimeout = old }
}

// SetMaxConns sets the connection cap of listeners started later and
// returns a function that restores it.
func SetMaxConns(n int) (restore func()) {
	old := maxConns
	maxConns = n
	return func() { maxConns = old }
}

// ListenOn serves the simulator's SSH side on ln, as Listen does on the
// listener it makes.
func ListenOn(s sim.Sim, ln net.Listener) (string, error) { return s.(*Sim).listenOn(ln) }
