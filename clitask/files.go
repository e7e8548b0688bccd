package clitask

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/filekind"
)

// FileEvidence is the evidence of file_exists and file_contains: the path as
// the assertion wrote it, the path checked (the real path, links resolved,
// when it exists; else the path joined to the working directory), whether
// it exists and is a directory, where a link that leads out of the working
// directory leads (LeadsTo), and for file_contains whether the text was
// found. Details quote the path as written.
type FileEvidence struct {
	Path     string `json:"path"`
	Resolved string `json:"resolved"`
	Exists   bool   `json:"exists"`
	IsDir    bool   `json:"is_dir"`
	LeadsTo  string `json:"leads_to,omitempty"`
	Contains *bool  `json:"contains,omitempty"`
}

// maxLinks bounds the symbolic links followed resolving one path, as the
// kernel's ELOOP does.
const maxLinks = 40

// workdirOf returns the trace's working directory, checked: set, absolute
// (a relative one of a memory source resolves against the current folder;
// one of a snapshot that is not on disk cannot be resolved), an existing
// folder. The errors name the folder and why.
func workdirOf(t *Trace, l limits) (string, error) {
	wd := t.Workdir
	switch {
	case wd == "":
		return "", ErrNoWorkdir
	case !filepath.IsAbs(wd) && l.noFolder:
		return "", fmt.Errorf("the trace's workdir %q is relative, and the snapshot is not in a folder on disk to resolve it against", wd)
	}
	fi, err := os.Stat(wd)
	switch {
	case notExist(err):
		return "", fmt.Errorf("the working directory %s does not exist", wd)
	case err != nil:
		return "", fmt.Errorf("the working directory %s cannot be read: %w", wd, unwrapPath(err))
	case !fi.IsDir():
		return "", fmt.Errorf("the working directory %s is not a folder", wd)
	}
	if !filepath.IsAbs(wd) {
		if abs, err := filepath.Abs(wd); err == nil {
			wd = abs
		}
	}
	return wd, nil
}

// escapeError reports a symbolic link inside the working directory whose
// target resolves outside it.
type escapeError struct {
	link   string // the link, relative to the working directory
	target string // where it leads, resolved
}

func (e *escapeError) Error() string {
	return fmt.Sprintf("%s is a symbolic link in the working directory that leads outside it, to %s", quote(e.link), e.target)
}

// errMissing says a path does not exist: a missing entry, a dangling link,
// a loop of links, or a path through a regular file.
var errMissing = errors.New("does not exist")

// walker resolves paths one component at a time, as the kernel does, but
// checks every link located inside root (the working directory, its own
// links resolved) and stops at one whose target resolves outside root.
type walker struct {
	root string
	hops int
}

