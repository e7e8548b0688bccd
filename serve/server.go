package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/netlimit"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/serve/internal/sim"
)

// Defaults of Options.
const (
	DefaultMaxRuns   = 64
	DefaultMaxMemory = 4 << 30
	DefaultTTL       = time.Hour
	// ShutdownGrace is how long Shutdown lets requests in flight finish.
	ShutdownGrace = 10 * time.Second
)

// Options configure a Server. Out is required.
type Options struct {
	// Out is the folder snapshots are written to: run R's goes to
	// Out/R/sandbox/. It is created if missing.
	Out string
	// Listen is the address listened on (default 127.0.0.1); Port and
	// SFTPPort are the HTTP and SSH ports (0: any free port).
	Listen         string
	Port, SFTPPort int
	// PublicURL is the base written into endpoints and links (default
	// http://LISTEN:PORT).
	PublicURL string
	// Token is the operator token; "" generates a random one.
	Token string
	// Criteria, when set, is a criteria file (JSON): complete evaluates it
	// on each snapshot and copies it to Out/ID/criteria.json.
	Criteria []byte
	// Registry decodes the criteria; nil means assert.DefaultRegistry().
	Registry *assert.Registry
	// MaxRuns caps the active runs (default DefaultMaxRuns); MaxMemory
	// caps what all runs hold together (default DefaultMaxMemory); TTL
	// completes a run idle that long (default DefaultTTL).
	MaxRuns   int
	MaxMemory int64
	TTL       time.Duration
	// Clock starts every run's clock that names none; zero means the real
	// time at the run's creation.
	Clock time.Time
	// Now is the real time that run clocks move with; nil means time.Now.
	// Tests give a clock that stands still, so snapshots are byte-identical.
	Now func() time.Time
	// Log receives the server's log lines; nil discards them.
	Log io.Writer
	// MaxEvents caps the events kept per run (default DefaultMaxEvents).
	MaxEvents int
	// PersonaURL and PersonaModel are the Chat Completions server and the
	// model of the phone line's LLM personas ("llm": true); PersonaAPIKey
	// is sent to that server only and never printed. PersonaCache is a
	// file of recorded answers, keyed by the model and a hash of the
	// conversation: read at start, rewritten (atomically) with each new
	// answer, so a rerun in a new process replays them. A line with an LLM
	// persona needs PersonaModel and PersonaURL or PersonaCache.
	// PersonaTimeout bounds one answer (default 20s): past it, or for an
	// answer that is not one spoken turn, the persona says its fallback.
	PersonaURL, PersonaModel, PersonaAPIKey, PersonaCache string
	PersonaTimeout                                        time.Duration
}

// Server is a running sandbox: the HTTP control plane and simulators, the
// simulators' own listeners, and the runs.
type Server struct {
	opts     Options
	criteria []assert.Criterion
	policy   *payer.Policy // nil without payer/policy.json
	sims     []sim.Sim

	used atomic.Int64 // bytes reserved by all runs

	mu       sync.Mutex
	runs     map[string]*Run
	order    []string // run ids in creation order
	nextRun  int
	http     *http.Server
	ln       net.Listener
	url      string
	sftpAddr string
	closed   bool
	stopTTL  chan struct{}
	wg       sync.WaitGroup
}

// Errors of NewRun, by what went wrong; the control plane answers them
// with 400, 409 and 429.
var (
	ErrInvalidRun  = errors.New("invalid run")
	ErrRunExists   = errors.New("run exists")
	ErrTooManyRuns = errors.New("too many active runs")
	ErrClosed      = errors.New("sandbox closed")
)

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// New parses the seed and returns a Server ready to Start. A seed that
// cannot be used is an error naming the file and the problem; nothing
// listens yet.
func New(seed fs.FS, opts Options) (*Server, error) {
	if opts.Out == "" {
		return nil, errors.New("serve: Options.Out is required")
	}
	if opts.Listen == "" {
		opts.Listen = "127.0.0.1"
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = DefaultMaxRuns
	}
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = DefaultMaxEvents
	}
	if opts.Registry == nil {
		opts.Registry = assert.DefaultRegistry()
	}
	if opts.Token == "" {
		opts.Token = randomHex(24)
	}
	s := &Server{opts: opts, runs: map[string]*Run{}}
	if opts.Criteria != nil {
		c, err := assert.ParseCriteria(opts.Criteria)
		if err != nil {
			return nil, fmt.Errorf("serve: criteria: %w", err)
		}
		s.criteria = c
	}
	policy, err := readPolicy(seed)
	if err != nil {
		return nil, err
	}
	s.policy = policy
	sims, err := buildSims(seed, opts.Clock)
	if err != nil {
		return nil, err
	}
	if err := configurePhone(sims, opts); err != nil {
		return nil, err
	}
	s.sims = sims
	return s, nil
}

