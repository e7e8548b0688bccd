package portal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// Source gives a portal's final state. It is the evidence of
// portal-state-match; attach one with Attach.
type Source interface {
	// State returns the state, or an error when it cannot be read (the
	// checks that need it then report status error).
	State(ctx context.Context) (*State, error)
}

// Attach sets env's portal state source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// State is a portal's state: resources of rows, read as {resource: rows} or,
// for criteria naming a portal, {portal: {resource: rows}}. Rows are a JSON
// array of objects or an object of objects keyed by the rows' key value.
//
// Rows are indexed on first use by (portal, resource, key column), so a
// thousand criteria over ten thousand rows scan each resource once, not once
// per criterion. A State is immutable and safe for concurrent use; attach
// one with MemorySource.
type State struct {
	doc string // the JSON text; gjson results slice into it

	mu      sync.Mutex
	indexes map[indexKey]*rowIndex
}

type indexKey struct{ portal, resource, key string }

// rowIndex holds the rows of one resource that have one key column.
type rowIndex struct {
	present bool // the resource exists
	held    int  // rows the resource holds
	// rows that have the column, in source order, with their key text
	rows    []row
	byValue map[string][]row // key text -> rows with it, in source order
}

type row struct {
	key string
	raw string
}

// ParseState reads a state document. It fails when data is not a JSON
// object.
func ParseState(data []byte) (*State, error) {
	if !jsonvalue.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("portal state is not JSON: %w", err)
	}
	doc := string(data)
	if !gjson.Parse(doc).IsObject() {
		return nil, fmt.Errorf("portal state must be a JSON object of resources, not %s", jsonkind.OfResult(gjson.Parse(doc)))
	}
	return &State{doc: doc, indexes: map[indexKey]*rowIndex{}}, nil
}

// StateOf builds a State from Go values, e.g. map[string][]map[string]any.
func StateOf(v any) (*State, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("portal state: %w", err)
	}
	return ParseState(data)
}

// MemorySource is a Source holding state in memory, for harnesses and
// tests. Its indexes are built once and shared by every check.
func MemorySource(s *State) Source { return memorySource{s} }

type memorySource struct{ state *State }

func (m memorySource) State(context.Context) (*State, error) {
	if m.state == nil {
		return nil, errors.New("portal state: none was given")
	}
	return m.state, nil
}

// index returns the rows of resource (in portal, when not "") that have the
// column key, building the index on first use.
// portalsHolding returns, quoted and sorted, the top-level keys of the
// state whose value is an object holding resource: the portals of a state
// keyed by portal ({portal: {resource: rows}}).
func (s *State) portalsHolding(resource string) []string {
	var out []string
	gjson.Parse(s.doc).ForEach(func(k, v gjson.Result) bool {
		if v.IsObject() && v.Get(gjson.Escape(resource)).Exists() {
			out = append(out, strconv.Quote(k.Str))
		}
		return true
	})
	sort.Strings(out)
	return out
}

func (s *State) index(portal, resource, key string) *rowIndex {
	k := indexKey{portal, resource, key}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ix, ok := s.indexes[k]; ok {
		return ix
	}
	ix := s.build(portal, resource, key)
	s.indexes[k] = ix
	return ix
}

func (s *State) build(portal, resource, key string) *rowIndex {
	ix := &rowIndex{byValue: map[string][]row{}}
	root := gjson.Parse(s.doc)
	if portal != "" {
		root = root.Get(check.LiteralKey(portal))
		if !root.IsObject() {
			return ix
		}
	}
	rows := root.Get(check.LiteralKey(resource))
	keyPath := check.LiteralKey(key)
	add := func(keyText, raw string) {
		r := row{key: keyText, raw: raw}
		ix.byValue[keyText] = append(ix.byValue[keyText], r)
		ix.rows = append(ix.rows, r)
	}
	switch {
	case rows.IsArray():
		ix.present = true
		rows.ForEach(func(_, r gjson.Result) bool {
			ix.held++
			if text, ok := columnText(r.Get(keyPath)); ok && r.IsObject() {
				add(text, r.Raw)
			}
			return true
		})
	case rows.IsObject():
		// Keyed rows: the object key is the row's key value, whatever the
		// row itself holds in that column.
		ix.present = true
		rows.ForEach(func(k, r gjson.Result) bool {
			ix.held++
			if r.IsObject() {
				add(k.Str, r.Raw)
			}
			return true
		})
	}
	return ix
}

// columnText is a key column's value as text: a string as itself, a number
// as written, a boolean as true/false. Null and a missing column are no
// value; so are objects and arrays, which cannot key a row.
func columnText(v gjson.Result) (string, bool) {
	switch v.Type {
	case gjson.String:
		return v.Str, true
	case gjson.Number:
		return v.Raw, true
	case gjson.True:
		return "true", true
	case gjson.False:
		return "false", true
	}
	return "", false
}

// FolderSource is the Source of a snapshot's portal/ folder: it reads
// state.json from fsys (through check.ReadFile: a regular file of at most
// maxFileSize bytes, <= 0 meaning check.DefaultMaxFileSize) once, on first
// use, and shares the parse. A file that is missing, unreadable, over the
// cap or not JSON makes every check that reads it report status error.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	return &folderSource{load: sync.OnceValues(func() (*State, error) {
		data, err := check.ReadFile(check.CapTotal(fsys, 0), "state.json", maxFileSize)
		if err != nil {
			return nil, fmt.Errorf("portal state: %w", err)
		}
		state, err := ParseState(data)
		if err != nil {
			return nil, fmt.Errorf("state.json: %w", err)
		}
		return state, nil
	})}
}

type folderSource struct {
	load func() (*State, error)
}

func (f *folderSource) State(context.Context) (*State, error) { return f.load() }
