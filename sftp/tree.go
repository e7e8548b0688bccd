package sftp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/filekind"
	"github.com/assaykit/assay/internal/pool"
)

// ErrNotFolder is wrapped by Walk's error when dir is not a folder (or is
// a symbolic link, which walks do not follow).
var ErrNotFolder = errors.New("not a folder")

// ErrTreeTooLarge is wrapped by the error of a walk that meets more
// entries, or deeper folders, than its Limits allow.
var ErrTreeTooLarge = errors.New("the tree is over the walk limits")

// Limits bound a walk of a tree. The zero value means the defaults.
type Limits struct {
	// Concurrency is how many folders are listed at once (default 16).
	Concurrency int
	// MaxDepth is how many folders deep a walk goes below the root
	// (default 64); a deeper folder is ErrTreeTooLarge.
	MaxDepth int
	// MaxEntries is how many entries the whole tree may hold (default
	// 500,000); more is ErrTreeTooLarge. A remote folder is listed page
	// by page and the listing stops at the limit, so a server that lists
	// millions of names is not read to its end first.
	MaxEntries int
	// MaxNameBytes is how many bytes the names of all the entries may
	// hold together (default 64 MiB); more is ErrTreeTooLarge.
	MaxNameBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.Concurrency <= 0 {
		l.Concurrency = 16
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 64
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 500_000
	}
	if l.MaxNameBytes <= 0 {
		l.MaxNameBytes = 64 << 20
	}
	return l
}

// maxLinkHops bounds a chain of symbolic links, as the kernel's ELOOP does.
const maxLinkHops = 40

// backend is the primitive access a tree is built on.
type backend interface {
	// readDir lists the folder dir: lstat information, names only. It
	// hands what it reads to take, page by page where the backend reads
	// in pages (received is how many entries the page had, "." and ".."
	// included), and stops with take's error.
	readDir(ctx context.Context, dir string, take func(page []fs.FileInfo, received int) error) ([]fs.FileInfo, error)
	// readLink returns a link's target as written, or errNoReadLink.
	readLink(ctx context.Context, name string) (string, error)
	// stat follows links; used only when readLink is not supported.
	stat(ctx context.Context, name string) (fs.FileInfo, error)
	// inside maps an absolute link target to a path relative to the
	// root, when it lies inside the tree.
	inside(target string) (string, bool)
	// readFile reads a regular file reached without links; size is its
	// size as listed, which a backend may use to read it in one request.
	readFile(ctx context.Context, name string, limit, size int64) ([]byte, error)
	// String names the tree for messages.
	String() string
}

// lstater is implemented by backends that can lstat one name without
// listing its folder (a remote endpoint, where a listing is costly).
type lstater interface {
	lstat(ctx context.Context, name string) (fs.FileInfo, error)
}

// errNoReadLink says that a backend cannot read link targets.
var errNoReadLink = errors.New("links cannot be read")

// tree is the caching layer every Source of this package is: each folder
// is listed at most once (concurrent askers wait for the one listing), each
// name lstat'ed at most once, each walk result kept. Errors other than a
// cancelled context are kept too: a tree that could not be read once is
// not read differently later in the same evaluation.
type tree struct {
	b      backend
	limits Limits
	max    int64         // the file size cap when a reader gives none
	budget *check.Budget // what all reads may take together; nil: none of the tree's own

	mu      sync.Mutex
	dirs    map[string]*listing
	stats   map[string]*statCall
	walks   map[string][]Entry // dir -> walk result
	entries atomic.Int64       // entries listed so far
	names   atomic.Int64       // bytes of the names listed so far

	// reads keeps file contents (up to readCacheBytes in all), so that
	// checks reading the same file read it once.
	reads      map[string]*readCall
	readCached int64
}

// readCacheBytes bounds the file contents a tree keeps.
const readCacheBytes = 64 << 20

type readCall struct {
	done  chan struct{}
	limit int64
	data  []byte
	err   error
}

type listing struct {
	done  chan struct{}
	infos map[string]fs.FileInfo
	names []string // sorted
	err   error
}

type statCall struct {
	done chan struct{}
	info fs.FileInfo
	err  error
}

func newTree(b backend, limits Limits) *tree {
	return &tree{b: b, limits: limits.withDefaults(), dirs: map[string]*listing{},
		stats: map[string]*statCall{}, walks: map[string][]Entry{}, reads: map[string]*readCall{}}
}

