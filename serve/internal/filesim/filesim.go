package filesim

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/filekind"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/sftp"
)

// Sim is the files simulator: the seed's sftp/ tree, read once, and the
// SSH listener every run's SFTP sessions come through.
type Sim struct {
	seed tree

	// The SSH side (ssh.go).
	sshSide

	mu     sync.Mutex
	runs   map[string]*runFiles // by SFTP user
	serial atomic.Uint64
}

// New reads the seed's sftp/ folder into memory: files and folders, each
// file at most MaxFileSize and all of them at most MaxTreeSize. Any other
// kind of entry (a link, a device), a name the tree cannot hold, or a root
// entry named sftp.url is an error naming it. A missing sftp/ is an empty
// tree.
func New(seed fs.FS) (sim.Sim, error) {
	s := &Sim{seed: newTree(), runs: map[string]*runFiles{}}
	fi, err := fs.Stat(seed, "sftp")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, s.initSSH()
	case err != nil:
		return nil, fmt.Errorf("sftp: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("sftp: not a folder (it is %s)", filekind.Of(fi.Mode()))
	}
	err = fs.WalkDir(seed, "sftp", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if name == "sftp" {
			return nil
		}
		rel := strings.TrimPrefix(name, "sftp/")
		if err := checkPath(rel); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if rel == reserved {
			return fmt.Errorf("%s: %w", name, errReserved)
		}
		if s.seed.entries()+1 > MaxEntries {
			return fmt.Errorf("%s: %w", name, errEntries)
		}
		switch {
		case d.IsDir():
			s.seed.folders[rel] = &folder{kids: map[string]struct{}{}, seed: true}
		case d.Type().IsRegular():
			data, err := check.ReadFile(seed, name, MaxFileSize)
			if err != nil {
				return err // a *check.FileError names the file
			}
			if s.seed.size += int64(len(data)); s.seed.size > MaxTreeSize {
				return fmt.Errorf("%s: the seed's sftp/ holds more than %d bytes (256 MiB)", name, MaxTreeSize)
			}
			s.seed.files[rel] = &file{data: data, seed: true}
		default:
			return fmt.Errorf("%s: not a regular file or a folder (it is %s)", name, filekind.Of(d.Type()))
		}
		s.seed.link(rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, s.initSSH()
}

// NewRun starts the run's tree from the seed (sharing the seed's bytes)
// and lets the run's SFTP user log in.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	user, password := r.Credentials("sftp")
	rf := &runFiles{
		sim:      s,
		run:      r,
		user:     user,
		password: password,
		serial:   s.serial.Add(1),
		t:        s.seed.clone(),
		conns:    map[net.Conn]struct{}{},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[user] != nil {
		return nil, fmt.Errorf("files: the SFTP user %q is taken by another run", user)
	}
	s.runs[user] = rf
	return rf, nil
}

// lookup returns the active run whose SFTP user is user, or nil.
func (s *Sim) lookup(user string) *runFiles {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[user]
}

func (s *Sim) forget(rf *runFiles) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[rf.user] == rf {
		delete(s.runs, rf.user)
	}
}

// runFiles is one run's tree and its SFTP sessions. mu guards everything
// below it.
type runFiles struct {
	sim      *Sim
	run      sim.Run
	user     string
	password string
	serial   uint64

	mu      sync.Mutex
	t       tree
	stopped bool
	pending int64 // bytes held by uploads not yet closed
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup // the run's SSH connections
}

func (rf *runFiles) Mounts() []string { return []string{"files"} }

func (rf *runFiles) Endpoints(base string, into map[string]string) {
	into["files"] = base + "/files"
	if addr := rf.sim.addr(); addr != "" {
		into["sftp"] = "sftp://" + rf.user + "@" + sim.PublicAddr(base, addr) + "/"
	}
}

// Stop closes the tree, refuses new logins, ends the run's SSH
// connections and waits for them: an upload not yet closed is dropped,
// one whose close succeeded is in the tree.
func (rf *runFiles) Stop() {
	rf.sim.forget(rf)
	rf.mu.Lock()
	rf.stopped = true
	conns := slices.Collect(maps.Keys(rf.conns))
	rf.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	rf.wg.Wait()
}

// admit adds an authenticated SSH connection to the run; false when the
// run has stopped. A true answer is paired with leave.
func (rf *runFiles) admit(c net.Conn) bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return false
	}
	rf.conns[c] = struct{}{}
	rf.wg.Add(1)
	return true
}

