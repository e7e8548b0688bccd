package check

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/assaykit/assay/internal/nonblock"
)

// DefaultMaxTotalSize is how many bytes one evidence source reads in all,
// over every file it reads, in one evaluation, unless told otherwise: 256
// MiB. More is an error that names the cap, never an out-of-memory death
// (a folder of many large files, or of many names for one file).
const DefaultMaxTotalSize int64 = 256 << 20

// ErrTotalTooLarge is wrapped by the FileError of a file whose reading
// would take its source past the cap on what one source reads in all
// (Budget, CapTotal). It is not ErrTooLarge: the file may be small, and
// leaving it out would judge incomplete evidence, so the checks that need
// it report status error.
var ErrTotalTooLarge = errors.New("over the cap on what one evidence source reads in all")

// Budget counts the bytes one evidence source reads in one evaluation
// against a cap. Each name counts once: reading it again (a second check,
// a cache that let it go) costs only what goes beyond the bytes already
// counted for it. Names are compared as given, so two names of one file (a
// hard link, a symbolic link) count twice: each is read and parsed on its
// own, and costs as much. A Budget is safe for concurrent use.
type Budget struct {
	limit int64

	mu      sync.Mutex
	used    int64
	charged map[string]int64
}

// NewBudget returns a Budget of limit bytes (<= 0: DefaultMaxTotalSize).
func NewBudget(limit int64) *Budget {
	if limit <= 0 {
		limit = DefaultMaxTotalSize
	}
	return &Budget{limit: limit, charged: map[string]int64{}}
}

// Limit returns the cap.
func (b *Budget) Limit() int64 { return b.limit }

// Charge records that the first n bytes of name have been read. When that
// would take the total past the cap it charges nothing and returns a
// *FileError wrapping ErrTotalTooLarge, whose Size is the total the read
// would have reached and whose Limit is the cap.
func (b *Budget) Charge(name string, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	more := n - b.charged[name]
	if more <= 0 {
		return nil
	}
	if b.used+more > b.limit {
		return &FileError{Path: name, Size: b.used + more, Limit: b.limit, Err: ErrTotalTooLarge}
	}
	b.used += more
	b.charged[name] = n
	return nil
}

// CapTotal returns fsys with a Budget of total bytes on what is read
// through it: the bytes read from every file it opens (through ReadFile or
// any other reader) count, each name once, and a read past the cap fails
// with a *FileError wrapping ErrTotalTooLarge. A file whose size, known
// when it is opened, would not fit is refused before a byte of it is read.
// Folders taken from it with fs.Sub share its budget.
//
// A total <= 0 keeps the cap fsys already has (it is a CapTotal file
// system, or a folder of one), else applies DefaultMaxTotalSize: folder
// sources call CapTotal(fsys, 0) on the folder they are given, so that
// what a caller set (sandbox.Options.MaxTotalSize) wins and a folder given
// without a cap still has one. A positive total over a file system that
// has a cap adds a second: both count, and the smaller decides.
//
// The result implements fs.StatFS, fs.ReadDirFS, fs.ReadLinkFS and
// fs.SubFS by asking fsys (through fs.Stat, fs.ReadDir, ...), and opens
// without blocking exactly when fsys does (see DirFS).
func CapTotal(fsys fs.FS, total int64) fs.FS {
	if total <= 0 {
		if _, ok := fsys.(*budgetFS); ok {
			return fsys
		}
	}
	return &budgetFS{fsys: fsys, budget: NewBudget(total)}
}

// FitTotal reports, before any of them is read, whether the files names of
// fsys fit together, at their sizes now, in the total cap fsys has
// (CapTotal): nil when they do or fsys has no cap, else the *FileError
// (wrapping ErrTotalTooLarge) of the first name that goes past it. A
// folder source that reads every file of its folder calls it first, so
// that a folder too large in all fails at once instead of after reading,
// and parsing, as much as the cap allows. A name that cannot be looked at
// is left for ReadFile to report; nothing is charged.
func FitTotal(fsys fs.FS, names []string) error {
	b, ok := fsys.(*budgetFS)
	if !ok {
		return nil
	}
	var more int64
	for _, name := range names {
		fi, err := fs.Stat(b, name)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b.budget.mu.Lock()
		more += max(fi.Size()-b.budget.charged[b.key(name)], 0)
		used, limit := b.budget.used, b.budget.limit
		b.budget.mu.Unlock()
		if used+more > limit {
			return &FileError{Path: name, Size: used + more, Limit: limit, Err: ErrTotalTooLarge}
		}
	}
	return nil
}

// budgetFS is a CapTotal file system, or a folder of one (prefix, for the
// names it charges).
type budgetFS struct {
	fsys   fs.FS
	prefix string
	budget *Budget
}

func (b *budgetFS) key(name string) string {
	if b.prefix == "" {
		return name
	}
	return path.Join(b.prefix, name)
}

// Open opens name and, for a regular file, refuses it when its size would
// not fit in what is left of the budget.
func (b *budgetFS) Open(name string) (fs.File, error) {
	f, err := b.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return f, nil
	}
	key := b.key(name)
	if err := b.budget.fits(key, fi.Size()); err != nil {
		f.Close()
		return nil, err
	}
	return &budgetFile{File: f, budget: b.budget, key: key}, nil
}

// fits reports, as Charge would, whether size bytes of name fit, without
// charging them.
func (b *Budget) fits(name string, size int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if more := size - b.charged[name]; more > 0 && b.used+more > b.limit {
		return &FileError{Path: name, Size: b.used + more, Limit: b.limit, Err: ErrTotalTooLarge}
	}
	return nil
}

func (b *budgetFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(b.fsys, name) }

func (b *budgetFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(b.fsys, name) }

func (b *budgetFS) ReadLink(name string) (string, error) { return fs.ReadLink(b.fsys, name) }

func (b *budgetFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(b.fsys, name) }

func (b *budgetFS) Sub(dir string) (fs.FS, error) {
	sub, err := fs.Sub(b.fsys, dir)
	if err != nil {
		return nil, err
	}
	return &budgetFS{fsys: sub, prefix: b.key(dir), budget: b.budget}, nil
}

// OpensWithoutBlocking passes on what fsys says (see package nonblock).
func (b *budgetFS) OpensWithoutBlocking() bool { return nonblock.Opens(b.fsys) }

// budgetFile charges what is read from it to its budget.
type budgetFile struct {
	fs.File
	budget *Budget
	key    string
	read   int64
}

func (f *budgetFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.read += int64(n)
	if cerr := f.budget.Charge(f.key, f.read); cerr != nil {
		return n, cerr
	}
	return n, err
}

// totalError returns the *FileError of a total-cap refusal inside err,
// named name, or nil.
func totalError(name string, err error) *FileError {
	var fe *FileError
	if !errors.Is(err, ErrTotalTooLarge) || !errors.As(err, &fe) {
		return nil
	}
	out := *fe
	out.Path = name
	return &out
}

// totalMessage words a total-cap refusal.
func totalMessage(e *FileError) string {
	return fmt.Sprintf("%s: with it its source would read %d bytes, past the %s cap on what one evidence source reads in all",
		e.Path, e.Size, byteCap(e.Limit))
}

// byteCap words a cap as "N-byte", with MiB beside it for a person.
func byteCap(n int64) string {
	switch {
	case n < 1<<20:
		return fmt.Sprintf("%d-byte", n)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d-byte (%d MiB)", n, n>>20)
	}
	return fmt.Sprintf("%d-byte (%.1f MiB)", n, float64(n)/(1<<20))
}
