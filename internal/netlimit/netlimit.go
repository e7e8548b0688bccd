package netlimit

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// Listener wraps a net.Listener with a cap on open connections.
type Listener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New returns ln capped at maxConns open connections (less than 1 means 1).
func New(ln net.Listener, maxConns int) *Listener {
	return &Listener{Listener: ln, slots: make(chan struct{}, max(maxConns, 1)), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection. The slot is given
// back when the connection is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	wait := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			return &conn{Conn: c, release: func() { <-l.slots }}, nil
		}
		if Transient(err) {
			select {
			case <-time.After(wait):
			case <-l.done:
				<-l.slots
				return nil, net.ErrClosed
			}
			wait = min(wait*2, time.Second)
			continue
		}
		<-l.slots
		return nil, err
	}
}

// Transient reports whether an accept error is a lack of resources that
// passes (descriptors, buffers, memory), so the server should retry.
func Transient(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

// Close closes the listener; a waiting Accept returns net.ErrClosed.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type conn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
