package x12sim

import (
	"strings"
	"time"

	"github.com/assaykit/assay/x12"
)

// request is the one transaction set of a request, read as a tree of HL
// levels.
type request struct {
	x     *x12.Interchange
	d     x12.Delimiters
	tx    x12.Transaction
	bht   x12.Segment
	hasBT bool
	roots []*node
	all   []*node // in file order (a pre-order walk of the tree)
}

// node is one HL level of the request: its HL and the segments after it,
// up to the next HL.
type node struct {
	hl                x12.Segment
	id, parent, level string
	segs              []x12.Segment
	kids              []*node
	out               int // its HL01 in the answer
}

// readRequest reads the transaction set tx of x.
func readRequest(x *x12.Interchange, tx x12.Transaction) *request {
	r := &request{x: x, d: x.Delimiters(), tx: tx}
	byID := map[string]*node{}
	var cur *node
	for i := tx.Start + 1; i < tx.End; i++ {
		s := x.Segment(i)
		switch s.ID() {
		case "HL":
			n := &node{hl: s, id: el(s, 1), parent: el(s, 2), level: el(s, 3)}
			if p := byID[n.parent]; p != nil && n.parent != "" {
				p.kids = append(p.kids, n)
			} else {
				r.roots = append(r.roots, n)
			}
			if _, dup := byID[n.id]; !dup {
				byID[n.id] = n
			}
			r.all = append(r.all, n)
			cur = n
		case "BHT":
			if cur == nil && !r.hasBT {
				r.bht, r.hasBT = s, true
			}
		default:
			if cur != nil {
				cur.segs = append(cur.segs, s)
			}
		}
	}
	return r
}

// el returns element n of s as written ("" when absent).
func el(s x12.Segment, n int) string {
	v, _ := s.Element(n)
	return v
}

// pieces splits element n of s at sep (none: the element whole).
func pieces(s x12.Segment, n int, sep byte) []string {
	v := el(s, n)
	if sep == 0 {
		return []string{v}
	}
	return strings.Split(v, string(sep))
}

// component returns component c (1-based) of element n of s.
func (r *request) component(s x12.Segment, n, c int) string {
	p := pieces(s, n, r.d.Component)
	if c > len(p) {
		return ""
	}
	return p[c-1]
}

// repetitions returns the repetitions of element n of s. When ISA11
// equals ISA16 the pieces are read as repetitions.
func (r *request) repetitions(s x12.Segment, n int) []string {
	return pieces(s, n, r.d.Repetition)
}

// find returns the first of segs with id whose element 01 is qual (any,
// when qual is "").
func find(segs []x12.Segment, id, qual string) (x12.Segment, bool) {
	for _, s := range segs {
		if s.ID() == id && (qual == "" || el(s, 1) == qual) {
			return s, true
		}
	}
	return x12.Segment{}, false
}

// findAll returns every segment of segs with id.
func findAll(segs []x12.Segment, id string) []x12.Segment {
	var out []x12.Segment
	for _, s := range segs {
		if s.ID() == id {
			out = append(out, s)
		}
	}
	return out
}

// echo copies request segment s into the answer, element by element,
// splitting repetitions and components so that they are written with the
// answer's delimiters. When ISA11 equals ISA16 the pieces are read as
// components.
func (r *request) echo(s x12.Segment) seg {
	out := seg{id: s.ID()}
	composite := false
	for n := 1; ; n++ {
		v, ok := s.Element(n)
		if !ok {
			break
		}
		out.vals = append(out.vals, v)
		composite = composite || strings.IndexByte(v, r.d.Component) >= 0 || r.d.Repetition != 0 && strings.IndexByte(v, r.d.Repetition) >= 0
	}
	if composite {
		out.elems = make([]x12.Element, len(out.vals))
		for i, v := range out.vals {
			out.elems[i] = r.element(v)
		}
		out.vals = nil
	}
	return out
}

// element splits a request's element into repetitions and components.
func (r *request) element(v string) x12.Element {
	reps := []string{v}
	if r.d.Repetition != 0 && r.d.Repetition != r.d.Component {
		reps = strings.Split(v, string(r.d.Repetition))
	}
	e := make(x12.Element, len(reps))
	for i, rep := range reps {
		e[i] = strings.Split(rep, string(r.d.Component))
	}
	return e
}

// date reads a DTP's date (D8 CCYYMMDD, or the start of an RD8 range) as
// YYYY-MM-DD; ok is false when it cannot be read.
func date(s x12.Segment) (string, bool) {
	format, v := el(s, 2), el(s, 3)
	if format == "RD8" {
		v, _, _ = strings.Cut(v, "-")
	} else if format != "D8" {
		return "", false
	}
	t, err := time.Parse("20060102", v)
	if err != nil {
		return "", false
	}
	return t.Format("2006-01-02"), true
}

// x12Date writes a YYYY-MM-DD date as CCYYMMDD.
func x12Date(d string) string { return strings.ReplaceAll(d, "-", "") }
