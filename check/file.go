package check

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/assaykit/assay/internal/filekind"
	"github.com/assaykit/assay/internal/nonblock"
)

// DefaultMaxFileSize is how many bytes of one evidence file a source reads
// unless told otherwise: 64 MiB. A larger file is an error that says so,
// never an out-of-memory death.
const DefaultMaxFileSize int64 = 64 << 20

// ErrNotRegular is wrapped by the FileError of a FIFO, device, socket or
// folder where an evidence file belongs. Reading one could block for ever
// (a FIFO) or never end (a device), so sources refuse it.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the FileError of a file over the size cap.
var ErrTooLarge = errors.New("file is over the size cap")

// FileError reports an evidence file that cannot be read: missing, not a
// regular file, over the cap, or unreadable. Sources return it (wrapped)
// so that the checks that need the file report status error.
type FileError struct {
	// Path is the file's name within its folder or snapshot.
	Path string
	// Size and Limit are the file's size and the cap, for ErrTooLarge.
	Size, Limit int64
	// Err is the cause: ErrNotRegular, ErrTooLarge, or an fs error.
	Err error
}

func (e *FileError) Error() string {
	switch {
	case errors.Is(e.Err, ErrTotalTooLarge):
		return totalMessage(e)
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s: %d bytes is over the %d-byte cap on an evidence file", e.Path, e.Size, e.Limit)
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, unwrapPathError(e.Err))
}

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// unwrapPathError drops the *fs.PathError wrapper, whose path FileError
// already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile reads name from fsys as recorded evidence: a regular file only
// (anything else is ErrNotRegular, checked before the file is opened, so a
// FIFO cannot block; a DirFS, and a folder of one taken with fs.Sub, open
// without blocking, so there the open file is checked, one look instead of
// two), at most limit bytes (limit <= 0 means
// DefaultMaxFileSize; a larger file is ErrTooLarge, also when it grows while
// being read). Every error is a *FileError. Use it, with DirFS, for every
// file a source reads. Through a CapTotal file system the file also counts
// against its source's total, and one that would take it past the cap is
// an error wrapping ErrTotalTooLarge.
func ReadFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	fail := func(size int64, err error) ([]byte, error) {
		if te := totalError(name, err); te != nil {
			return nil, te
		}
		return nil, &FileError{Path: name, Size: size, Limit: limit, Err: err}
	}
	// admit refuses what is not a regular file of at most limit bytes.
	admit := func(fi fs.FileInfo) error {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%w (it is %s)", ErrNotRegular, filekind.Of(fi.Mode()))
		}
		if fi.Size() > limit {
			return ErrTooLarge
		}
		return nil
	}
	if !nonblock.Opens(fsys) {
		fi, err := fs.Stat(fsys, name)
		if err == nil {
			err = admit(fi)
		}
		if err != nil {
			return fail(sizeIfTooLarge(fi, err), err)
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return fail(0, err)
	}
	defer f.Close()
	// Stat through the open file: the name may have been swapped for
	// something else since the first look.
	fi, err := f.Stat()
	if err == nil {
		err = admit(fi)
	}
	if err != nil {
		return fail(sizeIfTooLarge(fi, err), err)
	}
	buf := make([]byte, 0, min(fi.Size(), limit)+1)
	for {
		if int64(len(buf)) > limit {
			return fail(int64(len(buf)), ErrTooLarge)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(int64(cap(buf)), limit+1)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(0, err)
		}
	}
	if int64(len(buf)) > limit {
		return fail(int64(len(buf)), ErrTooLarge)
	}
	return buf, nil
}

// sizeIfTooLarge is the size a FileError reports: the file's, when it is
// what was refused.
func sizeIfTooLarge(fi fs.FileInfo, err error) int64 {
	if errors.Is(err, ErrTooLarge) {
		return fi.Size()
	}
	return 0
}

