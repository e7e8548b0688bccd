package fhir

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/assaykit/assay/internal/netlimit"
)

// Server defaults.
const (
	// DefaultMaxConns caps the connections a Server holds at once.
	DefaultMaxConns = 256
	// DefaultIdleTimeout closes a keep-alive connection idle this long.
	DefaultIdleTimeout = 60 * time.Second
)

// Server serves a Store over HTTP on a listener it owns: at most MaxConns
// connections at once (further ones wait in the kernel's backlog), idle
// connections closed after IdleTimeout, request headers bounded in size
// and time, and it keeps serving when accept fails for lack of file
// descriptors (EMFILE, ENFILE), retrying with a backoff. Use it for
// sandboxes and tests; Handler is the http.Handler for your own server.
type Server struct {
	// Handler serves requests (NewServer sets a Handler of the store).
	Handler http.Handler
	// MaxConns and IdleTimeout: <= 0 means the defaults.
	MaxConns    int
	IdleTimeout time.Duration

	mu  sync.Mutex
	srv *http.Server
	ln  net.Listener
}

// NewServer returns a Server of s with the defaults.
func NewServer(s *Store) *Server { return &Server{Handler: NewHandler(s)} }

// Listen starts serving on addr ("127.0.0.1:0" for any free port) and
// returns the base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	go s.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

// Serve serves on ln until Close or Shutdown; it returns
// http.ErrServerClosed then.
func (s *Server) Serve(ln net.Listener) error {
	maxConns := s.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	idle := s.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	lim := netlimit.New(ln, maxConns)
	srv := &http.Server{
		Handler:           s.Handler,
		IdleTimeout:       idle,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	s.mu.Lock()
	if s.srv != nil {
		s.mu.Unlock()
		return errors.New("fhir: Server is already serving")
	}
	s.srv, s.ln = srv, lim
	s.mu.Unlock()
	return srv.Serve(lim)
}

// Close stops the server at once.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Shutdown stops accepting and waits for requests in flight, until ctx
// ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Shutdown(ctx)
}
