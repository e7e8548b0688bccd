package hl7

// Select reads every path from data as one sequence of segments (headers,
// every message, trailers), in one pass that keeps no segment table: the
// result is what Parse followed by Batch.Texts gives for each path (so
// MSH[2].10 is the second message's control id), and the error is Parse's.
// It is for reading a few paths from a large input once, as `assay hl7 get`
// does: besides the values it selects, it allocates nothing in proportion
// to the input. It copies nothing of data but the selected text.
//
// out[i] holds the texts paths[i] selects, in input order (nil when it
// selects nothing). Data may hold anything Parse accepts; an input that
// does not parse is a *ParseError and no values.
func Select(data []byte, paths ...Path) (out [][]string, err error) {
	if len(data) > maxInput {
		return nil, &ParseError{Err: ErrTooLarge}
	}
	out = make([][]string, len(paths))
	type want struct {
		i   int // position in paths
		id  uint32
		occ int // the occurrence wanted, Any for every one
		n   int // occurrences seen
	}
	wants := make([]want, 0, len(paths))
	for i := range paths {
		p := &paths[i]
		if !p.valid() || !validIDString(p.Segment) {
			continue
		}
		w := want{i: i, id: packID(p.Segment[0], p.Segment[1], p.Segment[2]), occ: p.Occurrence}
		if w.occ == 0 {
			w.occ = 1
		}
		wants = append(wants, w)
	}
	p := parser{data: data}
	p.visit = func(sg segment) {
		for k := range wants {
			w := &wants[k]
			if w.id != sg.id {
				continue
			}
			w.n++
			if w.occ != Any && w.n != w.occ {
				continue
			}
			selectIn(data[sg.start:sg.end], sg.d, header(sg.kind), &paths[w.i], func(v Value) bool {
				out[w.i] = append(out[w.i], v.String())
				return true
			})
		}
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	return out, nil
}
