package filesim

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"
)

// Bounds of a tree.
const (
	// MaxFileSize caps one file: an upload past it is refused.
	MaxFileSize = 64 << 20
	// MaxTreeSize caps the bytes of a run's files together (13.11).
	MaxTreeSize = 256 << 20
	// MaxEntries caps the files and folders of a tree.
	MaxEntries = 100_000
	// entryCost is what an entry the run made costs the sandbox's memory
	// budget besides its bytes.
	entryCost = 256
)

// Errors of tree operations, wrapped in *fs.PathError (so that the SFTP
// server reports fs.ErrNotExist as "no such file").
var (
	errNotFolder = errors.New("not a folder")
	errIsFolder  = errors.New("is a folder")
	errNotEmpty  = errors.New("the folder is not empty")
	errRoot      = errors.New("the root cannot be removed, renamed or replaced")
	errReserved  = fmt.Errorf("%w: %q at the root is reserved (a snapshot's sftp/%s names a live endpoint)", errInvalid, reserved, reserved)
	errFileSize  = fmt.Errorf("the file would be over %d bytes (64 MiB), the cap on one file", MaxFileSize)
	errTreeSize  = fmt.Errorf("the run's files would hold more than %d bytes (256 MiB) together", MaxTreeSize)
	errEntries   = fmt.Errorf("the run's tree would hold more than %d files and folders", MaxEntries)
	errStopped   = errors.New("the run is completed: its tree is closed")
	errIntoSelf  = fmt.Errorf("%w: a folder cannot move into itself", errInvalid)
)

// file is a regular file. Its data is never changed once the file is
// made (a write makes a new file), so runs share the seed's files and a
// reader may keep the bytes.
type file struct {
	data []byte
	mod  time.Time // zero: the run's start (a file of the seed)
	seed bool      // from the seed: not charged to the run
}

// folder is a folder and the names it holds.
type folder struct {
	mod  time.Time
	kids map[string]struct{}
	seed bool
}

// tree is a file tree in memory: entries by path relative to the root
// ("" is the root folder).
type tree struct {
	files   map[string]*file
	folders map[string]*folder
	size    int64 // bytes of every file
}

func newTree() tree {
	return tree{files: map[string]*file{}, folders: map[string]*folder{"": {kids: map[string]struct{}{}, seed: true}}}
}

// clone copies the tree's index for a new run; file contents are shared.
func (t *tree) clone() tree {
	c := tree{files: maps.Clone(t.files), folders: make(map[string]*folder, len(t.folders)), size: t.size}
	for p, f := range t.folders {
		c.folders[p] = &folder{mod: f.mod, kids: maps.Clone(f.kids), seed: f.seed}
	}
	return c
}

func (t *tree) entries() int { return len(t.files) + len(t.folders) - 1 }

// cost is what the entry at p costs the run's budget: nothing for the
// seed's entries.
func (t *tree) cost(p string) int64 {
	if f := t.files[p]; f != nil && !f.seed {
		return entryCost + int64(len(f.data))
	}
	if d := t.folders[p]; d != nil && !d.seed && p != "" {
		return entryCost
	}
	return 0
}

// link adds p to its parent's names; unlink removes it.
func (t *tree) link(p string)   { t.folders[parentOf(p)].kids[baseOf(p)] = struct{}{} }
func (t *tree) unlink(p string) { delete(t.folders[parentOf(p)].kids, baseOf(p)) }

// missingFolders returns the folders to make so that p's parent exists,
// outermost first, or an error when an entry on the way is a file (or,
// without mkParents, when the parent is missing).
func (t *tree) missingFolders(p string, mkParents bool) ([]string, error) {
	var missing []string
	for dir := parentOf(p); ; dir = parentOf(dir) {
		if t.folders[dir] != nil {
			break
		}
		if t.files[dir] != nil {
			return nil, errNotFolder
		}
		if !mkParents {
			return nil, fs.ErrNotExist
		}
		missing = append(missing, dir)
	}
	slices.Reverse(missing)
	return missing, nil
}

// putPlan is a write checked against the tree and its bounds, to apply
// once its cost is reserved.
type putPlan struct {
	p        string
	data     []byte
	missing  []string // folders to make, outermost first
	delta    int64    // the change in the run's cost
	replaced bool
}

// planPut checks that p can become a file holding data, its folders made
// when mkParents is set, and returns what applyPut will do.
func (t *tree) planPut(p string, data []byte, mkParents bool) (putPlan, error) {
	if p == reserved {
		return putPlan{}, errReserved
	}
	if t.folders[p] != nil {
		return putPlan{}, errIsFolder
	}
	missing, err := t.missingFolders(p, mkParents)
	if err != nil {
		return putPlan{}, err
	}
	if len(data) > MaxFileSize {
		return putPlan{}, errFileSize
	}
	old := t.files[p]
	if t.size-t.fileSize(p)+int64(len(data)) > MaxTreeSize {
		return putPlan{}, errTreeSize
	}
	added := len(missing)
	if old == nil {
		added++
	}
	if t.entries()+added > MaxEntries {
		return putPlan{}, errEntries
	}
	delta := entryCost + int64(len(data)) - t.cost(p) + int64(len(missing))*entryCost
	return putPlan{p: p, data: data, missing: missing, delta: delta, replaced: old != nil}, nil
}

