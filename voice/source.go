package voice

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source gives a call's transcript. It is the evidence of
// voice-transcript; attach one with Attach.
type Source interface {
	// Transcript returns the transcript, or an error when it cannot be
	// read (the checks that need it then report status error).
	Transcript(ctx context.Context) (*Transcript, error)
}

// Attach sets env's transcript source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// MemorySource is a Source holding a transcript in memory, for harnesses
// and tests. The transcript normalises its turns once and shares them.
func MemorySource(t *Transcript) Source { return memorySource{t} }

type memorySource struct{ t *Transcript }

func (m memorySource) Transcript(context.Context) (*Transcript, error) {
	if m.t == nil {
		return nil, errors.New("transcript: none was given")
	}
	return m.t, nil
}

// The files FolderSource reads.
const (
	JSONFile = "transcript.json"
	TextFile = "transcript.txt"
)

// FolderSource is the Source of a snapshot's voice/ folder: it reads
// transcript.json or transcript.txt from fsys (through check.ReadFile: a
// regular file of at most maxFileSize bytes, <= 0 meaning
// check.DefaultMaxFileSize) once, on first use, and shares the parse. A
// folder with both files, or neither, or a file that is unreadable, over
// the cap or malformed, makes every check that reads it report status
// error.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	return &folderSource{load: sync.OnceValues(func() (*Transcript, error) {
		_, jerr := fs.Stat(fsys, JSONFile)
		_, terr := fs.Stat(fsys, TextFile)
		name := JSONFile
		switch {
		case jerr == nil && terr == nil:
			return nil, fmt.Errorf("transcript: the folder holds both %s and %s; keep one", JSONFile, TextFile)
		case errors.Is(jerr, fs.ErrNotExist) && errors.Is(terr, fs.ErrNotExist):
			return nil, fmt.Errorf("transcript: the folder holds neither %s nor %s", JSONFile, TextFile)
		case errors.Is(jerr, fs.ErrNotExist):
			name = TextFile
		}
		data, err := check.ReadFile(check.CapTotal(fsys, 0), name, maxFileSize)
		if err != nil {
			return nil, fmt.Errorf("transcript: %w", err)
		}
		if name == JSONFile {
			return ParseJSON(data, name)
		}
		return ParseText(data, name)
	})}
}

type folderSource struct {
	load func() (*Transcript, error)
}

func (f *folderSource) Transcript(context.Context) (*Transcript, error) { return f.load() }
