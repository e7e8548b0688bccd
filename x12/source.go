package x12

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
)

// Record is one recorded exchange with a payer: the request an agent sent,
// the response it got, and metadata the harness kept about it.
type Record struct {
	// Name identifies the record in messages: the NAME of a
	// NAME.response.x12 file, or records.json[N].
	Name string
	// Transaction is the transaction set the record is about, e.g. "271";
	// empty means the response's ST01.
	Transaction string
	// Request and Response are raw X12 interchanges; Request may be empty.
	Request, Response string
	// Metadata holds named values about the exchange (e.g. patient_id,
	// request_id), as JSON decodes them with UseNumber: strings,
	// json.Number, booleans, nil, maps and slices.
	Metadata map[string]any

	// parsed caches the interchanges when the record came from one of this
	// package's sources, so that every check shares one parse.
	parsed *parsedRecord
}

// parsedRecord holds a record's parsed interchanges, so that the criteria of
// a snapshot parse each response and request once rather than once apiece.
type parsedRecord struct {
	once        sync.Once
	response    *Interchange
	responseErr error
	request     *Interchange // nil when absent or unreadable
}

// interchanges parses the record's response and request, once per record
// when it came from MemorySource or FolderSource. A request that cannot be parsed reads as nil:
// it is what the agent sent, so it is judged, not an evidence error.
func (r Record) interchanges() (response *Interchange, request *Interchange, err error) {
	parse := func(p *parsedRecord) {
		p.response, p.responseErr = ParseString(r.Response)
		if r.Request != "" {
			p.request, _ = ParseString(r.Request)
		}
	}
	if r.parsed == nil {
		var p parsedRecord
		parse(&p)
		return p.response, p.request, p.responseErr
	}
	r.parsed.once.Do(func() { parse(r.parsed) })
	return r.parsed.response, r.parsed.request, r.parsed.responseErr
}

// Source gives the recorded X12 exchanges of a rollout. An error means the
// evidence could not be read; checks report it as status error. Records
// from MemorySource and FolderSource carry their parse with them, so that
// every check of an evaluation parses each response once; records a
// Source of your own builds are parsed by each check that reads them.
type Source interface {
	Records(ctx context.Context) ([]Record, error)
}

// Attach sets env's X12 source.
func Attach(env *assert.Env, src Source) { assert.Attach[Source](env, src) }

// MemorySource is a Source holding records in memory. Each record's
// response and request are parsed the first time a check reads them, and
// every later check shares that parse.
func MemorySource(records ...Record) Source {
	recs := make([]Record, len(records))
	copy(recs, records)
	for i := range recs {
		recs[i].parsed = &parsedRecord{}
	}
	return memorySource(recs)
}

type memorySource []Record

func (m memorySource) Records(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// FolderSource is the x12 folder of a sandbox snapshot, read through fsys
// when a check first asks and kept for the checks after it: records.json,
// a JSON array of {"transaction"?, "request"?, "response", "metadata"?}
// with raw X12 strings, then every NAME.response.x12 with its optional
// NAME.request.x12 and NAME.meta.json (a JSON object), in byte order of
// NAME. Other files are ignored. Every file is read with check.ReadFile:
// regular files only, at most maxFileSize bytes (<= 0:
// check.DefaultMaxFileSize), all of them together at most the total cap of
// fsys (check.CapTotal; 256 MiB when fsys has none), checked on their sizes
// before any is read. A file that cannot be read, a request or
// metadata file without its response, or a records.json that is not of
// that shape makes Records return an error, so that the checks that need
// the evidence report status error. The X12 is parsed once, by the first
// check that reads a record.
func FolderSource(fsys fs.FS, maxFileSize int64) Source {
	return &folderSource{load: sync.OnceValues(func() ([]Record, error) {
		recs, err := readFolder(check.CapTotal(fsys, 0), maxFileSize)
		if err != nil {
			return nil, err
		}
		for i := range recs {
			recs[i].parsed = &parsedRecord{}
		}
		return recs, nil
	})}
}

type folderSource struct {
	load func() ([]Record, error)
}

func (f *folderSource) Records(ctx context.Context) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f.load()
}

// Suffixes of the files a snapshot's x12 folder holds.
const (
	requestSuffix  = ".request.x12"
	responseSuffix = ".response.x12"
	metaSuffix     = ".meta.json"
	recordsFile    = "records.json"
)

// readFile reads one evidence file as a string.
func readFile(fsys fs.FS, name string, limit int64) (string, error) {
	data, err := check.ReadFile(fsys, name, limit)
	if err != nil {
		return "", fmt.Errorf("x12 records: %w", err)
	}
	return string(data), nil
}

