package fhir

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
)

// checkStore verifies what a store keeps true between writes: positions,
// ids and histories agree in every layer, an own layer's positions map to
// the table's (its base positions shadowed), the live count and the byte
// counts are those of the entries, every version is valid JSON naming its
// id and version, no history is over the bound, every built column holds
// what the resource at its position yields, and every key and date index
// lists every position under its current values. Fuzz targets use it as
// their oracle.
func checkStore(s *Store) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var all, current int64
	for name, t := range s.types {
		if t.name != name {
			return fmt.Errorf("table %s is named %s", name, t.name)
		}
		layers := []*layer{t.own}
		if t.base != nil {
			layers = append(layers, t.base)
			if len(t.gpos) != len(t.own.entries) {
				return fmt.Errorf("%s: %d table positions for %d own entries", name, len(t.gpos), len(t.own.entries))
			}
			shadowed := 0
			for pos := range t.base.entries {
				if t.shadowed(int32(pos)) {
					shadowed++
				}
			}
			inBase := 0
			for pos, e := range t.own.entries {
				bp, ok := t.base.byID[e.id]
				switch {
				case ok && (t.gpos[pos] != bp || !t.shadowed(bp)):
					return fmt.Errorf("%s/%s: own position %d maps to %d, base %d (shadowed %v)", name, e.id, pos, t.gpos[pos], bp, t.shadowed(bp))
				case ok:
					inBase++
				case t.gpos[pos] < int32(len(t.base.entries)) || t.gpos[pos] >= t.nextG:
					return fmt.Errorf("%s/%s: a new resource at table position %d (base %d, next %d)", name, e.id, t.gpos[pos], len(t.base.entries), t.nextG)
				}
			}
			if shadowed != inBase {
				return fmt.Errorf("%s: %d base positions shadowed, %d own resources from the base", name, shadowed, inBase)
			}
		}
		for _, l := range layers {
			if err := checkLayer(l); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		live := 0
		var err error
		t.each(func(e *entry) {
			l, pos, ok := t.find(e.id)
			if !ok || l.entries[pos] != e {
				err = fmt.Errorf("%s/%s: find gives another entry", name, e.id)
			}
			h := l.hist[pos]
			if len(h.list) == 0 || h.list[len(h.list)-1] != e || len(h.list) > s.cfg.maxVersions || h.count < len(h.list) {
				err = fmt.Errorf("%s/%s: history of %d (count %d) does not end with the current version", name, e.id, len(h.list), h.count)
			}
			for _, v := range h.list {
				all += int64(len(v.raw))
				if v.typ != name || v.id != e.id {
					err = fmt.Errorf("%s/%s: a version of %s/%s in its history", name, e.id, v.typ, v.id)
				}
				if v.deleted {
					continue
				}
				if !gjson.Valid(v.raw) || gjson.Get(v.raw, "id").Str != v.id || gjson.Get(v.raw, "resourceType").Str != name {
					err = fmt.Errorf("%s/%s version %s: bad JSON %.200s", name, e.id, v.version, v.raw)
				}
				if m := gjson.Get(v.raw, "meta"); m.IsObject() && m.Get("versionId").Str != v.version {
					err = fmt.Errorf("%s/%s version %s: meta.versionId %s", name, e.id, v.version, m.Get("versionId").Raw)
				}
			}
			if !e.deleted {
				live++
				current += int64(len(e.raw))
			}
		})
		if err != nil {
			return err
		}
		if live != t.live {
			return fmt.Errorf("%s: %d live, counted %d", name, live, t.live)
		}
	}
	if all != s.bytes || current != s.current {
		return fmt.Errorf("bytes: counted %d and %d, the store says %d and %d", all, current, s.bytes, s.current)
	}
	return nil
}

// checkLayer verifies one layer: positions, ids and histories agree, and
// its columns and indexes are current.
func checkLayer(l *layer) error {
	if len(l.entries) != len(l.hist) || len(l.byID) != len(l.entries) {
		return fmt.Errorf("%d entries, %d histories, %d ids", len(l.entries), len(l.hist), len(l.byID))
	}
	for pos, e := range l.entries {
		if p, ok := l.byID[e.id]; !ok || int(p) != pos {
			return fmt.Errorf("%s at %d: byID says %d", e.id, pos, p)
		}
	}
	l.ix.mu.RLock()
	defer l.ix.mu.RUnlock()
	for code, col := range l.ix.columns {
		if len(col) != len(l.entries) {
			return fmt.Errorf("column %s of %d for %d entries", code, len(col), len(l.entries))
		}
		k, d := l.ix.keys[code], l.ix.dates[code]
		for pos, e := range l.entries {
			if !slices.Equal(col[pos], l.values(code, e)) {
				return fmt.Errorf("%s: column %s is stale", e.id, code)
			}
			for _, v := range col[pos] {
				if k != nil && !slices.Contains(k.m[indexKey(k.typ, k.fold, v)], int32(pos)) {
					return fmt.Errorf("%s: the key index of %s does not list it under %q", e.id, code, indexKey(k.typ, k.fold, v))
				}
				if d != nil && !slices.Contains(d.sorted, datePos{v.lo, int32(pos)}) && !slices.Contains(d.tail, datePos{v.lo, int32(pos)}) {
					return fmt.Errorf("%s: the date index of %s does not list it", e.id, code)
				}
			}
		}
	}
	return nil
}