func (rf *runFiles) leave(c net.Conn) {
	rf.mu.Lock()
	delete(rf.conns, c)
	rf.mu.Unlock()
	rf.wg.Done()
}

// Snapshot writes the final tree under sftp/, folders included.
func (rf *runFiles) Snapshot(d sim.Dir) error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	for _, p := range slices.Sorted(maps.Keys(rf.t.folders)) {
		if p == "" {
			continue
		}
		if err := d.MkdirAll("sftp/" + p); err != nil {
			return err
		}
	}
	for _, p := range slices.Sorted(maps.Keys(rf.t.files)) {
		if err := d.WriteFile("sftp/"+p, rf.t.files[p].data); err != nil {
			return err
		}
	}
	return nil
}

// Attach gives the run's tree as the sftp source: the tree as it is when
// a check first reads it, shared by the evaluation's checks.
func (rf *runFiles) Attach(env *assert.Env) { sftp.Attach(env, &liveSource{rf: rf}) }

// liveSource reads the run's tree once, when a check first asks.
type liveSource struct {
	rf   *runFiles
	once sync.Once
	src  sftp.Source
}

func (l *liveSource) source() sftp.Source {
	l.once.Do(func() {
		l.rf.mu.Lock()
		files := make(map[string][]byte, len(l.rf.t.files))
		for p, f := range l.rf.t.files {
			files[p] = f.data
		}
		l.rf.mu.Unlock()
		l.src = sftp.MemorySource(files)
	})
	return l.src
}

func (l *liveSource) Stat(ctx context.Context, name string) (sftp.Entry, error) {
	return l.source().Stat(ctx, name)
}

func (l *liveSource) Walk(ctx context.Context, dir string) ([]sftp.Entry, error) {
	return l.source().Walk(ctx, dir)
}

func (l *liveSource) ReadFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	return l.source().ReadFile(ctx, name, limit)
}

// --- operations shared by SFTP and HTTP ---

