package sftp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source is the final file tree of a rollout: the evidence of
// sftp-file-present. Attach one with Attach. Names are paths relative to
// the tree's root, "/"-separated, without a leading "/" ("" is the root).
//
// The implementations of this package (FolderSource, MemorySource and an
// Endpoint) list every folder at most once and share what they listed
// between all the checks of an evaluation; they are safe for concurrent
// use. Every method returns an error when the tree cannot be read (a lost
// connection, a timeout, a listing over the limits), and the checks that
// need it then report status error.
type Source interface {
	// Stat describes the entry at name. A symbolic link there is followed
	// while it stays inside the tree (see Entry). A name that does not
	// exist is an error wrapping fs.ErrNotExist.
	Stat(ctx context.Context, name string) (Entry, error)
	// Walk lists every entry below the folder dir ("" for the root),
	// recursively, in byte order of path. The slice may be shared with
	// other callers: do not modify it. Symbolic links are listed (and
	// followed for their Entry) but never descended into. A dir that does
	// not exist is an error wrapping fs.ErrNotExist; one that is not a
	// folder, or is a link, wraps ErrNotFolder.
	Walk(ctx context.Context, dir string) ([]Entry, error)
	// ReadFile reads the regular file at name (through a link inside the
	// tree), at most limit bytes (<= 0: the source's own cap, else
	// check.DefaultMaxFileSize). The bytes may be shared with other
	// readers of the file: do not modify them. Errors
	// are *check.FileError; a larger file wraps check.ErrTooLarge, an entry
	// that is not a regular file check.ErrNotRegular.
	ReadFile(ctx context.Context, name string, limit int64) ([]byte, error)
}

// Entry describes one entry of a tree.
type Entry struct {
	// Path is the entry's path relative to the root, without a leading
	// "/".
	Path string
	// Mode is the type of the entry itself (fs.ModeDir, fs.ModeSymlink,
	// 0 for a regular file, ...), as lstat reports it.
	Mode fs.FileMode
	// Size is the size in bytes of the regular file the entry is (or
	// leads to).
	Size int64
	// Target is where a symbolic link leads, relative to the root, once
	// followed inside the tree; "" for an entry that is not a link or a
	// link that cannot be followed (see Problem).
	Target string
	// Resolved is the type of what a reader meets at Path: Mode for an
	// entry that is not a link, the type of Target for one that is.
	Resolved fs.FileMode
	// Problem says why the entry cannot be read as a file inside the
	// tree: a link leading out of it, a dangling link, a chain of links
	// too long, a link through another link. "" when there is none.
	Problem string
}

// Regular reports whether the entry can be read as a regular file inside
// the tree: it is one, or it is a link that leads to one inside the tree.
func (e Entry) Regular() bool { return e.Problem == "" && e.Resolved.IsRegular() }

// IsLink reports whether the entry itself is a symbolic link.
func (e Entry) IsLink() bool { return e.Mode&fs.ModeSymlink != 0 }

// Attach sets env's file tree source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// FolderSource is the Source of a file tree held in fsys, such as the sftp/
// folder of a sandbox snapshot (read through check.DirFS, so that nothing
// outside the folder is read). Nothing is read until a check asks; each
// folder is then listed once and the listing shared by every check.
// maxFileSize caps what is read of one file (<= 0: check.DefaultMaxFileSize);
// a check passes its own cap to ReadFile, and this one applies when that
// is <= 0. What is read of all files together is capped by fsys's total
// (check.CapTotal; 256 MiB when fsys has none).
//
// Symbolic links: when fsys implements fs.ReadLinkFS, a link is followed
// by reading its target and is a candidate only when that lies inside
// fsys; otherwise (check.DirFS) fsys's own Stat decides, and a link whose
// target fsys refuses to reach is reported as leading out of the tree.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	t := newTree(&folderBackend{fsys: check.CapTotal(fsys, 0), max: maxFileSize}, Limits{})
	t.max = maxFileSize
	return t
}

type folderBackend struct {
	fsys fs.FS
	max  int64
}

func (f *folderBackend) String() string { return "the folder" }

func fsName(name string) string {
	if name == "" {
		return "."
	}
	return name
}

func (f *folderBackend) readDir(ctx context.Context, dir string, take func([]fs.FileInfo, int) error) ([]fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := fs.ReadDir(f.fsys, fsName(dir))
	if err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the listing
			}
			return nil, err
		}
		out = append(out, typedInfo{fi, e.Type()})
	}
	return out, take(out, len(ents))
}

