package fhir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source runs FHIR searches. It is the evidence of fhir-resource-state;
// attach one with Attach. Implementations: *Store (in memory), MemorySource,
// FolderSource (the sandbox fhir/ folder) and *Client (any FHIR R4 server).
type Source interface {
	// Search runs GET [base]/{resourceType}?{params} to the end (every
	// page) and returns the matched resources in the server's order. It
	// returns an error when the search cannot be run or answered: the
	// check then reports status error.
	Search(ctx context.Context, resourceType string, params url.Values) ([]Resource, error)
}

// Attach sets env's FHIR source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// MemorySource returns a Source over resources and Bundles held in
// memory (each a JSON document, as LoadJSON takes). They are loaded into a
// Store on the first search and shared by every later one; a document that
// does not load makes every search fail with its LoadError.
func MemorySource(docs ...[]byte) Source {
	return &lazySource{load: func() (Source, error) {
		s := NewStore()
		for i, d := range docs {
			if _, err := s.LoadJSON(d); err != nil {
				var le *LoadError
				if errors.As(err, &le) && le.File == "" {
					le.File = fmt.Sprintf("document %d", i)
				}
				return nil, err
			}
		}
		return s, nil
	}}
}

// URLFile is the file of a sandbox fhir/ folder that names a live FHIR
// server instead of holding resources.
const URLFile = "fhir.url"

// TokenEnv is the environment variable whose value, when set, FolderSource
// sends as the bearer token to a server named by fhir.url.
const TokenEnv = "ASSAY_FHIR_TOKEN"

// FolderSource returns the Source of a sandbox fhir/ folder: its *.json
// resources and Bundles loaded into a Store, or, when the folder holds
// fhir.url, a Client for the server that file names (its first non-blank
// line; the bearer token comes from ASSAY_FHIR_TOKEN). Nothing is read
// until the first search, and the folder is read once. Files are read
// through check.ReadFile with the cap maxFileSize (<= 0:
// check.DefaultMaxFileSize); one that cannot be read or loaded makes every
// search fail, naming it.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	return &lazySource{load: func() (Source, error) {
		if _, err := fs.Stat(fsys, URLFile); err == nil {
			data, err := check.ReadFile(fsys, URLFile, maxFileSize)
			if err != nil {
				return nil, err
			}
			base := ""
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					base = line
					break
				}
			}
			if base == "" {
				return nil, fmt.Errorf("%s names no server", URLFile)
			}
			var opts []ClientOption
			if tok := os.Getenv(TokenEnv); tok != "" {
				opts = append(opts, WithBearerToken(tok))
			}
			opts = append(opts, WithMaxBodySize(maxFileSize))
			c, err := NewClient(base, opts...)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", URLFile, err)
			}
			return c, nil
		}
		s := NewStore()
		if _, err := s.LoadFS(fsys, maxFileSize); err != nil {
			return nil, err
		}
		return s, nil
	}}
}

// lazySource builds its Source on first use, once.
type lazySource struct {
	load func() (Source, error)
	once sync.Once
	src  Source
	err  error
}

func (l *lazySource) Search(ctx context.Context, typ string, params url.Values) ([]Resource, error) {
	l.once.Do(func() { l.src, l.err = l.load() })
	if l.err != nil {
		return nil, l.err
	}
	return l.src.Search(ctx, typ, params)
}