// DirFS returns the file system of the folder dir, for sources that read a
// snapshot from disk. Unlike os.DirFS, a symbolic link is followed only
// while it stays inside dir (one that leads out, or an absolute one, is an
// error, as os.Root has it), and opening a FIFO never blocks (nor does
// opening a terminal make it the process's controlling one). It implements
// fs.StatFS, fs.ReadDirFS, fs.ReadLinkFS and fs.SubFS: a folder taken with
// fs.Sub shares the open folder, and its links may still lead anywhere
// inside dir, as a snapshot's evidence folders need.
//
// The folder is opened once, on first use, and stays open until the file
// system is no longer referenced and the garbage collector has run: one
// evaluation reads a snapshot through dozens of opens, and re-opening the
// folder for each doubled their system calls. A folder taken with fs.Sub
// is likewise opened once, through the top one, so that a name in it is
// looked up there in one step rather than through every folder on its path
// again; a name it does not hold is reported from there, and any other
// failure (a link that leads out of that folder, say) is looked up again
// from the top, which alone decides. So paths resolve against the folders
// DirFS first opened, even if they are renamed or replaced afterwards; a
// folder that could not be opened is tried again on the next call.
func DirFS(dir string) fs.FS {
	return &dirFS{folder: &folder{open: func() (*os.Root, error) { return os.OpenRoot(dir) }}}
}

// dirFS is a DirFS, or a folder of one (prefix, a valid path, "" for the
// top; own, that folder opened on its own).
type dirFS struct {
	folder *folder
	prefix string
	own    *folder
}

// folder is a folder opened on first use; the top one is shared by a DirFS
// and its sub-folders.
type folder struct {
	open func() (*os.Root, error)
	mu   sync.Mutex
	root *os.Root
}

// openRoot returns the folder, opening it on first use. The root is closed
// by a cleanup when f becomes unreachable.
func (f *folder) openRoot() (*os.Root, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.root != nil {
		return f.root, nil
	}
	root, err := f.open()
	if err != nil {
		return nil, err
	}
	f.root = root
	runtime.AddCleanup(f, func(r *os.Root) { r.Close() }, root)
	return root, nil
}

// dirOp runs f on name, after checking it: in d's own folder first, where
// d has one, and then, unless that found the name or found it missing,
// from the top folder with the prefix joined. Errors are *fs.PathError
// naming name, as fs.FS asks.
func dirOp[T any](d *dirFS, op, name string, f func(r *os.Root, name string) (T, error)) (T, error) {
	var zero T
	if !fs.ValidPath(name) {
		return zero, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if d.own != nil {
		if own, err := d.own.openRoot(); err == nil {
			v, err := f(own, name)
			if err == nil {
				return v, nil
			}
			if errors.Is(err, fs.ErrNotExist) {
				return zero, &fs.PathError{Op: op, Path: name, Err: unwrapPathError(err)}
			}
		}
	}
	root, err := d.folder.openRoot()
	if err == nil {
		full := name
		if d.prefix != "" {
			full = path.Join(d.prefix, name)
		}
		var v T
		if v, err = f(root, full); err == nil {
			return v, nil
		}
	}
	return zero, &fs.PathError{Op: op, Path: name, Err: unwrapPathError(err)}
}

func (d *dirFS) Open(name string) (fs.File, error) {
	return dirOp(d, "open", name, func(r *os.Root, full string) (fs.File, error) {
		// O_NONBLOCK: a FIFO opens at once instead of waiting for a
		// writer; it has no effect on the regular files and folders
		// sources read. O_NOCTTY: a terminal in a snapshot stays
		// nobody's controlling terminal.
		return r.OpenFile(full, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	})
}

// OpensWithoutBlocking marks a DirFS for ReadFile (see package nonblock).
func (*dirFS) OpensWithoutBlocking() bool { return true }

func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	return dirOp(d, "stat", name, func(r *os.Root, full string) (fs.FileInfo, error) { return r.Stat(full) })
}

func (d *dirFS) Lstat(name string) (fs.FileInfo, error) {
	return dirOp(d, "lstat", name, func(r *os.Root, full string) (fs.FileInfo, error) { return r.Lstat(full) })
}

func (d *dirFS) ReadLink(name string) (string, error) {
	return dirOp(d, "readlink", name, func(r *os.Root, full string) (string, error) { return r.Readlink(full) })
}

// Sub returns the folder dir of d, sharing d's open folder: paths still
// resolve, and links are still followed, within the folder DirFS was given.
// The folder itself is opened on first use (see DirFS).
func (d *dirFS) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	if dir == "." {
		return d, nil
	}
	top, prefix := d.folder, path.Join(d.prefix, dir)
	own := &folder{open: func() (*os.Root, error) {
		root, err := top.openRoot()
		if err != nil {
			return nil, err
		}
		return root.OpenRoot(prefix)
	}}
	return &dirFS{folder: top, prefix: prefix, own: own}, nil
}

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	list, err := rd.ReadDir(-1)
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, err
}