// typedInfo keeps the type a folder listing reported for an entry: Info
// may stat through a link where the listing did not.
type typedInfo struct {
	fs.FileInfo
	typ fs.FileMode
}

func (t typedInfo) Mode() fs.FileMode { return t.typ | t.FileInfo.Mode().Perm() }
func (t typedInfo) IsDir() bool       { return t.typ.IsDir() }

func (f *folderBackend) readLink(ctx context.Context, name string) (string, error) {
	if _, ok := f.fsys.(fs.ReadLinkFS); !ok {
		return "", errNoReadLink
	}
	target, err := fs.ReadLink(f.fsys, name)
	if errors.Is(err, fs.ErrInvalid) {
		// fs.Sub over a file system that cannot read links.
		return "", errNoReadLink
	}
	return target, err
}

func (f *folderBackend) stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return fs.Stat(f.fsys, name)
}

func (f *folderBackend) inside(string) (string, bool) { return "", false }

func (f *folderBackend) readFile(ctx context.Context, name string, limit, _ int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = f.max
	}
	return check.ReadFile(f.fsys, name, limit)
}

// MemorySource is a Source holding a tree in memory, for harnesses and
// tests: files maps paths (relative to the root; a leading "/" is dropped)
// to contents, and the folders on the way exist implicitly. The map is
// copied. A path that is not valid (empty, "..", a NUL byte), or a file
// that is also a folder of another path, makes every method return that
// error, so the checks report status error.
func MemorySource(files map[string][]byte) Source {
	src, err := memorySource(files)
	if err != nil {
		return brokenSource{err}
	}
	return src
}

// brokenSource reports one error from every method.
type brokenSource struct{ err error }

func (b brokenSource) Stat(context.Context, string) (Entry, error)   { return Entry{}, b.err }
func (b brokenSource) Walk(context.Context, string) ([]Entry, error) { return nil, b.err }
func (b brokenSource) ReadFile(context.Context, string, int64) ([]byte, error) {
	return nil, b.err
}

func memorySource(files map[string][]byte) (Source, error) {
	m := &memoryBackend{files: map[string][]byte{}, dirs: map[string][]string{"": nil}}
	seen := map[string]map[string]bool{"": {}}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		clean, err := CleanPath(name)
		if err != nil {
			return nil, fmt.Errorf("memory tree: %w", err)
		}
		if _, dup := m.files[clean]; dup {
			return nil, fmt.Errorf("memory tree: %q is given twice", clean)
		}
		m.files[clean] = files[name]
		child := clean
		for child != "" {
			parent := parentOf(child)
			if seen[parent] == nil {
				seen[parent] = map[string]bool{}
			}
			seen[parent][path.Base(child)] = true
			child = parent
		}
	}
	for dir, names := range seen {
		if _, isFile := m.files[dir]; isFile && dir != "" {
			return nil, fmt.Errorf("memory tree: %q is both a file and a folder", dir)
		}
		m.dirs[dir] = slices.Sorted(maps.Keys(names))
	}
	return newTree(m, Limits{}), nil
}

type memoryBackend struct {
	files map[string][]byte
	dirs  map[string][]string
}

func (m *memoryBackend) String() string { return "the memory tree" }

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

func (m *memoryBackend) readDir(ctx context.Context, dir string, take func([]fs.FileInfo, int) error) ([]fs.FileInfo, error) {
	names, ok := m.dirs[dir]
	if !ok {
		if _, isFile := m.files[dir]; isFile {
			return nil, &fs.PathError{Op: "readdir", Path: dir, Err: ErrNotFolder}
		}
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	out := make([]fs.FileInfo, len(names))
	for i, n := range names {
		full := join(dir, n)
		data, isFile := m.files[full]
		out[i] = memInfo{name: n, size: int64(len(data)), dir: !isFile}
	}
	return out, take(out, len(out))
}

func (m *memoryBackend) readLink(context.Context, string) (string, error) {
	return "", errors.New("the memory tree holds no links")
}

func (m *memoryBackend) stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return nil, errors.New("the memory tree holds no links")
}

func (m *memoryBackend) inside(string) (string, bool) { return "", false }

func (m *memoryBackend) readFile(ctx context.Context, name string, limit, _ int64) ([]byte, error) {
	data, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if limit <= 0 {
		limit = check.DefaultMaxFileSize
	}
	if int64(len(data)) > limit {
		return nil, &check.FileError{Path: name, Size: int64(len(data)), Limit: limit, Err: check.ErrTooLarge}
	}
	return data, nil
}