// await waits for another caller's list, lstat or read of the same name to
// finish (done closed), or for ctx to end, whose error it then returns.
func await(ctx context.Context, done <-chan struct{}) error {
	// Done already: ctx is not asked for its channel, which for some
	// contexts (the assay command's) starts machinery of its own.
	select {
	case <-done:
		return nil
	default:
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// list returns the listing of dir, listing it on first use.
func (t *tree) list(ctx context.Context, dir string) (*listing, error) {
	t.mu.Lock()
	l, ok := t.dirs[dir]
	if !ok {
		l = &listing{done: make(chan struct{})}
		t.dirs[dir] = l
		t.mu.Unlock()
		infos, err := t.b.readDir(ctx, dir, t.take)
		if err != nil {
			l.err = fmt.Errorf("%s: listing %s: %w", t.b, display(dir), err)
		} else {
			l.infos = make(map[string]fs.FileInfo, len(infos))
			for _, fi := range infos {
				n := fi.Name()
				// A server's listing is untrusted: names that are not one
				// plain segment are dropped.
				if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
					continue
				}
				l.infos[n] = fi
				l.names = append(l.names, n)
			}
			slices.Sort(l.names)
		}
		if isCtxErr(err) {
			t.mu.Lock()
			delete(t.dirs, dir)
			t.mu.Unlock()
		}
		close(l.done)
	} else {
		t.mu.Unlock()
		if err := await(ctx, l.done); err != nil {
			return nil, err
		}
	}
	return l, l.err
}

// take counts a page of a listing against the tree's limits.
func (t *tree) take(page []fs.FileInfo, received int) error {
	if t.entries.Add(int64(received)) > int64(t.limits.MaxEntries) {
		return fmt.Errorf("%w: more than %d entries", ErrTreeTooLarge, t.limits.MaxEntries)
	}
	var n int64
	for _, fi := range page {
		n += int64(len(fi.Name()))
	}
	if t.names.Add(n) > t.limits.MaxNameBytes {
		return fmt.Errorf("%w: names of more than %d bytes in all", ErrTreeTooLarge, t.limits.MaxNameBytes)
	}
	return nil
}

func display(name string) string {
	if name == "" {
		return "/"
	}
	return "/" + name
}

// lstat describes name itself: from its folder's listing when that is at
// hand (or when the backend has no cheaper way), else by one lstat.
func (t *tree) lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	if name == "" {
		return rootInfo{}, nil
	}
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	t.mu.Lock()
	_, listed := t.dirs[dir]
	t.mu.Unlock()
	ls, direct := t.b.(lstater)
	if listed || !direct {
		l, err := t.list(ctx, dir)
		if err != nil {
			return nil, err
		}
		if fi, ok := l.infos[base]; ok {
			return fi, nil
		}
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
	}
	t.mu.Lock()
	c, ok := t.stats[name]
	if !ok {
		c = &statCall{done: make(chan struct{})}
		t.stats[name] = c
		t.mu.Unlock()
		c.info, c.err = ls.lstat(ctx, name)
		if c.err != nil && !errors.Is(c.err, fs.ErrNotExist) {
			c.err = fmt.Errorf("%s: %w", t.b, c.err)
		}
		if isCtxErr(c.err) {
			t.mu.Lock()
			delete(t.stats, name)
			t.mu.Unlock()
		}
		close(c.done)
	} else {
		t.mu.Unlock()
		if err := await(ctx, c.done); err != nil {
			return nil, err
		}
	}
	return c.info, c.err
}

type rootInfo struct{ fs.FileInfo }

func (rootInfo) Mode() fs.FileMode { return fs.ModeDir }
func (rootInfo) IsDir() bool       { return true }
func (rootInfo) Name() string      { return "/" }

// lstatPath lstats name after checking that every folder on the way is a
// real folder: a link there makes problem say so (links are followed only
// as the final entry).
func (t *tree) lstatPath(ctx context.Context, name string) (fi fs.FileInfo, problem string, err error) {
	if name == "" {
		return rootInfo{}, "", nil
	}
	segs := strings.Split(name, "/")
	if _, direct := t.b.(lstater); direct && len(segs) > 1 {
		// Look every folder on the way up at once: one round trip, not
		// one per folder. The answers are cached for the loop below.
		var wg sync.WaitGroup
		for i := 1; i <= len(segs); i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t.lstat(ctx, strings.Join(segs[:i], "/"))
			}()
		}
		wg.Wait()
	}
	for i := 1; i < len(segs); i++ {
		dir := strings.Join(segs[:i], "/")
		di, err := t.lstat(ctx, dir)
		if err != nil {
			return nil, "", err
		}
		switch {
		case di.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Sprintf("the way to it passes through the symbolic link %s, which is not followed", dir), nil
		case !di.IsDir():
			return nil, "", &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
		}
	}
	fi, err = t.lstat(ctx, name)
	return fi, "", err
}