// resolve returns the real path of p, relative to base unless absolute. The
// error is errMissing, an *escapeError, or why a component could not be
// examined.
func (w *walker) resolve(base, p string) (string, error) {
	cur := base
	if filepath.IsAbs(p) {
		cur = filepath.VolumeName(p) + string(filepath.Separator)
		p = p[len(filepath.VolumeName(p)):]
	}
	parts := splitPath(p)
	for len(parts) > 0 {
		name := parts[0]
		parts = parts[1:]
		switch name {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if notExist(err) {
			return "", errMissing
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if len(parts) > 0 && !fi.IsDir() {
				return "", errMissing // a path through a file
			}
			cur = next
			continue
		}
		if w.hops++; w.hops > maxLinks {
			return "", errMissing // a loop of links leads nowhere
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if within(w.root, cur) {
			// A link inside the working directory: where does it lead?
			real, err := w.resolve(cur, target)
			if err != nil {
				return "", err
			}
			if !within(w.root, real) {
				rel, rerr := filepath.Rel(w.root, next)
				if rerr != nil {
					rel = next
				}
				return "", &escapeError{link: rel, target: real}
			}
			cur = real
			continue
		}
		// A link elsewhere is followed as the system follows it.
		if filepath.IsAbs(target) {
			cur = filepath.VolumeName(target) + string(filepath.Separator)
			target = target[len(filepath.VolumeName(target)):]
		}
		parts = append(splitPath(target), parts...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return os.IsPathSeparator(uint8(r)) && r < 0x80 })
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	if root == "" {
		return false
	}
	if p == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// locate resolves an assertion's path against the trace's working
// directory. It returns the evidence so far; a non-nil *Result is the
// result to return (status error when the working directory or the path
// cannot be examined, failed for a link that leads out), and missing says
// the path does not exist.
func locate(t *Trace, l limits, path string) (ev FileEvidence, real string, missing bool, res *assert.Result) {
	ev = FileEvidence{Path: path, Resolved: filepath.Clean(path)}
	errored := func(err error) (FileEvidence, string, bool, *assert.Result) {
		r := assert.Errored(fmt.Errorf("cannot check %s: %w", quote(path), err))
		return ev, "", false, &r
	}
	wd := ""
	if t.Workdir != "" || !filepath.IsAbs(path) {
		var err error
		if wd, err = workdirOf(t, l); err != nil {
			return errored(err)
		}
	}
	w := &walker{}
	if wd != "" {
		// The working directory's own links are resolved first.
		root, err := filepath.EvalSymlinks(wd)
		if err != nil {
			return errored(fmt.Errorf("the working directory %s cannot be resolved: %w", wd, unwrapPath(err)))
		}
		w.root = root
		if !filepath.IsAbs(path) {
			ev.Resolved = filepath.Join(wd, path)
		}
	}
	base := w.root
	real, err := w.resolve(base, path)
	var esc *escapeError
	switch {
	case errors.Is(err, errMissing):
		return ev, "", true, nil
	case errors.As(err, &esc):
		ev.LeadsTo = esc.target
		msg := esc.Error()
		if esc.link != filepath.Clean(path) {
			msg = fmt.Sprintf("%s passes through %s, a symbolic link in the working directory that leads outside it, to %s", quote(path), quote(esc.link), esc.target)
		}
		r := assert.Fail(0, msg+"; it is not followed.", ev)
		return ev, "", false, &r
	case err != nil:
		return errored(unwrapPath(err))
	}
	ev.Resolved = real
	return ev, real, false, nil
}

type fileExistsCheck struct{ path string }

func (fileExistsCheck) Kind() string { return KindFileExists }

func (c fileExistsCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	ev, real, missing, res := locate(t, limitsOf(src), c.path)
	switch {
	case res != nil:
		return *res
	case missing:
		return assert.Fail(0, fmt.Sprintf("%s does not exist.", quote(c.path)), ev)
	}
	fi, err := os.Lstat(real)
	if notExist(err) {
		return assert.Fail(0, fmt.Sprintf("%s does not exist.", quote(c.path)), ev)
	}
	if err != nil {
		return assert.Errored(fmt.Errorf("cannot check %s: %w", quote(real), unwrapPath(err)))
	}
	ev.Exists, ev.IsDir = true, fi.IsDir()
	return assert.Pass(fmt.Sprintf("%s exists (%s).", quote(c.path), entryName(fi.Mode())), ev)
}

type fileContainsCheck struct{ path, text string }

func (fileContainsCheck) Kind() string { return KindFileContains }

func (c fileContainsCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, t, res := source(ctx, env)
	if res != nil {
		return *res
	}
	l := limitsOf(src)
	ev, real, missing, res := locate(t, l, c.path)
	absent := func() assert.Result {
		return assert.Fail(0, fmt.Sprintf("%s does not exist, so it cannot contain %s.", quote(c.path), quote(c.text)), ev)
	}
	switch {
	case res != nil:
		return *res
	case missing:
		return absent()
	}
	fi, err := os.Lstat(real)
	switch {
	case notExist(err):
		return absent()
	case err != nil:
		return assert.Errored(fmt.Errorf("cannot check %s: %w", quote(real), unwrapPath(err)))
	}
	ev.Exists, ev.IsDir = true, fi.IsDir()
	if fi.IsDir() {
		return assert.Fail(0, fmt.Sprintf("%s is a directory, not a file that could contain %s.", quote(c.path), quote(c.text)), ev)
	}
	if !fi.Mode().IsRegular() {
		return assert.Fail(0, fmt.Sprintf("%s is %s, not a regular file that could contain %s; it was not read.", quote(c.path), entryName(fi.Mode()), quote(c.text)), ev)
	}
	if err := ctx.Err(); err != nil {
		return assert.Errored(fmt.Errorf("not checked: %w", err))
	}
	// The real path holds no link any more; DirFS opens without blocking and
	// follows nothing out of the folder if the entry was swapped meanwhile.
	// What is read counts against the source's total, under the real path.
	data, err := readCounted(l.total, check.DirFS(filepath.Dir(real)), filepath.Base(real), real, l.maxFileSize)
	var fe *check.FileError
	switch {
	case errors.Is(err, check.ErrTotalTooLarge):
		return assert.Errored(fmt.Errorf("%s was not read: %s", quote(c.path), errorText(err)))
	case errors.Is(err, check.ErrTooLarge) && errors.As(err, &fe):
		return assert.Fail(0, fmt.Sprintf("%s is over the %d-byte cap on a file file_contains reads (%d bytes or more); it was not read.", quote(c.path), fe.Limit, fe.Size), ev)
	case errors.Is(err, check.ErrNotRegular):
		return assert.Fail(0, fmt.Sprintf("%s is not a regular file that could contain %s; it was not read.", quote(c.path), quote(c.text)), ev)
	case err != nil:
		return assert.Errored(fmt.Errorf("cannot read %s: %w", quote(real), err))
	}
	found := strings.Contains(string(data), c.text)
	ev.Contains = &found
	if found {
		return assert.Pass(fmt.Sprintf("%s contains %s.", quote(c.path), quote(c.text)), ev)
	}
	return assert.Fail(0, fmt.Sprintf("%s does not contain %s.", quote(c.path), quote(c.text)), ev)
}

// entryName says what kind of entry a mode describes, with its article, in
// cli-bench's words ("a file", "a directory": what file_exists reports);
// other kinds of entry are named as everywhere in assay.
func entryName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a file"
	}
	return filekind.Of(m)
}

// notExist reports whether err says a path does not exist; a path through a
// regular file ("a.txt/b") does not exist either.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// unwrapPath drops an *fs.PathError's wrapper when the message names the
// path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		return pe.Err
	}
	return err
}

// readCounted reads name of fsys as check.ReadFile does (at most limit
// bytes) and charges what it read to total under key. The size the file
// has when looked at is charged first, so that a file that would take the
// total past its cap is refused before a byte of it is read; a file read
// again under the same key costs nothing more.
func readCounted(total *check.Budget, fsys fs.FS, name, key string, limit int64) ([]byte, error) {
	if fi, err := fs.Stat(fsys, name); err == nil && fi.Mode().IsRegular() && fi.Size() <= limit {
		if err := total.Charge(key, fi.Size()); err != nil {
			return nil, err
		}
	}
	data, err := check.ReadFile(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	if err := total.Charge(key, int64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}