// applyPut makes the planned file, stamped now.
func (t *tree) applyPut(pl putPlan, now time.Time) {
	for _, dir := range pl.missing {
		t.folders[dir] = &folder{mod: now, kids: map[string]struct{}{}}
		t.link(dir)
	}
	t.size += int64(len(pl.data)) - t.fileSize(pl.p)
	t.files[pl.p] = &file{data: pl.data, mod: now}
	t.link(pl.p)
}

// mkdir makes the folder p; its parent must exist. It costs the run
// entryCost.
func (t *tree) mkdir(p string, now time.Time) error {
	switch {
	case p == "":
		return fs.ErrExist
	case p == reserved:
		return errReserved
	case t.folders[p] != nil || t.files[p] != nil:
		return fs.ErrExist
	}
	if _, err := t.missingFolders(p, false); err != nil {
		return err
	}
	if t.entries()+1 > MaxEntries {
		return errEntries
	}
	t.folders[p] = &folder{mod: now, kids: map[string]struct{}{}}
	t.link(p)
	return nil
}

// remove removes the file or empty folder at p: files only when folder
// is "no", folders only when "yes", either when "".
func (t *tree) remove(p string, folder string) (delta, size int64, err error) {
	if p == "" {
		return 0, 0, errRoot
	}
	switch f, d := t.files[p], t.folders[p]; {
	case f != nil:
		if folder == "yes" {
			return 0, 0, errNotFolder
		}
		delta, size = -t.cost(p), int64(len(f.data))
		delete(t.files, p)
		t.size -= size
	case d != nil:
		if folder == "no" {
			return 0, 0, errIsFolder
		}
		if len(d.kids) > 0 {
			return 0, 0, errNotEmpty
		}
		delta = -t.cost(p)
		delete(t.folders, p)
	default:
		return 0, 0, fs.ErrNotExist
	}
	t.unlink(p)
	return delta, size, nil
}

// rename moves the entry at from to to, with everything below it. A file
// at to is replaced when replace is set (POSIX rename); otherwise an
// existing to is an error (SFTP's own rename).
func (t *tree) rename(from, to string, replace bool) (delta, size int64, err error) {
	switch {
	case from == "" || to == "":
		return 0, 0, errRoot
	case t.files[from] == nil && t.folders[from] == nil:
		return 0, 0, fs.ErrNotExist
	case to == reserved:
		return 0, 0, errReserved
	case from == to:
		return 0, t.fileSize(from), nil
	case strings.HasPrefix(to, from+"/"):
		return 0, 0, errIntoSelf
	}
	if _, err := t.missingFolders(to, false); err != nil {
		return 0, 0, err
	}
	if t.folders[to] != nil {
		return 0, 0, errIsFolder
	}
	if t.files[to] != nil {
		switch {
		case !replace:
			return 0, 0, fs.ErrExist
		case t.folders[from] != nil:
			return 0, 0, errNotFolder
		}
		replaced := t.files[to]
		delta = -t.cost(to)
		t.size -= int64(len(replaced.data))
		delete(t.files, to)
		t.unlink(to)
	}
	size = t.fileSize(from)
	t.unlink(from)
	if f := t.files[from]; f != nil {
		delete(t.files, from)
		t.files[to] = f
	} else {
		prefix := from + "/"
		for p, f := range t.files {
			if strings.HasPrefix(p, prefix) {
				delete(t.files, p)
				t.files[to+"/"+p[len(prefix):]] = f
			}
		}
		moved := map[string]*folder{to: t.folders[from]}
		delete(t.folders, from)
		for p, d := range t.folders {
			if strings.HasPrefix(p, prefix) {
				delete(t.folders, p)
				moved[to+"/"+p[len(prefix):]] = d
			}
		}
		maps.Copy(t.folders, moved)
	}
	t.link(to)
	return delta, size, nil
}

func (t *tree) fileSize(p string) int64 {
	if f := t.files[p]; f != nil {
		return int64(len(f.data))
	}
	return 0
}

// info describes an entry for listings and SFTP attributes.
type info struct {
	name string
	size int64
	mod  time.Time
	dir  bool
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) ModTime() time.Time { return i.mod }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}

// stat describes the entry at p; start stands in for the modification
// time of the seed's entries.
func (t *tree) stat(p string, start time.Time) (info, bool) {
	name := baseOf(p)
	if p == "" {
		name = "/"
	}
	if f := t.files[p]; f != nil {
		return info{name: name, size: int64(len(f.data)), mod: orStart(f.mod, start)}, true
	}
	if d := t.folders[p]; d != nil {
		return info{name: name, mod: orStart(d.mod, start), dir: true}, true
	}
	return info{}, false
}

// list describes the entries of the folder p in byte order of name.
func (t *tree) list(p string, start time.Time) ([]fs.FileInfo, error) {
	d := t.folders[p]
	if d == nil {
		if t.files[p] != nil {
			return nil, errNotFolder
		}
		return nil, fs.ErrNotExist
	}
	names := slices.Sorted(maps.Keys(d.kids))
	out := make([]fs.FileInfo, 0, len(names))
	for _, n := range names {
		child := n
		if p != "" {
			child = p + "/" + n
		}
		if fi, ok := t.stat(child, start); ok {
			out = append(out, fi)
		}
	}
	return out, nil
}

func orStart(t, start time.Time) time.Time {
	if t.IsZero() {
		return start
	}
	return t
}
