package fhir

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// Resource is one FHIR resource as a search returned it: its type, id and
// version, and its JSON as stored or sent.
type Resource struct {
	Type    string
	ID      string
	Version string // meta.versionId; "" when the server sent none
	// JSON is the resource itself.
	JSON json.RawMessage
}

// Key is the resource's Type/id, as evidence names it.
func (r Resource) Key() string { return r.Type + "/" + r.ID }

// LoadError reports a resource or Bundle that cannot be loaded: not JSON,
// no resourceType, a bad id. Its Location names the file ("" for memory),
// the line and column, and the JSON pointer of the bad resource.
type LoadError struct {
	assert.Location
	Err error
}

func (e *LoadError) Error() string { return "fhir: " + e.Location.Prefix(e.Err.Error()) }

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// ErrNotFound is wrapped by the error of a read, vread, update or delete
// of a resource the store does not hold.
var ErrNotFound = errors.New("resource not found")

// ErrGone is wrapped by the error of a read of a deleted resource, and of
// a vread of a version the store no longer keeps.
var ErrGone = errors.New("resource deleted")

// Store bounds.
const (
	// DefaultMaxBytes bounds the resource JSON a store holds, every kept
	// version counted (section 12 rule 19).
	DefaultMaxBytes = 256 << 20
	// DefaultMaxVersions bounds the versions kept of one resource; older
	// ones are dropped.
	DefaultMaxVersions = 100
)

// storeConfig is what StoreOptions set.
type storeConfig struct {
	now         func() time.Time
	maxBytes    int64
	maxCurrent  int64
	maxVersions int
	reserve     func(delta int64) error
}

// StoreOption configures a Store (NewStore) or a copy of one (Clone).
type StoreOption func(*storeConfig)

// WithClock sets the clock that stamps meta.lastUpdated of writes and that
// date searches with ap measure from (nil: time.Now).
func WithClock(now func() time.Time) StoreOption {
	return func(c *storeConfig) { c.now = now }
}

// WithMaxBytes bounds the resource JSON the store holds, every kept version
// counted (<= 0: DefaultMaxBytes). A write that would pass it is refused
// with a BoundError.
func WithMaxBytes(n int64) StoreOption {
	return func(c *storeConfig) { c.maxBytes = n }
}

// WithMaxCurrentBytes bounds the JSON of the current versions alone (<= 0:
// no bound but MaxBytes). The sandbox gives each run 64 MiB.
func WithMaxCurrentBytes(n int64) StoreOption {
	return func(c *storeConfig) { c.maxCurrent = n }
}

// WithMaxVersions bounds the versions kept of one resource (<= 0:
// DefaultMaxVersions); a write past it drops the oldest, whose vread then
// answers ErrGone.
func WithMaxVersions(n int) StoreOption {
	return func(c *storeConfig) { c.maxVersions = n }
}

// WithReserve sets a hook consulted before each write commits, with the
// bytes the write adds (see Store for what counts): an error refuses the
// write (a BoundError wrapping it), which then leaves no trace. A write
// that frees bytes calls it with a negative delta, whose error is
// ignored. It is called with the store locked and must not call the
// store. A sandbox charges its memory budget through it.
func WithReserve(f func(delta int64) error) StoreOption {
	return func(c *storeConfig) { c.reserve = f }
}

