package clitask

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// WorkdirPlaceholder expands to the task's working directory in env values.
const WorkdirPlaceholder = "{{workdir}}"

// Environ returns the environment of a run of task t in workdir: base (nil
// means the process environment), overridden by the suite's env, overridden
// by the task's, with {{workdir}} expanded in the values.
func (s *Suite) Environ(t *Task, workdir string, base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	over := map[string]string{}
	for k, v := range s.Env {
		over[k] = v
	}
	if t != nil {
		for k, v := range t.Env {
			over[k] = v
		}
	}
	out := make([]string, 0, len(base)+len(over))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := over[k]; !replaced {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(over))
	for k := range over {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+strings.ReplaceAll(over[k], WorkdirPlaceholder, workdir))
	}
	return out
}

// PrepareOptions tune workspace preparation.
type PrepareOptions struct {
	// TempDir is where fresh working directories are made; "" means
	// os.TempDir().
	TempDir string
	// Environ is the base environment; nil means the process environment.
	Environ []string
	// Timeout bounds each setup command; 0 means DefaultTimeout.
	Timeout time.Duration
	// Dir, when set, is the working directory to make, instead of a fresh
	// one under TempDir or the suite's workdir: it must not exist yet (its
	// parent is made as needed), and it is kept after the run.
	Dir string
}

// Workspace is a prepared working directory for one run of a task.
type Workspace struct {
	// Dir is the absolute working directory.
	Dir string
	// Env is the run's complete environment (see Suite.Environ).
	Env []string
	// fresh says Dir was made for this run and Close removes it.
	fresh bool
}

// Close removes the working directory when it was made for this run; the
// suite's own workdir stays.
func (w *Workspace) Close() error {
	if !w.fresh {
		return nil
	}
	return os.RemoveAll(w.Dir)
}

// SetupError reports a setup command that failed. Command holds what it
// printed.
type SetupError struct {
	TaskID string
	// Index is the command's 0-based position in the combined list: the
	// suite's setup, then the task's.
	Index   int
	Command Command
	Err     error
}

// Error names the task, the command and how it failed.
func (e *SetupError) Error() string {
	msg := fmt.Sprintf("setup of task %q: command %d, %q, ", e.TaskID, e.Index+1, e.Command.Command)
	if e.Err != nil {
		return msg + e.Err.Error()
	}
	return msg + fmt.Sprintf("exited %d: %s", e.Command.ExitCode, quote(strings.TrimSpace(e.Command.Stderr)))
}

// Unwrap returns the underlying cause (nil when the command merely exited
// non-zero).
func (e *SetupError) Unwrap() error { return e.Err }

// Prepare makes the working directory of one run of task t: a fresh
// directory (or opts.Dir, or the suite's workdir, created if missing), the scaffold
// copied in, then the suite's setup and the task's, each run with sh -c in
// the directory with the run's environment. A setup command that exits
// non-zero or cannot run stops preparation with a *SetupError; a fresh
// directory is then removed.
func (s *Suite) Prepare(ctx context.Context, t *Task, opts PrepareOptions) (*Workspace, error) {
	w := &Workspace{}
	ok := false
	if opts.Dir != "" {
		dir, err := filepath.Abs(opts.Dir)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(dir), 0o755)
		}
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err != nil {
			return nil, fmt.Errorf("clitask: workdir: %w", err)
		}
		w.Dir = dir
	} else if s.Workdir != "" {
		w.Dir = s.abs(s.Workdir)
		if err := os.MkdirAll(w.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("clitask: workdir: %w", err)
		}
	} else {
		dir, err := os.MkdirTemp(opts.TempDir, "assay-"+safeName(t.ID)+"-")
		if err != nil {
			return nil, fmt.Errorf("clitask: workdir: %w", err)
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return nil, err
		}
		w.Dir, w.fresh = dir, true
	}
	defer func() {
		if !ok {
			_ = w.Close()
		}
	}()
	if s.Scaffold != "" {
		if err := copyTree(s.abs(s.Scaffold), w.Dir); err != nil {
			return nil, fmt.Errorf("clitask: scaffold: %w", err)
		}
	}
	w.Env = s.Environ(t, w.Dir, opts.Environ)
	e := Executor{Dir: w.Dir, Env: w.Env, Timeout: opts.Timeout}
	for i, c := range slices.Concat(s.Setup, t.Setup) {
		out, err := e.Run(ctx, c)
		if err != nil || out.ExitCode != 0 {
			return nil, &SetupError{TaskID: t.ID, Index: i, Command: out, Err: err}
		}
	}
	ok = true
	return w, nil
}

func (s *Suite) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

// safeName keeps a task id usable in a folder name.
func safeName(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// copyTree copies the folder src into dst: folders, regular files (with
// their permission bits) and symbolic links (as links), replacing files
// that exist.
func copyTree(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", src)
	}
	return filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := de.Info()
		if err != nil {
			return err
		}
		switch {
		case de.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = os.Remove(target)
			return os.Symlink(link, target)
		case info.Mode().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil // sockets, devices: not scaffolding
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