func readFolder(fsys fs.FS, limit int64) ([]Record, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("x12 records: %w", err)
	}
	if err := check.FitTotal(fsys, evidenceFiles(entries)); err != nil {
		return nil, fmt.Errorf("x12 records: %w", err)
	}
	var recs []Record
	type parts struct{ request, response, meta bool }
	pairs := map[string]*parts{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		if name == recordsFile {
			rs, err := readRecordsJSON(fsys, name, limit)
			if err != nil {
				return nil, err
			}
			recs = append(recs, rs...)
			continue
		}
		for _, suf := range []string{requestSuffix, responseSuffix, metaSuffix} {
			base, ok := strings.CutSuffix(name, suf)
			if !ok || base == "" {
				continue
			}
			pt := pairs[base]
			if pt == nil {
				pt = &parts{}
				pairs[base] = pt
			}
			switch suf {
			case requestSuffix:
				pt.request = true
			case responseSuffix:
				pt.response = true
			default:
				pt.meta = true
			}
		}
	}
	names := make([]string, 0, len(pairs))
	for n := range pairs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		pt := pairs[n]
		if !pt.response {
			orphan := n + requestSuffix
			if !pt.request {
				orphan = n + metaSuffix
			}
			return nil, fmt.Errorf("x12 records: %s has no %s%s beside it", orphan, n, responseSuffix)
		}
		rec := Record{Name: n}
		if rec.Response, err = readFile(fsys, n+responseSuffix, limit); err != nil {
			return nil, err
		}
		if pt.request {
			if rec.Request, err = readFile(fsys, n+requestSuffix, limit); err != nil {
				return nil, err
			}
		}
		if pt.meta {
			file := n + metaSuffix
			data, err := check.ReadFile(fsys, file, limit)
			if err != nil {
				return nil, fmt.Errorf("x12 records: %w", err)
			}
			v, err := decodeJSON(data)
			if err != nil {
				return nil, fmt.Errorf("x12 records: %s: not JSON: %w", file, err)
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("x12 records: %s: metadata must be a JSON object, not %s", file, jsonkind.Of(v))
			}
			rec.Metadata = m
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// evidenceFiles names the entries of the folder that readFolder reads.
func evidenceFiles(entries []fs.DirEntry) []string {
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		for _, suf := range []string{recordsFile, requestSuffix, responseSuffix, metaSuffix} {
			if base, ok := strings.CutSuffix(name, suf); ok && (base != "") == (suf != recordsFile) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

func decodeJSON(data []byte) (any, error) {
	if v, ok := jsonvalue.Decode(data); ok {
		return v, nil
	}
	// Not one JSON value: encoding/json says why (and, as before, lets
	// through a value followed by what is not JSON).
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// readRecordsJSON reads records.json; problems name the JSON pointer.
func readRecordsJSON(fsys fs.FS, file string, limit int64) ([]Record, error) {
	data, err := check.ReadFile(fsys, file, limit)
	if err != nil {
		return nil, fmt.Errorf("x12 records: %w", err)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("x12 records: %s: not JSON: %w", file, err)
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("x12 records: %s: must be a JSON array of records, not %s", file, jsonkind.Of(v))
	}
	recs := make([]Record, 0, len(items))
	for i, it := range items {
		bad := func(member, msg string) error {
			return fmt.Errorf("x12 records: %s: /%d%s: %s", file, i, member, msg)
		}
		obj, ok := it.(map[string]any)
		if !ok {
			return nil, bad("", "a record must be an object, not "+jsonkind.Of(it))
		}
		rec := Record{Name: fmt.Sprintf("%s[%d]", recordsFile, i)}
		str := func(key string, required bool) (string, error) {
			switch s := obj[key].(type) {
			case string:
				return s, nil
			case nil:
				if _, has := obj[key]; required && !has {
					return "", bad("", fmt.Sprintf("missing %q", key))
				}
				if required {
					return "", bad("/"+key, "must be a string of raw X12, not null")
				}
				return "", nil
			default:
				return "", bad("/"+key, "must be a string, not "+jsonkind.Of(s))
			}
		}
		if rec.Transaction, err = str("transaction", false); err != nil {
			return nil, err
		}
		if rec.Request, err = str("request", false); err != nil {
			return nil, err
		}
		if rec.Response, err = str("response", true); err != nil {
			return nil, err
		}
		switch m := obj["metadata"].(type) {
		case nil:
		case map[string]any:
			rec.Metadata = m
		default:
			return nil, bad("/metadata", "must be an object, not "+jsonkind.Of(m))
		}
		recs = append(recs, rec)
	}
	return recs, nil
}