// entry builds the Entry of name from its lstat information, following a
// link.
func (t *tree) entry(ctx context.Context, name string, fi fs.FileInfo) (Entry, error) {
	e := Entry{Path: name, Mode: fi.Mode().Type(), Resolved: fi.Mode().Type(), Size: fi.Size()}
	if !e.IsLink() {
		return e, nil
	}
	e.Resolved, e.Size = 0, 0
	cur := name
	for range maxLinkHops {
		target, err := t.b.readLink(ctx, cur)
		if errors.Is(err, errNoReadLink) {
			// The backend follows links itself and refuses to leave its
			// root: classify by what stat says.
			ti, err := t.b.stat(ctx, cur)
			switch {
			case err == nil:
				e.Resolved, e.Size = ti.Mode().Type(), ti.Size()
				e.Target = name // read through the link itself
			case errors.Is(err, fs.ErrNotExist):
				e.Problem = "a dangling symbolic link (what it names does not exist)"
			case strings.Contains(err.Error(), "escapes"):
				e.Problem = "a symbolic link leading out of the tree"
			case strings.Contains(err.Error(), "too many"):
				e.Problem = "a symbolic link in a loop of links"
			default:
				return e, fmt.Errorf("%s: following the link %s: %w", t.b, display(name), err)
			}
			return e, nil
		}
		if err != nil {
			return e, fmt.Errorf("%s: reading the link %s: %w", t.b, display(cur), err)
		}
		var rel string
		if path.IsAbs(target) {
			r, ok := t.b.inside(path.Clean(target))
			if !ok {
				e.Problem = fmt.Sprintf("a symbolic link leading out of the tree (to %s)", target)
				return e, nil
			}
			rel = r
		} else {
			rel = path.Join(path.Dir(cur), target)
			if rel == ".." || strings.HasPrefix(rel, "../") {
				e.Problem = fmt.Sprintf("a symbolic link leading out of the tree (to %s)", target)
				return e, nil
			}
			if rel == "." {
				rel = ""
			}
		}
		ti, problem, err := t.lstatPath(ctx, rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			e.Problem = fmt.Sprintf("a dangling symbolic link (to %s)", target)
			return e, nil
		case err != nil:
			return e, err
		case problem != "":
			e.Problem = "a symbolic link whose target cannot be reached: " + problem
			return e, nil
		}
		if ti.Mode()&fs.ModeSymlink == 0 {
			e.Target, e.Resolved, e.Size = rel, ti.Mode().Type(), ti.Size()
			return e, nil
		}
		cur = rel
	}
	e.Problem = "a symbolic link in a loop, or a chain of more than 40 links"
	return e, nil
}

// Stat implements Source.
func (t *tree) Stat(ctx context.Context, name string) (Entry, error) {
	name, err := internalName(name)
	if err != nil {
		return Entry{}, err
	}
	fi, problem, err := t.lstatPath(ctx, name)
	if err != nil {
		return Entry{}, err
	}
	if problem != "" {
		return Entry{Path: name, Mode: fs.ModeIrregular, Resolved: fs.ModeIrregular, Problem: problem}, nil
	}
	return t.entry(ctx, name, fi)
}