// Token returns the operator token.
func (s *Server) Token() string { return s.opts.Token }

// URL returns the public base URL (after Start).
func (s *Server) URL() string { return s.publicURL() }

// SFTPAddr returns the SSH listener's public address, HOST:PORT (after
// Start): the public URL's host with the listener's port.
func (s *Server) SFTPAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sftpAddr
}

func (s *Server) publicURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// logf writes one line to the log, escaped as assay's messages are
// (report.Escape): what it says may quote a request's path or an agent's
// input, which must not reach an operator's terminal raw.
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintln(s.opts.Log, report.Escape("assay serve: "+fmt.Sprintf(format, args...)))
}

// Start listens on every port and serves in the background until Close or
// Shutdown.
func (s *Server) Start() error {
	addr := net.JoinHostPort(s.opts.Listen, strconv.Itoa(s.opts.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	sftpHost := net.JoinHostPort(s.opts.Listen, strconv.Itoa(s.opts.SFTPPort))
	var sftpAddr string
	var started []sim.Listener
	for _, sm := range s.sims {
		l, ok := sm.(sim.Listener)
		if !ok {
			continue
		}
		a, err := l.Listen(context.Background(), sftpHost)
		if err != nil {
			ln.Close()
			for _, o := range started {
				o.Close()
			}
			return fmt.Errorf("serve: %w", err)
		}
		started = append(started, l)
		sftpAddr = a
	}
	lim := netlimit.New(ln, DefaultMaxConns)
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          nil,
	}
	s.mu.Lock()
	s.ln, s.http, s.sftpAddr = lim, srv, sftpAddr
	s.url = s.opts.PublicURL
	if s.url == "" {
		s.url = "http://" + ln.Addr().String()
	}
	for len(s.url) > 0 && s.url[len(s.url)-1] == '/' {
		s.url = s.url[:len(s.url)-1]
	}
	if sftpAddr != "" {
		s.sftpAddr = sim.PublicAddr(s.url, sftpAddr)
	}
	s.stopTTL = make(chan struct{})
	s.mu.Unlock()
	if err := os.MkdirAll(s.opts.Out, 0o755); err != nil {
		s.Close()
		return fmt.Errorf("serve: %w", err)
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		srv.Serve(lim)
	}()
	go func() {
		defer s.wg.Done()
		s.reapIdle()
	}()
	return nil
}

// Serve starts the server and serves until ctx ends, then shuts down as
// Shutdown does (every active run completed, its snapshot written).
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Start(); err != nil {
		return err
	}
	<-ctx.Done()
	return s.Shutdown(context.Background())
}

// Shutdown stops accepting, lets requests in flight finish (at most
// ShutdownGrace, or until ctx ends), completes every active run and closes
// every listener.
func (s *Server) Shutdown(ctx context.Context) error {
	srv, runs, ok := s.stop()
	if !ok {
		return nil
	}
	if srv != nil {
		grace, cancel := context.WithTimeout(ctx, ShutdownGrace)
		if err := srv.Shutdown(grace); err != nil {
			srv.Close()
		}
		cancel()
	}
	var errs []error
	var wg sync.WaitGroup
	var emu sync.Mutex
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.complete(ctx, r); err != nil {
				emu.Lock()
				errs = append(errs, fmt.Errorf("run %s: %w", r.id, err))
				emu.Unlock()
			}
		}()
	}
	wg.Wait()
	s.closeListeners()
	s.wg.Wait()
	return errors.Join(errs...)
}

// stop marks the server closed and stops the idle reaper, once: ok is false
// when it was closed already. It returns the HTTP server and the runs that
// were active.
func (s *Server) stop() (srv *http.Server, active []*Run, ok bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, false
	}
	s.closed = true
	srv, active = s.http, s.activeLocked()
	stop := s.stopTTL
	s.mu.Unlock()
	if stop != nil {
		close(stop)
	}
	return srv, active, true
}

// Close stops the server at once: no run is completed and nothing is
// written. Tests that need snapshots call Shutdown.
func (s *Server) Close() error {
	srv, runs, ok := s.stop()
	if !ok {
		return nil
	}
	if srv != nil {
		srv.Close()
	}
	for _, r := range runs {
		r.discard()
	}
	s.closeListeners()
	s.wg.Wait()
	return nil
}

func (s *Server) closeListeners() {
	for _, sm := range s.sims {
		if l, ok := sm.(sim.Listener); ok {
			l.Close()
		}
	}
}

func (s *Server) activeLocked() []*Run {
	var out []*Run
	for _, id := range s.order {
		if r := s.runs[id]; r != nil && r.Status() == StatusActive {
			out = append(out, r)
		}
	}
	return out
}

