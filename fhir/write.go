package fhir

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// txn is one all-or-nothing change of a store, made under its write lock:
// every change logs how to undo itself, so that a failure (a bad entry of
// a transaction, a bound passed) leaves the store as it was, and readers
// never see half of it.
type txn struct {
	s *Store
	// keepMeta keeps a written meta.lastUpdated (and a first
	// meta.versionId), as loading does; requests are stamped.
	keepMeta bool
	undo     []func()
	// The store's counters when the txn began.
	bytes, current, nextID int64
	// copied estimates the bytes of the tables copied on write.
	copied int64
}

// write runs fn as one txn under the store's write lock.
func (s *Store) write(keepMeta bool, fn func(x *txn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.begin(keepMeta)
	if err := fn(x); err != nil {
		x.rollback()
		return err
	}
	return x.commit()
}

// begin starts a txn; the caller holds the write lock.
func (s *Store) begin(keepMeta bool) *txn {
	return &txn{s: s, keepMeta: keepMeta, bytes: s.bytes, current: s.current, nextID: s.nextID}
}

// rollback undoes every change of x, newest first.
func (x *txn) rollback() {
	for i := len(x.undo) - 1; i >= 0; i-- {
		x.undo[i]()
	}
	x.undo = nil
	x.s.bytes, x.s.current, x.s.nextID = x.bytes, x.current, x.nextID
}

// commit checks the bounds and consults the Reserve hook; past a bound it
// rolls x back and returns a BoundError.
func (x *txn) commit() error {
	s := x.s
	grow := s.bytes - x.bytes
	var err error
	switch {
	case grow > 0 && s.bytes > s.cfg.maxBytes:
		err = &BoundError{Bound: "MaxBytes", Limit: s.cfg.maxBytes, Size: s.bytes}
	case s.current > x.current && s.cfg.maxCurrent > 0 && s.current > s.cfg.maxCurrent:
		err = &BoundError{Bound: "MaxCurrentBytes", Limit: s.cfg.maxCurrent, Size: s.current}
	case s.cfg.reserve != nil:
		if charge := grow + x.copied; charge > 0 {
			if rerr := s.cfg.reserve(charge); rerr != nil {
				err = &BoundError{Bound: "Reserve", Err: rerr}
			}
		} else if charge < 0 {
			s.cfg.reserve(charge)
		}
	}
	if err != nil {
		x.rollback()
		return err
	}
	x.undo = nil
	return nil
}

// table returns typ's table for writing: made if missing, copied first if
// shared.
func (x *txn) table(typ string) *typeTable {
	s := x.s
	t := s.types[typ]
	switch {
	case t == nil:
		c := newTable(typ)
		s.types[typ] = c
		x.undo = append(x.undo, func() { delete(s.types, typ) })
		return c
	case t.shared.Load():
		c, cost := t.copy()
		s.types[typ] = c
		x.copied += cost
		x.undo = append(x.undo, func() { s.types[typ] = t })
		return c
	}
	return t
}

// taken reports whether the store ever held typ/id (a deleted one too).
func (x *txn) taken(typ, id string) bool {
	_, _, ok := x.s.lookup(typ, id)
	return ok
}

// mintID returns an id for a new resource of typ: the uuid of a urn:uuid
// fullUrl when it is a valid id the store never held (so a Synthea
// bundle's resources keep their ids), else the next "assay-N" not taken.
func (x *txn) mintID(typ, fullURL string) string {
	if u, ok := strings.CutPrefix(fullURL, "urn:uuid:"); ok && validID(u) && !x.taken(typ, u) {
		return u
	}
	for {
		x.s.nextID++
		id := "assay-" + strconv.FormatInt(x.s.nextID, 10)
		if !x.taken(typ, id) {
			return id
		}
	}
}

// put stores raw, a resource of typ whose id is id, as the next version of
// typ/id, filling meta.versionId and meta.lastUpdated (a written one is
// kept when x keeps meta).
func (x *txn) put(typ, id, raw string) *entry {
	s := x.s
	t := x.table(typ)
	pos, exists := t.byID[id]
	var h history
	if exists {
		h = t.hist[pos]
	}
	version := h.next()
	var luMicro int64
	stamp := ""
	if lu := gjson.Get(raw, "meta.lastUpdated"); x.keepMeta && lu.Type == gjson.String {
		if lo, _, err := parseDateRange(lu.Str); err == nil {
			luMicro = lo
		}
	}
	if luMicro == 0 {
		now := s.cfg.now().UTC()
		stamp = now.Format("2006-01-02T15:04:05.000Z07:00")
		luMicro = now.UnixMicro()
	}
	if v := gjson.Get(raw, "meta.versionId"); x.keepMeta && v.Type == gjson.String && v.Str != "" && h.count == 0 {
		version = v.Str
	}
	raw = setMeta(raw, version, stamp)
	e := &entry{typ: typ, id: id, version: version, lastUpdated: luMicro, raw: raw}
	x.set(t, pos, exists, e, h)
	return e
}

// del deletes typ/id, reporting false when it is not there.
func (x *txn) del(typ, id string) bool {
	s := x.s
	t, pos, ok := s.lookup(typ, id)
	if !ok || t.entries[pos].deleted {
		return false
	}
	t = x.table(typ)
	h := t.hist[pos]
	e := &entry{typ: typ, id: id, version: h.next(), lastUpdated: s.cfg.now().UnixMicro(), deleted: true}
	x.set(t, pos, true, e, h)
	return true
}

// set makes e the current version of its resource at pos (a new position
// unless exists), h being its history so far, and counts the bytes.
func (x *txn) set(t *typeTable, pos int, exists bool, e *entry, h history) {
	s := x.s
	nh, freed := h.add(e, s.cfg.maxVersions)
	s.bytes += int64(len(e.raw)) - freed
	if !e.deleted {
		s.current += int64(len(e.raw))
	}
	t.invalidate()
	live := t.live
	if exists {
		old, oldH := t.entries[pos], t.hist[pos]
		if !old.deleted {
			s.current -= int64(len(old.raw))
			t.live--
		}
		x.undo = append(x.undo, func() {
			t.entries[pos], t.hist[pos], t.live = old, oldH, live
			for code, col := range t.ix.columns {
				col[pos] = t.values(code, old)
			}
			t.invalidate()
		})
		t.entries[pos], t.hist[pos] = e, nh
		for code, col := range t.ix.columns {
			col[pos] = t.values(code, e)
		}
	} else {
		n := len(t.entries)
		x.undo = append(x.undo, func() {
			t.entries, t.hist, t.live = t.entries[:n], t.hist[:n], live
			for code, col := range t.ix.columns {
				if len(col) > n {
					t.ix.columns[code] = col[:n]
				}
			}
			delete(t.byID, e.id)
			t.invalidate()
		})
		pos = n
		t.byID[e.id] = pos
		t.entries = append(t.entries, e)
		t.hist = append(t.hist, nh)
		for code, col := range t.ix.columns {
			t.ix.columns[code] = append(col, t.values(code, e))
		}
	}
	if !e.deleted {
		t.live++
	}
}

// amend replaces the JSON of typ/id's current version, which x wrote, by
// raw, keeping its version (a transaction resolving the conditional
// references of what it wrote). The put that wrote the version undoes
// this too.
func (x *txn) amend(typ, id, raw string) *entry {
	s := x.s
	t, pos, _ := s.lookup(typ, id)
	old := t.entries[pos]
	e := *old
	e.raw = raw
	t.entries[pos] = &e
	h := t.hist[pos]
	h.list[len(h.list)-1] = &e // a list of x's own making: put makes a new one
	for code, col := range t.ix.columns {
		col[pos] = t.values(code, &e)
	}
	t.invalidate()
	d := int64(len(raw) - len(old.raw))
	s.bytes += d
	s.current += d
	return &e
}

// now is the store's clock.
func (s *Store) now() time.Time { return s.cfg.now() }