// internalName checks a name given to a Source method.
func internalName(name string) (string, error) {
	name = strings.Trim(name, "/")
	if name == "" {
		return "", nil
	}
	if !validName(name) {
		return "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return name, nil
}

// validName is fs.ValidPath without its UTF-8 rule: a file name on an SFTP
// server or in memory may hold any byte but NUL and '/', and a tree an
// agent left behind may well hold one that is not UTF-8.
func validName(name string) bool {
	if strings.IndexByte(name, 0) >= 0 {
		return false
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// Walk implements Source.
func (t *tree) Walk(ctx context.Context, dir string) ([]Entry, error) {
	dir, err := internalName(dir)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if w, ok := t.walks[dir]; ok {
		t.mu.Unlock()
		return w, nil
	}
	// A walk of a folder above this one holds this one's entries.
	for d := dir; d != ""; {
		d = parentOf(d)
		if w, ok := t.walks[d]; ok {
			t.mu.Unlock()
			return below(w, dir)
		}
	}
	t.mu.Unlock()
	fi, problem, err := t.lstatPath(ctx, dir)
	if err != nil {
		return nil, err
	}
	if problem != "" || !fi.IsDir() {
		return nil, &fs.PathError{Op: "walk", Path: dir, Err: ErrNotFolder}
	}
	var (
		mu    sync.Mutex
		out   []Entry
		first error
	)
	level := []string{dir}
	for depth := 0; len(level) > 0; depth++ {
		if depth > t.limits.MaxDepth {
			return nil, fmt.Errorf("%s: %w: folders deeper than %d levels below %s", t.b, ErrTreeTooLarge, t.limits.MaxDepth, display(dir))
		}
		var next []string
		pool.Each(ctx, len(level), t.limits.Concurrency, func(i int) {
			d := level[i]
			l, err := t.list(ctx, d)
			var local []Entry
			var subdirs []string
			if err == nil {
				for _, n := range l.names {
					var e Entry
					e, err = t.entry(ctx, join(d, n), l.infos[n])
					if err != nil {
						break
					}
					local = append(local, e)
					if e.Mode.IsDir() {
						subdirs = append(subdirs, e.Path)
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			out = append(out, local...)
			next = append(next, subdirs...)
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if first != nil {
			return nil, first
		}
		level = next
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Path, b.Path) })
	t.mu.Lock()
	t.walks[dir] = out
	t.mu.Unlock()
	return out, nil
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// below returns the entries of a sorted walk (of a folder above dir) that
// lie below dir, or the error a walk of dir would return.
func below(w []Entry, dir string) ([]Entry, error) {
	i, found := slices.BinarySearchFunc(w, dir, func(e Entry, p string) int { return cmp.Compare(e.Path, p) })
	if !found {
		// dir is missing, or lies below a link or file the walk did
		// not enter.
		return nil, &fs.PathError{Op: "walk", Path: dir, Err: fs.ErrNotExist}
	}
	if e := w[i]; !e.Mode.IsDir() {
		return nil, &fs.PathError{Op: "walk", Path: dir, Err: ErrNotFolder}
	}
	// Paths below dir share the prefix dir+"/", so they are one run of
	// the sorted walk, shared rather than copied.
	prefix := dir + "/"
	i, _ = slices.BinarySearchFunc(w, prefix, func(e Entry, p string) int { return cmp.Compare(e.Path, p) })
	j := i
	for j < len(w) && strings.HasPrefix(w[j].Path, prefix) {
		j++
	}
	return w[i:j:j], nil
}

// ReadFile implements Source.
func (t *tree) ReadFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = t.max
	}
	if limit <= 0 {
		limit = check.DefaultMaxFileSize
	}
	e, err := t.Stat(ctx, name)
	if err != nil {
		return nil, &check.FileError{Path: name, Err: err}
	}
	if e.Problem != "" {
		return nil, &check.FileError{Path: name, Err: fmt.Errorf("%w: %s", check.ErrNotRegular, e.Problem)}
	}
	if !e.Resolved.IsRegular() {
		return nil, &check.FileError{Path: name, Err: fmt.Errorf("%w (it is %s)", check.ErrNotRegular, filekind.Of(e.Resolved))}
	}
	if e.Size > limit {
		return nil, &check.FileError{Path: name, Size: e.Size, Limit: limit, Err: check.ErrTooLarge}
	}
	target := e.Path
	if e.IsLink() {
		target = e.Target
	}
	if t.budget != nil {
		// The listed size is charged before the read, what was read
		// after it (a file that grew).
		if err := t.budget.Charge(target, e.Size); err != nil {
			return nil, totalErr(name, err)
		}
	}
	data, err := t.read(ctx, target, limit, e.Size)
	if err == nil && t.budget != nil {
		if err := t.budget.Charge(target, int64(len(data))); err != nil {
			return nil, totalErr(name, err)
		}
	}
	if err != nil {
		var fe *check.FileError
		if errors.As(err, &fe) {
			fe.Path = name
			return nil, fe
		}
		return nil, &check.FileError{Path: name, Err: err}
	}
	return data, nil
}

// totalErr names name in a total-cap refusal.
func totalErr(name string, err error) error {
	var fe *check.FileError
	if errors.As(err, &fe) {
		fe.Path = name
	}
	return err
}

// read reads a file through the cache: concurrent readers of one file
// wait for one read; contents are kept while the cache has room.
func (t *tree) read(ctx context.Context, name string, limit, size int64) ([]byte, error) {
	t.mu.Lock()
	c, ok := t.reads[name]
	if ok && c.limit == limit {
		t.mu.Unlock()
		if err := await(ctx, c.done); err != nil {
			return nil, err
		}
		if c.err == nil || !isCtxErr(c.err) {
			return c.data, c.err
		}
		return t.b.readFile(ctx, name, limit, size)
	}
	c = &readCall{done: make(chan struct{}), limit: limit}
	if t.readCached < readCacheBytes {
		t.reads[name] = c
	}
	t.mu.Unlock()
	c.data, c.err = t.b.readFile(ctx, name, limit, size)
	t.mu.Lock()
	if c.err == nil {
		t.readCached += int64(len(c.data))
	} else if isCtxErr(c.err) && t.reads[name] == c {
		delete(t.reads, name)
	}
	t.mu.Unlock()
	close(c.done)
	return c.data, c.err
}
