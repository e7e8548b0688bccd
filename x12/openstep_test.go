package x12

import (
	"slices"
	"testing"
)

// TestOpenSteps checks the looked-up outcome of opener (openSteps) against
// the search it stands for: for every loop definition of every guide,
// open with its ancestors as the parse opens them, and every segment that
// opens loops, with each qualifier a guide lists and one none does,
// opener and search open the same loop in the same place and leave the
// same loops open.
func TestOpenSteps(t *testing.T) {
	parent := make([]uint16, len(loopDefs))
	for d := range kidsOf {
		for _, k := range kidsOf[d].kids[:kidsOf[d].n] {
			parent[k.def] = uint16(d)
		}
	}
	quals := []string{"ZZZ"}
	for _, d := range loopDefs[1:] {
		quals = append(quals, d.quals...)
	}
	checked := 0
	for d := range loopDefs {
		var chain []uint16 // d and its ancestors, outermost first
		for c := uint16(d); c != 0; c = parent[c] {
			chain = append([]uint16{c}, chain...)
		}
		if len(chain) > len(indexer{}.open) {
			t.Fatalf("loop %s nests %d deep", loopDefs[d].id, len(chain))
		}
		if d == 0 {
			chain = []uint16{0} // an HL level the guide does not name
		}
		for op, id := range loopSegs {
			seg := string([]byte{byte(id >> 16), byte(id >> 8), byte(id)})
			if id < 1<<16 {
				seg = seg[1:]
			}
			for _, q := range quals {
				data := seg + "*" + q + "*X"
				open := func() *indexer {
					x := &Interchange{data: data}
					ix := newIndexer(x, 4)
					ix.loops = make([]loop, 0, 16)
					ix.sep = '*'
					ix.ls = -1
					for k, def := range chain {
						p := int32(-1)
						if k > 0 {
							p = ix.open[k-1].inst
						}
						name := uint16(0)
						if def != 0 {
							name = loopDefs[def].name
						}
						inst := ix.newLoop(name, p, int32(k))
						ix.open[k] = openLoop{def: def, inst: inst}
					}
					ix.nopen = int32(len(chain))
					return ix
				}
				a, b := open(), open()
				la := a.opener(9, id, uint8(op), 0, len(data))
				lb := b.search(9, id, 0, len(data))
				if la != lb || a.nopen != b.nopen || a.open != b.open || !slices.Equal(a.loops, b.loops) || a.cur != b.cur {
					t.Fatalf("in %s, %q: opener gives loop %d, open %v, loops %v; search %d, %v, %v", loopDefs[max(d, 1)].id, data, la, a.open[:a.nopen], a.loops, lb, b.open[:b.nopen], b.loops)
				}
				checked++
			}
		}
	}
	if checked < len(loopDefs)*len(loopSegs) {
		t.Fatalf("checked %d cases", checked)
	}
}