func (c *storeConfig) fill() {
	if c.now == nil {
		c.now = time.Now
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	if c.maxVersions <= 0 {
		c.maxVersions = DefaultMaxVersions
	}
}

// BoundError reports a write the store refused because it would pass one
// of its bounds, or because the Reserve hook refused it. Over HTTP it is
// a 507 OperationOutcome.
type BoundError struct {
	// Bound is "MaxBytes", "MaxCurrentBytes" or "Reserve".
	Bound string
	// Limit is the bound and Size what the store would have held, in
	// bytes (MaxBytes, MaxCurrentBytes).
	Limit, Size int64
	// Err is the Reserve hook's error.
	Err error
}

func (e *BoundError) Error() string {
	switch e.Bound {
	case "MaxBytes":
		return fmt.Sprintf("the store holds at most %d bytes of resource JSON, history included (MaxBytes); this write would make it %d", e.Limit, e.Size)
	case "MaxCurrentBytes":
		return fmt.Sprintf("the store holds at most %d bytes of current resources (MaxCurrentBytes); this write would make it %d", e.Limit, e.Size)
	}
	return "the write was refused by the store's Reserve hook: " + e.Err.Error()
}

// Unwrap returns the Reserve hook's error.
func (e *BoundError) Unwrap() error { return e.Err }

// entry is one stored version of a resource. Entries never change once
// stored; tables share them.
type entry struct {
	typ, id, version string
	lastUpdated      int64 // microseconds since 1970 UTC
	raw              string
	deleted          bool
}

// history is the versions of one resource.
type history struct {
	// list holds the kept versions, oldest first. A new version makes a
	// new slice, never appends in place: copies of a table share lists.
	list []*entry
	// count is how many versions were ever written, dropped ones included.
	count int
	// firstDropped is the first version's id once the bound dropped it.
	firstDropped string
}

// next is the id of the version that follows: one more than the last
// when it is a number (a loaded versionId 7 is followed by 8), else one
// more than the count of versions.
func (h history) next() string {
	if len(h.list) == 0 {
		return "1"
	}
	if n, err := strconv.Atoi(h.list[len(h.list)-1].version); err == nil && n >= h.count {
		return strconv.Itoa(n + 1)
	}
	return strconv.Itoa(h.count + 1)
}

// add returns h with e appended, keeping at most max versions, and the
// bytes of the versions dropped.
func (h history) add(e *entry, max int) (history, int64) {
	keep := h.list
	var freed int64
	for len(keep) > 0 && len(keep) >= max {
		if h.count == len(keep) {
			h.firstDropped = keep[0].version
		}
		freed += int64(len(keep[0].raw))
		keep = keep[1:]
	}
	list := make([]*entry, len(keep)+1)
	copy(list, keep)
	list[len(keep)] = e
	return history{list: list, count: h.count + 1, firstDropped: h.firstDropped}, freed
}

// dropped reports whether vid names a version the bound dropped.
func (h history) dropped(vid string) bool {
	if h.count == len(h.list) || len(h.list) == 0 {
		return false
	}
	if vid == h.firstDropped {
		return true
	}
	n, err := strconv.Atoi(vid)
	oldest, err2 := strconv.Atoi(h.list[0].version)
	return err == nil && err2 == nil && n >= 1 && n < oldest
}

// Store is an in-memory FHIR R4 store: any resource type is stored and
// readable, and searches follow the R4 rules for the parameters of the
// official definitions (see the package documentation). It is safe for
// concurrent use, and it is a Source.
//
// A store is bounded: by default it holds at most DefaultMaxBytes of
// resource JSON (every kept version counted: the bytes of each version as
// stored) and DefaultMaxVersions versions of one resource; see the
// StoreOptions. Clone copies a store in constant time.
type Store struct {
	mu     sync.RWMutex
	cfg    storeConfig
	types  map[string]*typeTable
	nextID int64
	// bytes is the JSON of every kept version; current that of the
	// current versions.
	bytes, current int64
}

// NewStore returns an empty store.
func NewStore(opts ...StoreOption) *Store {
	s := &Store{types: map[string]*typeTable{}}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.cfg.fill()
	return s
}

// Clone returns a store that starts as an exact copy of s (resources,
// versions, the ids it will mint next, its options, then opts applied)
// and then lives apart: a write to either is never seen by the other. The
// copy shares s's data, so it costs the same whatever s holds (well under
// a millisecond and a few hundred bytes per resource type); the first
// write to a resource type, in either store, then gives the writer a
// layer of its own over the shared table (a few hundred bytes, charged to
// the Reserve hook, whatever the type holds), and a store's memory grows
// with what it writes. Indexes that searches build on the shared tables
// are shared too, and searches after writes use them.
func (s *Store) Clone(opts ...StoreOption) *Store {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := &Store{cfg: s.cfg, types: make(map[string]*typeTable, len(s.types)),
		nextID: s.nextID, bytes: s.bytes, current: s.current}
	for name, t := range s.types {
		t.shared.Store(true)
		c.types[name] = t
	}
	for _, o := range opts {
		o(&c.cfg)
	}
	c.cfg.fill()
	return c
}

// Len returns how many resources (current, not deleted) the store holds.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, t := range s.types {
		n += t.live
	}
	return n
}

