package filesim

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/assaykit/assay/internal/netlimit"
	"github.com/assaykit/assay/internal/sshsftp"
	"golang.org/x/crypto/ssh"
)

// Bounds of the SSH listener (DESIGN.md section 11, section 12 rule 20).
const (
	// MaxConns caps the SSH connections of all runs together; more wait
	// in the kernel's backlog until one closes.
	MaxConns = 128
	// HandshakeTimeout closes a connection that has not finished the SSH
	// handshake (login included) in that time.
	HandshakeTimeout = 10 * time.Second
	// IdleTimeout closes a connection that moves no byte for that long.
	IdleTimeout = 5 * time.Minute
)

// handshakeTimeout and maxConns are HandshakeTimeout and MaxConns; tests
// make them small.
var (
	handshakeTimeout = HandshakeTimeout
	maxConns         = MaxConns
)

// sshSide is the one SSH listener every run's SFTP sessions come through.
type sshSide struct {
	cfg *ssh.ServerConfig

	smu    sync.Mutex
	ln     net.Listener
	bound  string
	conns  map[net.Conn]struct{} // every connection, logged in or not
	closed bool
	swg    sync.WaitGroup
}

// initSSH makes the server's configuration: a host key of its own (fresh
// for every sandbox) and password logins checked against the runs.
func (s *Sim) initSSH() error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("files: a host key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return fmt.Errorf("files: a host key: %w", err)
	}
	s.cfg = &ssh.ServerConfig{
		PasswordCallback: s.password,
		MaxAuthTries:     6,
		ServerVersion:    "SSH-2.0-assay_serve",
	}
	s.cfg.AddHostKey(signer)
	s.conns = map[net.Conn]struct{}{}
	return nil
}

// errLogin is every failed login's error: it says nothing of which part
// was wrong, and never holds the password.
var errLogin = errors.New("wrong user or password, or the run is completed")

// password logs a run's SFTP user in with its password. The run's
// serial goes into the permissions, so that the connection joins that
// very run (not a later one given the same id).
func (s *Sim) password(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
	rf := s.lookup(c.User())
	if rf == nil {
		return nil, errLogin
	}
	if subtle.ConstantTimeCompare(pw, []byte(rf.password)) != 1 {
		// Bad input aimed at an active run (another run's password, a
		// guess): recorded on that run, without the password.
		rf.refuse("login", "", 0, "sftp", 0, "a login as the run's user with a wrong password")
		return nil, errLogin
	}
	return &ssh.Permissions{Extensions: map[string]string{"run": strconv.FormatUint(rf.serial, 10)}}, nil
}

// Listen starts the SSH listener on addr and returns its address.
func (s *Sim) Listen(ctx context.Context, addr string) (string, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("files: the SFTP listener: %w", err)
	}
	return s.listenOn(ln)
}

// listenOn serves ln, capped at maxConns connections.
func (s *Sim) listenOn(ln net.Listener) (string, error) {
	s.smu.Lock()
	defer s.smu.Unlock()
	if s.ln != nil || s.closed {
		ln.Close()
		return "", errors.New("files: the SFTP listener is started once")
	}
	s.ln = netlimit.New(ln, maxConns)
	s.bound = ln.Addr().String()
	s.swg.Add(1)
	go s.serve(s.ln)
	return s.bound, nil
}

// addr is the listener's address, "" before Listen.
func (s *Sim) addr() string {
	s.smu.Lock()
	defer s.smu.Unlock()
	return s.bound
}

// Close stops the listener, ends every connection and waits for them.
func (s *Sim) Close() error {
	s.smu.Lock()
	s.closed = true
	ln := s.ln
	for c := range s.conns {
		c.Close()
	}
	s.smu.Unlock()
	var err error
	if ln != nil {
		err = ln.Close()
	}
	s.swg.Wait()
	return err
}

// serve accepts connections until the listener closes. netlimit waits at
// the connection cap and waits out a lack of descriptors; any other
// accept error is waited out too, with a backoff up to a second.
func (s *Sim) serve(ln net.Listener) {
	defer s.swg.Done()
	delay := time.Duration(0)
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		s.smu.Lock()
		if s.closed {
			s.smu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.swg.Add(1)
		s.smu.Unlock()
		go func() {
			defer s.swg.Done()
			s.handle(c)
			c.Close()
			s.smu.Lock()
			delete(s.conns, c)
			s.smu.Unlock()
		}()
	}
}

// handle runs one connection: the handshake within HandshakeTimeout, then
// SFTP sessions on the run the user logged in to, until the connection
// ends or the run stops.
func (s *Sim) handle(c net.Conn) {
	timer := time.AfterFunc(handshakeTimeout, func() { c.Close() })
	sc, chans, reqs, err := ssh.NewServerConn(&sshsftp.IdleConn{Conn: c, Timeout: IdleTimeout}, s.cfg)
	if !timer.Stop() || err != nil {
		if sc != nil {
			sc.Close()
		}
		return
	}
	defer sc.Close()
	rf := s.lookup(sc.User())
	if rf == nil || sc.Permissions == nil || sc.Permissions.Extensions["run"] != strconv.FormatUint(rf.serial, 10) || !rf.admit(c) {
		return // the run stopped since the login
	}
	defer rf.leave(c)
	sshsftp.ServeSessions(chans, reqs, rf.handlers())
}