// opEvent is the sftp_op event (13.10); To is set for a rename only.
// A refused operation carries Error, and Status over HTTP.
type opEvent struct {
	Op        string  `json:"op"`
	Path      string  `json:"path"`
	To        *string `json:"to,omitempty"`
	Size      int64   `json:"size"`
	Transport string  `json:"transport"`
	Status    int     `json:"status,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// charge moves the run's memory budget by delta after a change: a
// negative delta gives bytes back.
func (rf *runFiles) charge(delta int64) error {
	if delta > 0 {
		return rf.run.Reserve(delta)
	}
	rf.run.Release(-delta)
	return nil
}

// pathError wraps err for the SFTP server and callers: fs.ErrNotExist
// inside a *fs.PathError is SFTP's "no such file".
func pathError(op, p string, err error) error {
	return &fs.PathError{Op: op, Path: "/" + p, Err: err}
}

// put writes data as the file p (folders on the way made when mkParents),
// recording the write, and returns whether it replaced a file and the
// time it wrote. held is what the caller has already reserved from
// the budget for data: put takes it over when it succeeds, and leaves it
// to the caller when it fails.
func (rf *runFiles) put(p string, data []byte, mkParents bool, transport string, held int64) (bool, time.Time, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return false, time.Time{}, pathError("write", p, errStopped)
	}
	pl, err := rf.t.planPut(p, data, mkParents)
	if err != nil {
		return false, time.Time{}, pathError("write", p, err)
	}
	if err := rf.charge(pl.delta - held); err != nil {
		return false, time.Time{}, pathError("write", p, err)
	}
	now := rf.run.Now()
	rf.t.applyPut(pl, now)
	rf.pending -= held
	for _, dir := range pl.missing {
		rf.emit("mkdir", dir, nil, 0, transport)
	}
	rf.emit("write", p, nil, int64(len(data)), transport)
	return pl.replaced, now, nil
}

func (rf *runFiles) mkdir(p, transport string) error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return pathError("mkdir", p, errStopped)
	}
	// Reserve first: a refused mkdir gives the bytes back.
	if err := rf.charge(entryCost); err != nil {
		return pathError("mkdir", p, err)
	}
	if err := rf.t.mkdir(p, rf.run.Now()); err != nil {
		rf.charge(-entryCost)
		return pathError("mkdir", p, err)
	}
	rf.emit("mkdir", p, nil, 0, transport)
	return nil
}

func (rf *runFiles) remove(p, folder, transport string) error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return pathError("remove", p, errStopped)
	}
	delta, size, err := rf.t.remove(p, folder)
	if err != nil {
		return pathError("remove", p, err)
	}
	rf.charge(delta)
	rf.emit("remove", p, nil, size, transport)
	return nil
}

func (rf *runFiles) rename(from, to string, replace bool, transport string) error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return pathError("rename", from, errStopped)
	}
	delta, size, err := rf.t.rename(from, to, replace)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: "/" + from, New: "/" + to, Err: err}
	}
	rf.charge(delta)
	if from != to {
		rf.emit("rename", from, &to, size, transport)
	}
	return nil
}

// emit records an operation; rf.mu is held, so events follow the order
// of the tree's changes.
func (rf *runFiles) emit(op, p string, to *string, size int64, transport string) {
	rf.run.Emit(sim.Event{Sim: "sftp", Type: "sftp_op", Fields: opEvent{Op: op, Path: p, To: to, Size: size, Transport: transport}})
}

// refuse records an operation the run refused (bad input, a bound, a
// conflict): an sftp_op event with the error, and status over HTTP (0
// leaves it out). The path and the error are cut to the 4 KiB an event
// copies.
func (rf *runFiles) refuse(op, p string, size int64, transport string, status int, msg string) {
	rf.run.Emit(sim.Event{Sim: "sftp", Type: "sftp_op", Fields: opEvent{
		Op: op, Path: cutText(p), Size: size, Transport: transport, Status: status, Error: cutText(msg),
	}})
}

func cutText(s string) string { return s[:min(len(s), sim.MaxEventBody)] }

// read returns the bytes of the file p (shared: never modified) and its
// modification time.
func (rf *runFiles) read(p string) ([]byte, time.Time, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if f := rf.t.files[p]; f != nil {
		return f.data, orStart(f.mod, rf.run.Started()), nil
	}
	if rf.t.folders[p] != nil {
		return nil, time.Time{}, pathError("open", p, errIsFolder)
	}
	return nil, time.Time{}, pathError("open", p, fs.ErrNotExist)
}

func (rf *runFiles) stat(p string) (info, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	fi, ok := rf.t.stat(p, rf.run.Started())
	if !ok {
		return info{}, pathError("stat", p, fs.ErrNotExist)
	}
	return fi, nil
}

func (rf *runFiles) list(p string) ([]fs.FileInfo, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	out, err := rf.t.list(p, rf.run.Started())
	if err != nil {
		return nil, pathError("readdir", p, err)
	}
	return out, nil
}

// hold reserves n bytes for an upload's buffer, within the run's bound on
// bytes held by open uploads and the sandbox's budget.
func (rf *runFiles) hold(n int64) error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return errStopped
	}
	if rf.pending+n > MaxTreeSize {
		return fmt.Errorf("the run's open uploads would hold more than %d bytes (256 MiB)", MaxTreeSize)
	}
	if err := rf.run.Reserve(n); err != nil {
		return err
	}
	rf.pending += n
	return nil
}

// unhold gives back what hold reserved.
func (rf *runFiles) unhold(n int64) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	rf.pending -= n
	rf.run.Release(n)
}