// Size returns the bytes of resource JSON the store holds: every kept
// version, and the current versions alone (what MaxBytes and
// MaxCurrentBytes bound).
func (s *Store) Size() (all, current int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes, s.current
}

// LoadJSON loads one resource or Bundle. A Bundle of type transaction is
// applied as a transaction (as POST [base] applies it, but that a loaded
// meta.lastUpdated and versionId are kept); Bundles of type collection,
// batch, searchset and history are unpacked (a urn:uuid reference becomes
// Type/id); any other Bundle is stored as a resource. It returns how many
// resources it stored; on error nothing is stored.
func (s *Store) LoadJSON(data []byte) (int, error) { return s.load("", data) }

// LoadFS loads every *.json file of fsys's root folder (not its
// subfolders), in name order, each read through check.ReadFile with the
// cap maxFileSize (<= 0: check.DefaultMaxFileSize). The first file that
// cannot be read or loaded stops it with an error naming the file; so does,
// before any is read, a folder whose files together go past the total cap
// fsys has (check.CapTotal, check.FitTotal).
func (s *Store) LoadFS(fsys fs.FS, maxFileSize int64) (int, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return 0, err
	}
	sort.Strings(names)
	if err := check.FitTotal(fsys, names); err != nil {
		return 0, err
	}
	total := 0
	for _, name := range names {
		data, err := check.ReadFile(fsys, name, maxFileSize)
		if err != nil {
			return total, err
		}
		n, err := s.load(name, data)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// pending is a resource parsed for loading.
type pending struct {
	typ, id string
	raw     string
	del     bool
	urn     string // the entry's fullUrl, when a urn
}

// parseDoc checks data as a document to load or a request body: nesting,
// repeated keys (noRepeats), JSON syntax. file names it in errors.
func parseDoc(file string, data []byte, noRepeats bool) (gjson.Result, error) {
	if je := checkJSON(data, noRepeats); je != nil {
		return gjson.Result{}, &LoadError{Location: at(data, file, je.Pointer, je.Offset), Err: errors.New(je.Msg)}
	}
	if !jsonvalue.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		le := &LoadError{Location: assert.Location{File: file}, Err: errors.New("not JSON")}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			le.Line, le.Column = assert.LineColumn(data, int(se.Offset)-1)
			le.Err = fmt.Errorf("not JSON: %w", err)
		} else if err != nil {
			le.Err = fmt.Errorf("not JSON: %w", err)
		}
		return gjson.Result{}, le
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsObject() {
		return doc, &LoadError{Location: assert.Location{File: file}, Err: errors.New("not a JSON object (a resource or Bundle)")}
	}
	return doc, nil
}

func (s *Store) load(file string, data []byte) (int, error) {
	doc, err := parseDoc(file, data, false)
	if err != nil {
		return 0, err
	}
	var list []pending
	rt := doc.Get("resourceType")
	switch bt := doc.Get("type").Str; {
	case rt.Str == "Bundle" && bt == "transaction":
		return s.loadTransaction(file, data, doc)
	case rt.Str == "Bundle" && (bt == "collection" || bt == "batch" || bt == "searchset" || bt == "history" || bt == "transaction-response" || bt == "batch-response"):
		if list, err = unpack(file, data, doc); err != nil {
			return 0, err
		}
	default:
		p, err := parseResource(doc, func() assert.Location { return assert.Location{File: file} })
		if err != nil {
			return 0, err
		}
		list = append(list, p)
	}
	n := 0
	err = s.write(true, func(x *txn) error {
		n = 0
		uuids := map[string]string{}
		for i := range list {
			p := &list[i]
			if p.del {
				continue
			}
			if p.id == "" {
				p.id = x.mintID(p.typ, "")
				p.raw = setID(p.raw, p.id)
			}
			if p.urn != "" {
				uuids[p.urn] = p.typ + "/" + p.id
			}
		}
		for _, p := range list {
			if p.del {
				x.del(p.typ, p.id)
				continue
			}
			x.put(p.typ, p.id, rewriteURNs(p.raw, uuids))
			n++
		}
		return nil
	})
	if err != nil {
		return 0, &LoadError{Location: assert.Location{File: file}, Err: err}
	}
	return n, nil
}

