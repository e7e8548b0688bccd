package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Options tune how a snapshot is loaded.
type Options struct {
	// JudgeURL, JudgeModel and JudgeAPIKey configure the LLM-assisted
	// phrase matcher of voice checks; empty values fall back to the
	// ASSAY_JUDGE_* environment variables.
	JudgeURL, JudgeModel, JudgeAPIKey string
	// MaxFileSize caps every evidence file a source reads (<= 0:
	// check.DefaultMaxFileSize, 64 MiB). A larger file is an error for the
	// checks that need it.
	MaxFileSize int64
	// MaxTotalSize caps what one evidence folder's source reads in all,
	// summed over its files, each file name counted once however many
	// checks read it (<= 0: check.DefaultMaxTotalSize, 256 MiB); a live
	// FHIR server's search is capped likewise over its pages. Past it the
	// checks that need the source are errors that name the cap.
	MaxTotalSize int64
}

// folder is one subfolder of a snapshot, as a loader sees it.
type folder struct {
	// fsys is the subfolder's file system.
	fsys fs.FS
	// dir is its path on disk, or "" when the snapshot is not on disk (a
	// tarball, an embed.FS). Only what must run there (a cli trace's
	// relative workdir) needs it.
	dir string
}

// loader attaches the sources of one subfolder of a snapshot to env. It is
// called only when the subfolder exists. Problems with the evidence inside
// are not returned: they are attached as sources that report them, so the
// checks that need the evidence say status error and the others still run.
type loader func(f folder, env *assert.Env, opts Options)

var loaders = map[string]loader{}

// register adds the loader of a subfolder; each domain's file calls it from
// init.
func register(sub string, l loader) {
	if _, dup := loaders[sub]; dup {
		panic("sandbox: two loaders for " + sub)
	}
	loaders[sub] = l
}

// FolderLoader attaches the evidence of one snapshot subfolder to env. fsys
// is the subfolder; dir is its path on disk, or "" when the snapshot is not
// on disk. A loader never fails: a problem with the files inside is
// attached as a source that reports it, so the checks that need the
// evidence say status error and the others still run.
type FolderLoader func(fsys fs.FS, dir string, env *assert.Env, opts Options)

// RegisterFolder makes Load and LoadFS read a snapshot subfolder of your
// own (the evidence of a kind you wrote) with load. Call it from an init
// function, as database/sql drivers register; it panics when the name is
// taken, empty, or not a single path element.
func RegisterFolder(name string, load FolderLoader) {
	if name == "" || name == "." || strings.ContainsAny(name, `/\`) {
		panic("sandbox: RegisterFolder with an invalid folder name " + strconv.Quote(name))
	}
	if load == nil {
		panic("sandbox: RegisterFolder " + name + " with a nil loader")
	}
	register(name, func(f folder, env *assert.Env, opts Options) { load(f.fsys, f.dir, env, opts) })
}

// Folders returns the subfolders a snapshot may hold, sorted.
func Folders() []string {
	out := make([]string, 0, len(loaders))
	for k := range loaders {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ErrNotFound is wrapped by Load's error when the snapshot folder does not
// exist.
var ErrNotFound = errors.New("sandbox folder not found")

// Load reads the snapshot in the folder dir into a new Env. Files are read
// through check.DirFS, so a symbolic link inside the snapshot is followed
// only while it stays inside it. Close the Env when done: a live source the
// snapshot names (sftp.url) holds a connection until then.
//
// The input entity that run.json names is recorded in the Env
// (Env.SetEntity), so evaluating it runs only that entity's criteria (and
// the unscoped ones), as assay eval does; assert.WithEntity still wins.
//
// It fails when dir itself is missing or not a folder, and when run.json
// cannot be read or is not {"input_entity_id": ...}. A missing subfolder
// leaves that source absent (its checks report status error); an
// unreadable or malformed file inside one is reported by the checks that
// read it.
func Load(dir string, opts Options) (*assert.Env, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotFound)
		}
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: %s is not a folder", dir)
	}
	env := load(check.DirFS(dir), dir, opts)
	if _, err := env.Entity(); err != nil {
		env.Close()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return env, nil
}

// LoadFS reads a snapshot from a file system whose root is the snapshot
// folder: an embed.FS (through fs.Sub), a tarball unpacked in memory, an
// object store's fs.FS. It never fails; a missing subfolder leaves that
// source absent, and a run.json that cannot be read makes evaluating the
// Env return that error (Env.Entity). A cli trace's relative workdir has no folder on disk to
// resolve against there, so the checks that look at the working directory
// (file_exists, file_contains, verify) need an absolute one.
func LoadFS(fsys fs.FS, opts Options) *assert.Env { return load(fsys, "", opts) }

func load(fsys fs.FS, dir string, opts Options) *assert.Env {
	env := assert.NewEnv()
	// The rollout's input entity scopes its evaluation: evaluating env
	// then gives what assay eval gives on the same folder.
	if id, err := RunEntity(fsys, opts.MaxFileSize); id != "" || err != nil {
		env.SetEntity(id, err)
	}
	for _, sub := range Folders() {
		fi, err := fs.Stat(fsys, sub)
		if err != nil || !fi.IsDir() {
			continue
		}
		f := folder{dir: ""}
		if dir != "" {
			f.dir = filepath.Join(dir, sub)
		}
		if f.fsys, err = fs.Sub(fsys, path.Clean(sub)); err != nil {
			continue
		}
		// Each folder is one source, with a total of its own.
		f.fsys = check.CapTotal(f.fsys, opts.MaxTotalSize)
		loaders[sub](f, env, opts)
	}
	return env
}

// Present returns the known evidence folders the snapshot fsys holds, so
// that a caller can warn about a snapshot that holds none.
func Present(fsys fs.FS) []string {
	var out []string
	for _, sub := range Folders() {
		if fi, err := fs.Stat(fsys, sub); err == nil && fi.IsDir() {
			out = append(out, sub)
		}
	}
	return out
}
