package fhir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
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

// ErrGone is wrapped by the error of a read of a deleted resource.
var ErrGone = errors.New("resource deleted")

// entry is one stored version of a resource.
type entry struct {
	typ, id, version string
	lastUpdated      int64 // microseconds since 1970 UTC
	raw              string
	deleted          bool
}

// typeTable holds the current resources of one type.
type typeTable struct {
	name    string
	entries []*entry       // current version per position; deleted ones stay as tombstones
	byID    map[string]int // id -> position in entries
	live    int
	// columns are the indexed values of each parameter used so far, by
	// position; built on first use, kept up to date by writes.
	columns map[string][][]ival
	// tokenIx (code -> token code -> positions) and dateIx (code ->
	// positions sorted by the start of their ranges) narrow the candidates
	// of a search; built on first use, dropped by any write.
	tokenIx map[string]map[string][]int32
	dateIx  map[string][]datePos
}

type datePos struct {
	lo  int64
	pos int32
}

// invalidate drops the auxiliary indexes after a write.
func (t *typeTable) invalidate() {
	clear(t.tokenIx)
	clear(t.dateIx)
}

// Store is an in-memory FHIR R4 store: any resource type is stored and
// readable, and searches follow the R4 rules for the parameters of the
// official definitions (see the package documentation). It is safe for
// concurrent use, and it is a Source.
type Store struct {
	mu      sync.RWMutex
	types   map[string]*typeTable
	history map[string][]*entry // Type/id -> versions, oldest first
	now     func() time.Time
	nextID  int64
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{types: map[string]*typeTable{}, history: map[string][]*entry{}, now: time.Now}
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

// LoadJSON loads one resource or Bundle. Bundles of type collection,
// transaction, batch, searchset and history are unpacked (a transaction's
// urn:uuid references become Type/id references); any other Bundle is
// stored as a resource. It returns how many resources it stored; on error
// nothing is stored.
func (s *Store) LoadJSON(data []byte) (int, error) { return s.load("", data) }

// LoadFS loads every *.json file of fsys's root folder (not its
// subfolders), in name order, each read through check.ReadFile with the
// cap maxFileSize (<= 0: check.DefaultMaxFileSize). The first file that
// cannot be read or loaded stops it with an error naming the file.
func (s *Store) LoadFS(fsys fs.FS, maxFileSize int64) (int, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return 0, err
	}
	sort.Strings(names)
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
}

