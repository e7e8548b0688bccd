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

// table returns typ's table for writing: made if missing, forked first
// if shared (see typeTable).
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
		c, cost := t.fork()
		s.types[typ] = c
		x.copied += cost
		x.undo = append(x.undo, func() { s.types[typ] = t })
		return c
	}
	return t
}

// taken reports whether the store ever held typ/id (a deleted one too).
func (x *txn) taken(typ, id string) bool {
	_, _, _, ok := x.s.lookup(typ, id)
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
	var h history
	if l, pos, exists := t.find(id); exists {
		h = l.hist[pos]
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
	x.set(t, e, h)
	return e
}

// del deletes typ/id, reporting false when it is not there.
func (x *txn) del(typ, id string) bool {
	s := x.s
	_, l, pos, ok := s.lookup(typ, id)
	if !ok || l.entries[pos].deleted {
		return false
	}
	h := l.hist[pos]
	e := &entry{typ: typ, id: id, version: h.next(), lastUpdated: s.cfg.now().UnixMicro(), deleted: true}
	x.set(x.table(typ), e, h)
	return true
}

// set makes e the current version of its resource in t, h being its
// history so far, and counts the bytes. A resource of t's own layer
// changes in place; one of its base moves to the own layer, its base
// position shadowed; a new one is appended to the own layer.
func (x *txn) set(t *typeTable, e *entry, h history) {
	s := x.s
	nh, freed := h.add(e, s.cfg.maxVersions)
	s.bytes += int64(len(e.raw)) - freed
	if !e.deleted {
		s.current += int64(len(e.raw))
	}
	live := t.live
	l, pos, exists := t.find(e.id)
	if exists && !l.entries[pos].deleted {
		s.current -= int64(len(l.entries[pos].raw))
		t.live--
	}
	if !e.deleted {
		t.live++
	}
	own := t.own
	if exists && l == own {
		old, oldH := own.entries[pos], own.hist[pos]
		x.undo = append(x.undo, func() {
			own.entries[pos], own.hist[pos], t.live = old, oldH, live
			own.index(pos, old)
		})
		own.entries[pos], own.hist[pos] = e, nh
		own.index(pos, e)
		return
	}
	// A new position of the own layer: the resource's base position, or
	// the table's next.
	n := len(own.entries)
	g, nextG := int32(n), t.nextG
	if t.base != nil {
		if exists {
			g = pos
			t.setShadow(pos, true)
		} else {
			g = t.nextG
			t.nextG++
		}
		t.gpos = append(t.gpos, g)
	}
	x.undo = append(x.undo, func() {
		own.truncate(n)
		t.live, t.nextG = live, nextG
		if t.base != nil {
			t.gpos = t.gpos[:n]
			if exists {
				t.setShadow(g, false)
			}
		}
	})
	own.byID[e.id] = int32(n)
	own.entries = append(own.entries, e)
	own.hist = append(own.hist, nh)
	own.index(int32(n), e)
}

// amend replaces the JSON of typ/id's current version, which x wrote, by
// raw, keeping its version (a transaction resolving the conditional
// references of what it wrote). The put that wrote the version undoes
// this too.
func (x *txn) amend(typ, id, raw string) *entry {
	s := x.s
	_, l, pos, _ := s.lookup(typ, id)
	old := l.entries[pos]
	e := *old
	e.raw = raw
	l.entries[pos] = &e
	h := l.hist[pos]
	h.list[len(h.list)-1] = &e // a list of x's own making: put makes a new one
	l.index(pos, &e)
	d := int64(len(raw) - len(old.raw))
	s.bytes += d
	s.current += d
	return &e
}

// now is the store's clock.
func (s *Store) now() time.Time { return s.cfg.now() }
