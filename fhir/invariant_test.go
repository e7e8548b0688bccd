package fhir

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
)

// checkStore verifies what a store keeps true between writes: positions,
// ids and histories agree, the live count and the byte counts are those of
// the entries, every version is valid JSON naming its id and version, no
// history is over the bound, and every built column holds what the
// resource at its position yields. Fuzz targets use it as their oracle.
func checkStore(s *Store) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var all, current int64
	for name, t := range s.types {
		if t.name != name {
			return fmt.Errorf("table %s is named %s", name, t.name)
		}
		if len(t.entries) != len(t.hist) || len(t.byID) != len(t.entries) {
			return fmt.Errorf("%s: %d entries, %d histories, %d ids", name, len(t.entries), len(t.hist), len(t.byID))
		}
		live := 0
		for pos, e := range t.entries {
			if p, ok := t.byID[e.id]; !ok || p != pos {
				return fmt.Errorf("%s/%s at %d: byID says %d", name, e.id, pos, p)
			}
			h := t.hist[pos]
			if len(h.list) == 0 || h.list[len(h.list)-1] != e || len(h.list) > s.cfg.maxVersions || h.count < len(h.list) {
				return fmt.Errorf("%s/%s: history of %d (count %d) does not end with the current version", name, e.id, len(h.list), h.count)
			}
			for _, v := range h.list {
				all += int64(len(v.raw))
				if v.typ != name || v.id != e.id {
					return fmt.Errorf("%s/%s: a version of %s/%s in its history", name, e.id, v.typ, v.id)
				}
				if v.deleted {
					continue
				}
				if !gjson.Valid(v.raw) || gjson.Get(v.raw, "id").Str != v.id || gjson.Get(v.raw, "resourceType").Str != name {
					return fmt.Errorf("%s/%s version %s: bad JSON %.200s", name, e.id, v.version, v.raw)
				}
				if m := gjson.Get(v.raw, "meta"); m.IsObject() && m.Get("versionId").Str != v.version {
					return fmt.Errorf("%s/%s version %s: meta.versionId %s", name, e.id, v.version, m.Get("versionId").Raw)
				}
			}
			if !e.deleted {
				live++
				current += int64(len(e.raw))
			}
		}
		if live != t.live {
			return fmt.Errorf("%s: %d live, counted %d", name, live, t.live)
		}
		t.ix.mu.RLock()
		for code, col := range t.ix.columns {
			if len(col) != len(t.entries) {
				t.ix.mu.RUnlock()
				return fmt.Errorf("%s: column %s of %d for %d entries", name, code, len(col), len(t.entries))
			}
			for pos, e := range t.entries {
				if !slices.Equal(col[pos], t.values(code, e)) {
					t.ix.mu.RUnlock()
					return fmt.Errorf("%s/%s: column %s is stale", name, e.id, code)
				}
			}
		}
		t.ix.mu.RUnlock()
	}
	if all != s.bytes || current != s.current {
		return fmt.Errorf("bytes: counted %d and %d, the store says %d and %d", all, current, s.bytes, s.current)
	}
	return nil
}