func (s *Store) load(file string, data []byte) (int, error) {
	fail := func(ptr string, err error) (int, error) {
		return 0, &LoadError{Location: assert.Location{File: file, Pointer: ptr}, Err: err}
	}
	if !gjson.ValidBytes(data) {
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
		return 0, le
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsObject() {
		return fail("", errors.New("not a JSON object (a resource or Bundle)"))
	}
	var list []pending
	rt := doc.Get("resourceType")
	switch bt := doc.Get("type").Str; {
	case rt.Str == "Bundle" && (bt == "collection" || bt == "transaction" || bt == "batch" || bt == "searchset" || bt == "history" || bt == "transaction-response" || bt == "batch-response"):
		uuids := map[string]string{}
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
			if p, err = s.parse(res, func() assert.Location { return at(data, file, ptr+"/resource", res.Index) }); err != nil {
				return false
			}
			if p.id == "" {
				if t, id, ok := parseReference(e.Get("request.url").Str); ok && t == p.typ && method == "PUT" {
					p.id = id
				} else if fu := e.Get("fullUrl").Str; strings.HasPrefix(fu, "urn:uuid:") && validID(fu[9:]) {
					p.id = fu[9:]
				} else {
					p.id = s.newID()
				}
				p.raw = setID(p.raw, p.id)
			}
			if fu := e.Get("fullUrl").Str; strings.HasPrefix(fu, "urn:") {
				uuids[fu] = p.typ + "/" + p.id
			}
			list = append(list, p)
			return true
		})
		if err != nil {
			return 0, err
		}
		if len(uuids) > 0 {
			for i := range list {
				list[i].raw = rewriteURNs(list[i].raw, uuids)
			}
		}
	default:
		p, err := s.parse(doc, func() assert.Location { return assert.Location{File: file} })
		if err != nil {
			return 0, err
		}
		if p.id == "" {
			p.id = s.newID()
			p.raw = setID(p.raw, p.id)
		}
		list = append(list, p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range list {
		if p.del {
			s.deleteLocked(p.typ, p.id)
			continue
		}
		s.putLocked(p.typ, p.id, p.raw, true)
		n++
	}
	return n, nil
}

// parse checks one resource: an object with a resourceType and, if it has
// one, a valid id.
// parse checks one resource; loc locates it, computed only for an error
// (a line and column cost a pass over the file).
func (s *Store) parse(res gjson.Result, loc func() assert.Location) (pending, error) {
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

func (s *Store) newID() string {
	s.mu.Lock()
	s.nextID++
	n := s.nextID
	s.mu.Unlock()
	return "assay-" + strconv.FormatInt(n, 10)
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

// rewriteURNs replaces "urn:uuid:..." strings that name resources of the
// same Bundle by their Type/id.
func rewriteURNs(raw string, urns map[string]string) string {
	if !strings.Contains(raw, `"urn:`) {
		return raw
	}
	for urn, ref := range urns {
		raw = strings.ReplaceAll(raw, strconv.Quote(urn), strconv.Quote(ref))
	}
	return raw
}

// putLocked stores raw as the next version of typ/id, filling meta.versionId
// and, when missing (or always, keepMeta false), meta.lastUpdated.
func (s *Store) putLocked(typ, id, raw string, keepMeta bool) *entry {
	key := typ + "/" + id
	versions := s.history[key]
	version := nextVersion(versions)
	now := s.now().UTC()
	lu := gjson.Get(raw, "meta.lastUpdated")
	var luMicro int64
	if keepMeta && lu.Type == gjson.String {
		if lo, _, err := parseDateRange(lu.Str); err == nil {
			luMicro = lo
		}
	}
	stamp := ""
	if luMicro == 0 {
		stamp = now.Format("2006-01-02T15:04:05.000Z07:00")
		luMicro = now.UnixMicro()
	}
	if v := gjson.Get(raw, "meta.versionId"); keepMeta && v.Type == gjson.String && v.Str != "" && len(versions) == 0 {
		version = v.Str
	}
	raw = setMeta(raw, version, stamp)
	e := &entry{typ: typ, id: id, version: version, lastUpdated: luMicro, raw: raw}
	s.history[key] = append(versions, e)
	t := s.table(typ)
	t.invalidate()
	if pos, ok := t.byID[id]; ok {
		if t.entries[pos].deleted {
			t.live++
		}
		t.entries[pos] = e
		for code, col := range t.columns {
			col[pos] = t.values(code, e)
		}
	} else {
		t.byID[id] = len(t.entries)
		t.entries = append(t.entries, e)
		t.live++
		for code, col := range t.columns {
			t.columns[code] = append(col, t.values(code, e))
		}
	}
	return e
}

// nextVersion follows the last version: one more than it when it is a
// number (a loaded versionId 7 is followed by 8), else one more than the
// number of versions.
func nextVersion(versions []*entry) string {
	if len(versions) == 0 {
		return "1"
	}
	if n, err := strconv.Atoi(versions[len(versions)-1].version); err == nil && n >= len(versions) {
		return strconv.Itoa(n + 1)
	}
	return strconv.Itoa(len(versions) + 1)
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

func (s *Store) table(typ string) *typeTable {
	t := s.types[typ]
	if t == nil {
		t = &typeTable{name: typ, byID: map[string]int{}, columns: map[string][][]ival{},
			tokenIx: map[string]map[string][]int32{}, dateIx: map[string][]datePos{}}
		s.types[typ] = t
	}
	return t
}

func (s *Store) deleteLocked(typ, id string) bool {
	t := s.types[typ]
	if t == nil {
		return false
	}
	pos, ok := t.byID[id]
	if !ok || t.entries[pos].deleted {
		return false
	}
	key := typ + "/" + id
	e := &entry{typ: typ, id: id, version: nextVersion(s.history[key]), lastUpdated: s.now().UnixMicro(), deleted: true}
	s.history[key] = append(s.history[key], e)
	t.entries[pos] = e
	t.live--
	t.invalidate()
	for _, col := range t.columns {
		col[pos] = nil
	}
	return true
}

func (e *entry) resource() Resource {
	return Resource{Type: e.typ, ID: e.id, Version: e.version, JSON: json.RawMessage(e.raw)}
}

// Read returns the current version of typ/id. A resource the store never
// held is ErrNotFound; a deleted one is ErrGone.
func (s *Store) Read(typ, id string) (Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	versions := s.history[typ+"/"+id]
	if len(versions) == 0 {
		return Resource{}, fmt.Errorf("%s/%s: %w", typ, id, ErrNotFound)
	}
	e := versions[len(versions)-1]
	if e.deleted {
		return Resource{}, fmt.Errorf("%s/%s: %w", typ, id, ErrGone)
	}
	return e.resource(), nil
}

// VRead returns version vid of typ/id.
func (s *Store) VRead(typ, id, vid string) (Resource, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.history[typ+"/"+id] {
		if e.version == vid {
			if e.deleted {
				return Resource{}, fmt.Errorf("%s/%s/_history/%s: %w", typ, id, vid, ErrGone)
			}
			return e.resource(), nil
		}
	}
	return Resource{}, fmt.Errorf("%s/%s/_history/%s: %w", typ, id, vid, ErrNotFound)
}

// Create stores body, a resource of type typ, under a new id (any id in
// body is replaced) and returns it as stored.
func (s *Store) Create(typ string, body []byte) (Resource, error) {
	p, err := s.checkBody(typ, body)
	if err != nil {
		return Resource{}, err
	}
	id := s.newID()
	raw := p.raw
	if p.id != "" {
		raw = replaceID(raw, id)
	} else {
		raw = setID(raw, id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.putLocked(typ, id, raw, false).resource(), nil
}

// Update stores body as the next version of typ/id, creating it when
// missing (created reports which). The id in body, if any, must be id.
func (s *Store) Update(typ, id string, body []byte) (res Resource, created bool, err error) {
	if !validID(id) {
		return Resource{}, false, &LoadError{Err: fmt.Errorf("bad id %q in the URL", id)}
	}
	p, err := s.checkBody(typ, body)
	if err != nil {
		return Resource{}, false, err
	}
	raw := p.raw
	switch {
	case p.id == "":
		raw = setID(raw, id)
	case p.id != id:
		return Resource{}, false, &LoadError{Location: assert.Location{Pointer: "/id"}, Err: fmt.Errorf("the body's id %q is not the URL's %q", p.id, id)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.types[typ]
	created = true
	if t != nil {
		if pos, ok := t.byID[id]; ok && !t.entries[pos].deleted {
			created = false
		}
	}
	return s.putLocked(typ, id, raw, false).resource(), created, nil
}

// Delete deletes typ/id; deleting what is not there is ErrNotFound.
func (s *Store) Delete(typ, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.deleteLocked(typ, id) {
		return fmt.Errorf("%s/%s: %w", typ, id, ErrNotFound)
	}
	return nil
}

func (s *Store) checkBody(typ string, body []byte) (pending, error) {
	if !gjson.ValidBytes(body) {
		return pending{}, &LoadError{Err: errors.New("the body is not JSON")}
	}
	p, err := s.parse(gjson.ParseBytes(body), func() assert.Location { return assert.Location{} })
	if err != nil {
		return p, err
	}
	if p.typ != typ {
		return p, &LoadError{Location: assert.Location{Pointer: "/resourceType"}, Err: fmt.Errorf("resourceType %q is not the URL's %q", p.typ, typ)}
	}
	return p, nil
}

func replaceID(raw, id string) string {
	v := gjson.Get(raw, "id")
	return raw[:v.Index] + strconv.Quote(id) + raw[v.Index+len(v.Raw):]
}

// Search runs an R4 search and returns every match (paging parameters
// _count and _offset do not cut the list; the handler pages it). It makes
// the store a Source.
func (s *Store) Search(ctx context.Context, typ string, params url.Values) ([]Resource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := s.search(typ, params)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.resource()
	}
	return out, nil
}

// values computes an entry's indexed values for one parameter.
func (t *typeTable) values(code string, e *entry) []ival {
	if e.deleted {
		return nil
	}
	p := lookupParam(t.name, code)
	if p == nil || p.expr == nil {
		return nil
	}
	res := gjson.Parse(e.raw)
	var out []ival
	for _, v := range p.expr.eval(res) {
		out = extract(p.Type, v, out)
	}
	return out
}