// reapIdle completes active runs idle for the TTL.
func (s *Server) reapIdle() {
	tick := min(max(s.opts.TTL/4, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-s.stopTTL:
			return
		case <-t.C:
		}
		s.mu.Lock()
		runs := s.activeLocked()
		s.mu.Unlock()
		for _, r := range runs {
			if time.Since(time.Unix(0, r.lastSeen.Load())) >= s.opts.TTL {
				s.logf("run %s idle for %s: completing it", r.id, s.opts.TTL)
				go s.complete(context.Background(), r)
			}
		}
	}
}

func (s *Server) reserve(n int64) bool {
	for {
		used := s.used.Load()
		if used+n > s.opts.MaxMemory {
			return false
		}
		if s.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

func (s *Server) release(n int64) { s.used.Add(-n) }

// NewRun creates a run from the seed. Its errors wrap ErrInvalidRun (a bad
// id or clock), ErrRunExists (the id is taken, or Out/ID exists),
// ErrTooManyRuns or ErrClosed.
func (s *Server) NewRun(ctx context.Context, o RunOptions) (*Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.ID != "" && !runIDPattern.MatchString(o.ID) {
		return nil, fmt.Errorf("%w: id %q must match [A-Za-z0-9_-]{1,64}", ErrInvalidRun, o.ID)
	}
	s.mu.Lock()
	if s.closed || s.http == nil {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if len(s.activeLocked()) >= s.opts.MaxRuns {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %d runs are active (--max-runs %d)", ErrTooManyRuns, s.opts.MaxRuns, s.opts.MaxRuns)
	}
	id := o.ID
	if id == "" {
		for {
			s.nextRun++
			id = "run-" + strconv.Itoa(s.nextRun)
			if s.runs[id] == nil && !exists(filepath.Join(s.opts.Out, id)) {
				break
			}
		}
	} else if s.runs[id] != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: run %s exists", ErrRunExists, id)
	} else if exists(filepath.Join(s.opts.Out, id)) {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s exists", ErrRunExists, filepath.Join(s.opts.Out, id))
	}
	start := o.Clock
	if start.IsZero() {
		start = s.opts.Clock
	}
	now := s.opts.Now()
	r := &Run{
		srv:      s,
		id:       id,
		token:    randomHex(24),
		entity:   o.Entity,
		created:  now,
		clock:    newClock(start, s.opts.Now),
		events:   &eventLog{max: s.opts.MaxEvents},
		mounts:   map[string]sim.RunSim{},
		counters: map[string]int64{},
		sftpUser: id,
		sftpPass: randomHex(12),
		portUser: "provider",
		portPass: randomHex(12),
		status:   StatusActive,
	}
	r.started = r.clock.Now()
	if s.policy != nil {
		r.ledger = payer.NewLedger(s.policy, simRun{r})
	}
	r.lastSeen.Store(time.Now().UnixNano())
	// Reserve the id before the simulators start, so a second NewRun of the
	// same id is refused while this one builds.
	s.runs[id] = r
	s.order = append(s.order, id)
	s.mu.Unlock()

	r.emit(sim.Event{Sim: "run", Type: "run_phase", Fields: phaseEvent{Phase: "created"}})
	for _, sm := range s.sims {
		rs, err := sm.NewRun(simRun{r})
		if err != nil {
			r.discard()
			s.forget(id)
			return nil, fmt.Errorf("serve: run %s: %w", id, err)
		}
		r.sims = append(r.sims, rs)
		for _, m := range rs.Mounts() {
			r.mounts[m] = rs
		}
	}
	return r, nil
}

// Run returns the run with id, or nil.
func (s *Server) Run(id string) *Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id]
}

// Runs returns every run the server knows, active and completed, in
// creation order.
func (s *Server) Runs() []*Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Run, 0, len(s.order))
	for _, id := range s.order {
		if r := s.runs[id]; r != nil {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runs, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// errRunCompleted is DeleteRun's answer for a completed run.
var errRunCompleted = errors.New("the run is completed: its snapshot stays")

// DeleteRun discards an active run without a snapshot. A completed run
// cannot be deleted.
func (s *Server) DeleteRun(id string) error {
	r := s.Run(id)
	if r == nil {
		return fmt.Errorf("%w: no run %s", fs.ErrNotExist, id)
	}
	r.mu.Lock()
	if r.status != StatusActive || r.stopping {
		r.mu.Unlock()
		return fmt.Errorf("%w: %w", ErrRunExists, errRunCompleted)
	}
	r.stopping = true
	r.mu.Unlock()
	r.inflight.Wait()
	r.discard()
	s.forget(id)
	return nil
}

// discard stops the run's simulators and frees what it holds.
func (r *Run) discard() {
	r.mu.Lock()
	r.stopping = true
	sims := r.sims
	r.mu.Unlock()
	for _, sm := range sims {
		sm.Stop()
	}
	simRun{r}.Release(r.used.Load())
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("serve: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}