// unpack reads the entries of a Bundle that is stored entry by entry.
func unpack(file string, data []byte, doc gjson.Result) ([]pending, error) {
	var list []pending
	var err error
	i := -1
	doc.Get("entry").ForEach(func(_, e gjson.Result) bool {
		i++
		ptr := "/entry/" + strconv.Itoa(i)
		res := e.Get("resource")
		method := e.Get("request.method").Str
		if method == "DELETE" {
			t, id, ok := parseReference(e.Get("request.url").Str)
			if !ok {
				err = &LoadError{Location: at(data, file, ptr+"/request/url", e.Get("request.url").Index), Err: errors.New("a DELETE entry needs a Type/id url")}
				return false
			}
			list = append(list, pending{typ: t, id: id, del: true})
			return true
		}
		if !res.Exists() {
			return true
		}
		var p pending
		if p, err = parseResource(res, func() assert.Location { return at(data, file, ptr+"/resource", res.Index) }); err != nil {
			return false
		}
		fu := e.Get("fullUrl").Str
		if p.id == "" {
			if t, id, ok := parseReference(e.Get("request.url").Str); ok && t == p.typ && method == "PUT" {
				p.id = id
			} else if strings.HasPrefix(fu, "urn:uuid:") && validID(fu[9:]) {
				p.id = fu[9:]
			}
			if p.id != "" {
				p.raw = setID(p.raw, p.id)
			}
		}
		if strings.HasPrefix(fu, "urn:") {
			p.urn = fu
		}
		list = append(list, p)
		return true
	})
	return list, err
}

// parseResource checks one resource: an object with a resourceType and,
// if it has one, a valid id. loc locates it, computed only for an error
// (a line and column cost a pass over the file).
func parseResource(res gjson.Result, loc func() assert.Location) (pending, error) {
	fail := func(err error) (pending, error) { return pending{}, &LoadError{Location: loc(), Err: err} }
	if !res.IsObject() {
		return fail(errors.New("a resource must be a JSON object"))
	}
	rt := res.Get("resourceType")
	if rt.Type != gjson.String || !validType(rt.Str) {
		return fail(errors.New("no resourceType (a resource needs \"resourceType\": \"Patient\" or the like)"))
	}
	p := pending{typ: rt.Str, raw: res.Raw}
	if id := res.Get("id"); id.Exists() {
		if id.Type != gjson.String || !validID(id.Str) {
			return fail(fmt.Errorf("bad id %s (1 to 64 letters, digits, '-' and '.')", id.Raw))
		}
		p.id = id.Str
	}
	return p, nil
}

// at locates the value at byte offset off of data (0: unknown).
func at(data []byte, file, ptr string, off int) assert.Location {
	loc := assert.Location{File: file, Pointer: ptr}
	if off > 0 {
		loc.Line, loc.Column = assert.LineColumn(data, off)
	}
	return loc
}

