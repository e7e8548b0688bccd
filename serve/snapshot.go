package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/serve/internal/sim"
)

// snapshotFolders are the evidence folders every snapshot has, empty or
// not: a run that captured no message has an empty hl7/, so a criterion
// that needs one fails for want of a candidate rather than erroring for
// want of a source.
var snapshotFolders = []string{"fhir", "hl7", "x12", "sftp", "portal", "voice"}

// complete freezes r and writes its snapshot; see Run.Complete. Calls are
// serialised per run: a second call waits for the first and answers the
// same. A failed write leaves the run frozen (its endpoints 409) with its
// state in memory, and a later call tries again.
func (s *Server) complete(ctx context.Context, r *Run) (string, error) {
	r.completeMu.Lock()
	defer r.completeMu.Unlock()
	r.mu.Lock()
	if r.status == StatusCompleted {
		p := r.snapshot
		r.mu.Unlock()
		return p, nil
	}
	r.stopping = true
	r.mu.Unlock()
	// Every request admitted before stopping was set has answered once
	// this returns; none is admitted after.
	r.inflight.Wait()
	if !r.frozen {
		for _, sm := range r.sims {
			sm.Stop()
		}
		r.completed = r.clock.Now()
		r.emit(sim.Event{Sim: "run", Type: "run_phase", Fields: phaseEvent{Phase: "completed"}})
		r.frozen = true
	}
	dir, err := s.writeSnapshot(r)
	if err != nil {
		s.logf("run %s: writing its snapshot: %v", r.id, err)
		return "", err
	}
	snap := filepath.Join(dir, "sandbox")
	var result *assert.TaskResult
	var resultErr error
	if s.criteria != nil {
		result, resultErr = s.evaluate(ctx, r, snap)
	}
	r.mu.Lock()
	r.status = StatusCompleted
	r.snapshot = snap
	r.result, r.resultErr = result, resultErr
	sims := r.sims
	r.sims = nil
	r.mu.Unlock()
	_ = sims // dropped: the snapshot holds the run's state from now on
	simRun{r}.Release(r.used.Load())
	return snap, nil
}

func (s *Server) evaluate(ctx context.Context, r *Run, snap string) (*assert.TaskResult, error) {
	env, err := sandbox.Load(snap, sandbox.Options{})
	if err != nil {
		return nil, err
	}
	defer env.Close()
	var opts []assert.Option
	if r.entity != "" {
		opts = append(opts, assert.WithEntity(r.entity))
	}
	res, err := s.opts.Registry.Evaluate(ctx, s.criteria, env, opts...)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// writeSnapshot assembles OUT/.tmp-ID-* and renames it to OUT/ID, so a
// reader never sees half a snapshot. It returns OUT/ID as an absolute path.
func (s *Server) writeSnapshot(r *Run) (string, error) {
	out, err := filepath.Abs(s.opts.Out)
	if err != nil {
		return "", err
	}
	final := filepath.Join(out, r.id)
	if exists(final) {
		return "", fmt.Errorf("%s exists: a snapshot is never overwritten", final)
	}
	tmp, err := os.MkdirTemp(out, ".tmp-"+r.id+"-")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	d := &dirWriter{root: filepath.Join(tmp, "sandbox"), hashes: map[string]string{}}
	for _, f := range snapshotFolders {
		if err := d.MkdirAll(f); err != nil {
			return "", err
		}
	}
	for _, sm := range r.sims {
		if err := sm.Snapshot(d); err != nil {
			return "", err
		}
	}
	events, dropped := r.events.jsonl()
	if err := d.WriteFile("events.jsonl", events); err != nil {
		return "", err
	}
	var entity *string
	if r.entity != "" {
		entity = &r.entity
	}
	runJSON, _ := json.MarshalIndent(struct {
		RunID         string  `json:"run_id"`
		Entity        *string `json:"input_entity_id"`
		StartedAt     string  `json:"started_at"`
		CompletedAt   string  `json:"completed_at"`
		EventsDropped int64   `json:"events_dropped"`
	}{r.id, entity, stamp(r.started), stamp(r.completed), dropped}, "", "  ")
	if err := d.WriteFile("run.json", append(runJSON, '\n')); err != nil {
		return "", err
	}
	manifest, _ := json.MarshalIndent(map[string]any{"files": d.hashes}, "", "  ")
	if err := os.WriteFile(filepath.Join(d.root, "manifest.json"), append(manifest, '\n'), 0o644); err != nil {
		return "", err
	}
	if s.opts.Criteria != nil {
		if err := os.WriteFile(filepath.Join(tmp, "criteria.json"), s.opts.Criteria, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", err
	}
	ok = true
	return final, nil
}

// dirWriter writes a snapshot's files below root and keeps their hashes.
type dirWriter struct {
	root   string
	hashes map[string]string
}

var _ sim.Dir = (*dirWriter)(nil)

// clean checks a snapshot path: relative, slash-separated, no "..".
func clean(name string) (string, error) {
	c := path.Clean(name)
	if name == "" || path.IsAbs(name) || c == "." || c == ".." || strings.HasPrefix(c, "../") || c == "manifest.json" {
		return "", fmt.Errorf("serve: bad snapshot path %q", name)
	}
	return c, nil
}

func (d *dirWriter) MkdirAll(name string) error {
	c, err := clean(name)
	if err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(d.root, filepath.FromSlash(c)), 0o755)
}

func (d *dirWriter) WriteFile(name string, data []byte) error {
	c, err := clean(name)
	if err != nil {
		return err
	}
	if _, dup := d.hashes[c]; dup {
		return errors.New("serve: snapshot file written twice: " + c)
	}
	p := filepath.Join(d.root, filepath.FromSlash(c))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	d.hashes[c] = hex.EncodeToString(sum[:])
	return nil
}
