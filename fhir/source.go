package fhir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
)

// Source runs FHIR searches. It is the evidence of fhir-resource-state;
// attach one with Attach. Implementations: *Store (in memory), MemorySource,
// FolderSource (the sandbox fhir/ folder), *Client (any FHIR R4 server) and
// URLSource (the server a sandbox's fhir.url names).
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
// server instead of holding resources. Package sandbox reads it and
// attaches URLSource of its text.
const URLFile = "fhir.url"

// TokenEnv is the environment variable whose value package sandbox sends
// as the bearer token to a server named by fhir.url.
const TokenEnv = "ASSAY_FHIR_TOKEN"

// FolderSource returns the Source of a sandbox fhir/ folder: its *.json
// resources and Bundles, loaded into a Store on the first search, once.
// Files are read through check.ReadFile with the cap maxFileSize (<= 0:
// check.DefaultMaxFileSize); one that cannot be read or loaded makes every
// search fail, naming it. A folder that names a live server (fhir.url) is
// package sandbox's to recognise: it attaches URLSource instead, as it
// does for the other live sources.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	fsys = check.CapTotal(fsys, 0)
	return &lazySource{load: func() (Source, error) {
		s := NewStore()
		if _, err := s.LoadFS(fsys, maxFileSize); err != nil {
			return nil, err
		}
		return s, nil
	}}
}

// URLSource returns a Client for the server that text, the content of a
// sandbox's fhir/fhir.url, names on its first line that is neither blank
// nor a # comment. token, when not "", is sent as the bearer token, and at
// most maxFileSize bytes of a response body are read (<= 0:
// check.DefaultMaxFileSize); opts configure the client further (the
// sandbox passes WithMaxTotalSize). Text that names no usable server gives a
// Source whose every search reports why, so the checks that need it report
// status error.
func URLSource(text, token string, maxFileSize int64, opts ...ClientOption) Source {
	base := ""
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			base = line
			break
		}
	}
	if base == "" {
		return Unavailable(fmt.Errorf("%s names no server", URLFile))
	}
	opts = append([]ClientOption{WithMaxBodySize(maxFileSize)}, opts...)
	if token != "" {
		opts = append(opts, WithBearerToken(token))
	}
	c, err := NewClient(base, opts...)
	if err != nil {
		return Unavailable(fmt.Errorf("%s: %w", URLFile, err))
	}
	return c
}

// Unavailable returns a Source whose every search reports err, for a
// loader that found the evidence unusable (an unreadable fhir.url): the
// checks that need it report status error, and the others still run.
func Unavailable(err error) Source { return unavailable{err} }

type unavailable struct{ err error }

func (u unavailable) Search(context.Context, string, url.Values) ([]Resource, error) {
	return nil, u.err
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