func validType(t string) bool {
	if t == "" || t[0] < 'A' || t[0] > 'Z' {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// validID reports whether id is a FHIR id: 1 to 64 letters, digits, '-'
// and '.' (digits alone included).
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// setID puts "id" first in the resource object raw (which has none).
func setID(raw, id string) string {
	i := strings.IndexByte(raw, '{')
	sep := ","
	if strings.TrimSpace(raw[i+1:]) == "}" {
		sep = ""
	}
	return raw[:i+1] + `"id":` + strconv.Quote(id) + sep + raw[i+1:]
}

// withID returns raw with its id set to id.
func withID(raw, id string) string {
	v := gjson.Get(raw, "id")
	if !v.Exists() {
		return setID(raw, id)
	}
	return raw[:v.Index] + strconv.Quote(id) + raw[v.Index+len(v.Raw):]
}

// rewriteURNs replaces the JSON strings of raw that equal a fullUrl of
// urns (urn:uuid:..., urn:oid:...) by the Type/id it names, in one pass.
func rewriteURNs(raw string, urns map[string]string) string {
	if len(urns) == 0 || !strings.Contains(raw, `"urn:`) {
		return raw
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(raw) {
			break
		}
		if ref, ok := urns[raw[i+1:j]]; ok && strings.HasPrefix(raw[i+1:j], "urn:") {
			b.WriteString(raw[last:i])
			b.WriteString(strconv.Quote(ref))
			last = j + 1
		}
		i = j
	}
	if last == 0 {
		return raw
	}
	b.WriteString(raw[last:])
	return b.String()
}

// setMeta writes meta.versionId and, when stamp is not empty,
// meta.lastUpdated into raw, keeping every other byte.
func setMeta(raw, version, stamp string) string {
	meta := gjson.Get(raw, "meta")
	var b bytes.Buffer
	members := `"versionId":` + strconv.Quote(version)
	if stamp != "" {
		members += `,"lastUpdated":` + strconv.Quote(stamp)
	}
	if !meta.IsObject() {
		if meta.Exists() {
			return raw // a malformed meta stays as written
		}
		i := strings.IndexByte(raw, '{')
		sep := ","
		if strings.TrimSpace(raw[i+1:]) == "}" {
			sep = ""
		}
		return raw[:i+1] + `"meta":{` + members + `}` + sep + raw[i+1:]
	}
	// Rebuild meta with the new members first and the others after.
	b.WriteByte('{')
	b.WriteString(members)
	meta.ForEach(func(k, v gjson.Result) bool {
		if k.Str == "versionId" || (stamp != "" && k.Str == "lastUpdated") {
			return true
		}
		b.WriteByte(',')
		b.WriteString(k.Raw)
		b.WriteByte(':')
		b.WriteString(v.Raw)
		return true
	})
	b.WriteByte('}')
	return raw[:meta.Index] + b.String() + raw[meta.Index+len(meta.Raw):]
}

func (e *entry) resource() Resource {
	return Resource{Type: e.typ, ID: e.id, Version: e.version, JSON: json.RawMessage(e.raw)}
}

// lookup finds typ/id's table, and the layer and position that hold it;
// ok is false when the store never held it.
func (s *Store) lookup(typ, id string) (*typeTable, *layer, int32, bool) {
	t := s.types[typ]
	if t == nil {
		return nil, nil, 0, false
	}
	l, pos, ok := t.find(id)
	return t, l, pos, ok
}

// Read returns the current version of typ/id. A resource the store never
// held is ErrNotFound; a deleted one is ErrGone.
func (s *Store) Read(typ, id string) (Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, err := s.readLocked(typ, id)
	if err != nil {
		return Resource{}, err
	}
	return e.resource(), nil
}

func (s *Store) readLocked(typ, id string) (*entry, error) {
	_, l, pos, ok := s.lookup(typ, id)
	if !ok {
		return nil, fmt.Errorf("%s/%s: %w", typ, id, ErrNotFound)
	}
	if e := l.entries[pos]; !e.deleted {
		return e, nil
	}
	return nil, fmt.Errorf("%s/%s: %w", typ, id, ErrGone)
}

// VRead returns version vid of typ/id. A version that is a deletion, or
// that the version bound dropped, is ErrGone.
func (s *Store) VRead(typ, id, vid string) (Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, err := s.vreadLocked(typ, id, vid)
	if err != nil {
		return Resource{}, err
	}
	return e.resource(), nil
}

func (s *Store) vreadLocked(typ, id, vid string) (*entry, error) {
	_, l, pos, ok := s.lookup(typ, id)
	if ok {
		h := l.hist[pos]
		for _, e := range h.list {
			if e.version == vid {
				if e.deleted {
					return nil, fmt.Errorf("%s/%s/_history/%s: %w", typ, id, vid, ErrGone)
				}
				return e, nil
			}
		}
		if h.dropped(vid) {
			return nil, fmt.Errorf("%s/%s/_history/%s: %w (only the last %d versions are kept)", typ, id, vid, ErrGone, s.cfg.maxVersions)
		}
	}
	return nil, fmt.Errorf("%s/%s/_history/%s: %w", typ, id, vid, ErrNotFound)
}

// History returns the kept versions of typ/id, newest first; a deletion is
// listed with nil JSON. A resource the store never held is ErrNotFound.
func (s *Store) History(typ, id string) ([]Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	list, _, err := s.historyLocked(typ, id)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, len(list))
	for i, e := range list {
		out[i] = e.resource()
		if e.deleted {
			out[i].JSON = nil
		}
	}
	return out, nil
}

// historyLocked returns typ/id's kept versions, newest first, and whether
// the oldest of them is its first version (none was dropped).
func (s *Store) historyLocked(typ, id string) ([]*entry, bool, error) {
	_, l, pos, ok := s.lookup(typ, id)
	if !ok {
		return nil, false, fmt.Errorf("%s/%s: %w", typ, id, ErrNotFound)
	}
	h := l.hist[pos]
	out := make([]*entry, len(h.list))
	for i, e := range h.list {
		out[len(h.list)-1-i] = e
	}
	return out, h.count == len(h.list), nil
}

// Create stores body, a resource of type typ, under a new id (any id in
// body is replaced) and returns it as stored.
func (s *Store) Create(typ string, body []byte) (Resource, error) {
	o := &op{method: "POST", typ: typ}
	if err := s.do(o, body); err != nil {
		return Resource{}, err
	}
	return o.e.resource(), nil
}

// Update stores body as the next version of typ/id, creating it when
// missing (created reports which). The id in body, if any, must be id.
func (s *Store) Update(typ, id string, body []byte) (res Resource, created bool, err error) {
	o := &op{method: "PUT", typ: typ, id: id}
	if err := s.do(o, body); err != nil {
		return Resource{}, false, err
	}
	return o.e.resource(), o.status == 201, nil
}

// Delete deletes typ/id; deleting what is not there is ErrNotFound.
func (s *Store) Delete(typ, id string) error {
	return s.do(&op{method: "DELETE", typ: typ, id: id}, nil)
}

// Search runs an R4 search and returns every match (paging parameters
// _count and _offset do not cut the list; the handler pages it). It makes
// the store a Source. What _include and _revinclude add is not returned:
// a Source's results are the matches. _summary and _elements shape the
// resources as the handler does (_summary=count returns none, as a
// server's count-only searchset holds no entries). Absolute references
// are compared as written: the store on its own has no base URL.
func (s *Store) Search(ctx context.Context, typ string, params url.Values) ([]Resource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := s.search(typ, params)
	if err != nil {
		return nil, err
	}
	if r.q.summary == "count" {
		return []Resource{}, nil
	}
	out := make([]Resource, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.resource()
		if raw := r.q.shape(e); raw != e.raw {
			out[i].JSON = json.RawMessage(raw)
		}
	}
	return out, nil
}

// WriteBundle writes every current resource of s (not the deleted ones)
// as a Bundle of type collection, by type then id in byte order, one
// entry a line: the sandbox snapshot's fhir/store.json. LoadJSON reads it
// back to the same resources, meta included.
func (s *Store) WriteBundle(w io.Writer) error {
	s.mu.RLock()
	names := make([]string, 0, len(s.types))
	for name := range s.types {
		names = append(names, name)
	}
	sort.Strings(names)
	var list []*entry
	for _, name := range names {
		start := len(list)
		s.types[name].each(func(e *entry) {
			if !e.deleted {
				list = append(list, e)
			}
		})
		part := list[start:]
		sort.Slice(part, func(i, j int) bool { return part[i].id < part[j].id })
	}
	s.mu.RUnlock()
	// Entries never change once stored: write them unlocked.
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"resourceType":"Bundle","type":"collection"`)
	entries := entryList{b: bw}
	for _, e := range list {
		entries.next()
		bw.WriteString("\n{\"resource\":")
		bw.WriteString(e.raw)
		bw.WriteByte('}')
	}
	if len(list) > 0 {
		bw.WriteByte('\n')
	}
	entries.close()
	bw.WriteString("}\n")
	return bw.Flush()
}
