package x12

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/assaykit/assay/check"
)

// Path is a compiled X12 path, `[LOOP(OCC)/...]SEG[QUAL](OCC)NN[REP]-C`;
// SYNTAX.md describes the grammar with examples. The zero Path selects
// nothing. A Path is immutable and safe for concurrent use.
type Path struct {
	text    string
	loops   []loopRef
	seg     string
	qual    string
	hasQual bool
	occ     int  // 1-based segment occurrence; 0 is (*)
	elem    int  // 1-based element position
	rep     int  // 1-based repetition; 0 is [*]
	repSet  bool // the path names a repetition ([REP] or [*])
	comp    int  // 1-based component; 0 reads the whole element
}

type loopRef struct {
	id    string
	name  uint16 // the index of id in the guides' loopIDs
	known bool   // false: no guide has this loop, so it selects nothing
	occ   int    // 1-based; 0 is (*) or omitted: every instance
}

// PathError reports a path that does not follow the grammar: a
// *check.PathError whose Grammar is "x12".
type PathError = check.PathError

// maxOccurrence bounds occurrence, repetition and component numbers, far
// above anything a real interchange holds.
const maxOccurrence = 1 << 30

// ParsePath compiles an X12 path.
func ParsePath(s string) (Path, error) {
	p := Path{text: s, occ: 1, rep: 1}
	if n := strings.Count(s, "/"); n > 0 {
		p.loops = make([]loopRef, 0, n) // one allocation for the loop levels
	}
	fail := func(at int, format string, args ...any) (Path, error) {
		return Path{}, check.NewPathError("x12", s, at, fmt.Sprintf(format, args...))
	}
	if s == "" {
		return fail(0, "empty path")
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		for j < len(s) && s[j] >= 'A' && s[j] <= 'Z' {
			j++
		}
		ref := loopRef{id: s[i:j]} // no occurrence: every instance
		ref.name, ref.known = knownLoop(ref.id)
		if j < len(s) && s[j] == '(' {
			occ, next, msg := parseIndex(s, j, '(', ')')
			if msg != "" {
				return fail(j, "loop %s: %s", ref.id, msg)
			}
			ref.occ, j = occ, next
		}
		if j >= len(s) || s[j] != '/' {
			if j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
				return fail(j, "loop IDs are written in capitals, such as 2100C")
			}
			return fail(j, "expected / after loop %s (a loop ID such as 2100C, then /, then a segment such as NM103)", ref.id)
		}
		p.loops = append(p.loops, ref)
		i = j + 1
	}
	j := i
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || isDigit(s[j])) {
		j++
	}
	run := s[i:j]
	if len(run) <= 3 {
		if j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
			return fail(j, "segment IDs are written in capitals, such as NM1")
		}
		if !validID(run) {
			return fail(i, "expected a segment ID (2 or 3 capital letters and digits, a letter first), then a two-digit element position, such as NM103")
		}
		p.seg = run
		if j < len(s) && s[j] == '[' {
			k := strings.IndexByte(s[j+1:], ']')
			if k < 0 {
				return fail(j, "the qualifier has no closing ]")
			}
			if k == 0 {
				return fail(j, "empty qualifier []")
			}
			p.qual, p.hasQual = s[j+1:j+1+k], true
			j += k + 2
		}
		if j < len(s) && s[j] == '(' {
			occ, next, msg := parseIndex(s, j, '(', ')')
			if msg != "" {
				return fail(j, "segment occurrence: %s", msg)
			}
			p.occ, j = occ, next
		}
		if j+2 > len(s) || !isDigit(s[j]) || !isDigit(s[j+1]) {
			return fail(j, "expected a two-digit element position after %s, such as %s03", run, run)
		}
		p.elem = int(s[j]-'0')*10 + int(s[j+1]-'0')
		j += 2
	} else {
		if len(run) > 5 || !isDigit(run[len(run)-1]) || !isDigit(run[len(run)-2]) {
			return fail(i, "expected a segment ID (2 or 3 capital letters and digits) and a two-digit element position, such as NM103")
		}
		p.seg = run[:len(run)-2]
		if !validID(p.seg) {
			return fail(i, "%q is not a segment ID (2 or 3 capital letters and digits, a letter first)", p.seg)
		}
		p.elem = int(run[len(run)-2]-'0')*10 + int(run[len(run)-1]-'0')
	}
	if p.elem == 0 {
		return fail(j-2, "element positions start at 01")
	}
	if j < len(s) && s[j] == '[' {
		rep, next, msg := parseIndex(s, j, '[', ']')
		if msg != "" {
			return fail(j, "repetition: %s", msg)
		}
		p.rep, p.repSet, j = rep, true, next
	}
	if j < len(s) && s[j] == '-' {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		n, err := strconv.Atoi(s[j+1 : k])
		if err != nil || n < 1 || n > maxOccurrence {
			return fail(j+1, "expected a component number from 1 after -, such as HI01-2")
		}
		p.comp, j = n, k
	}
	if j < len(s) {
		if s[j] == '(' {
			return fail(j, "a segment occurrence goes before the element position, as in NM1(2)03")
		}
		return fail(j, "unexpected %q", s[j:])
	}
	return p, nil
}

// parseIndex reads "(N)" or "(*)" (with open and close as the brackets) at
// s[at:], returning N (0 for *) and the index after the closing bracket, or
// a message saying what is wrong.
func parseIndex(s string, at int, open, close byte) (int, int, string) {
	k := strings.IndexByte(s[at+1:], close)
	if s[at] != open || k < 0 {
		return 0, 0, fmt.Sprintf("no closing %c", close)
	}
	inner := s[at+1 : at+1+k]
	next := at + k + 2
	if inner == "*" {
		return 0, next, ""
	}
	for i := 0; i < len(inner); i++ {
		if !isDigit(inner[i]) {
			return 0, 0, fmt.Sprintf("expected a number from 1 or *, not %q", inner)
		}
	}
	n, err := strconv.Atoi(inner)
	if err != nil || n < 1 || n > maxOccurrence {
		return 0, 0, fmt.Sprintf("expected a number from 1 or *, not %q", inner)
	}
	return n, next, ""
}

// MustParsePath is ParsePath for paths known to be valid, such as
// constants; it panics on an error.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the path as it was written.
func (p Path) String() string { return p.text }

// Multi reports whether the path has a wildcard on a segment occurrence or
// a repetition (`SEG(*)`, `NN[*]`), so that it may select several values. A
// loop with `(*)`, like a loop without an occurrence, only widens the
// scope in which the segment is sought.
func (p Path) Multi() bool { return p.occ == 0 || p.rep == 0 }

// Loops reports whether the path names a loop.
func (p Path) Loops() bool { return len(p.loops) > 0 }

// Values returns the values p selects in x, in file order: at most one
// without a wildcard, none when the path resolves to nothing.
func (p Path) Values(x *Interchange) []string { return p.AppendValues(nil, x) }

// AppendValues appends the values p selects in x to dst and returns it; with
// a dst of enough capacity it does not allocate.
//
// A path without a loop reads the interchange in one scan, or through the
// segment index once something has built it (a path on ST reads the
// parse's own list of transaction sets); a path with a loop builds the
// segment index and the loops on its first use.
func (p Path) AppendValues(dst []string, x *Interchange) []string {
	if x == nil || p.elem == 0 {
		return dst
	}
	if len(p.loops) > 0 {
		return p.appendLoops(dst, x)
	}
	n := 0
	if p.seg == "ST" {
		if !p.hasQual && p.occ > 0 {
			if p.occ > len(x.sets) {
				return dst
			}
			t, d := x.segmentAt(x.sets[p.occ-1])
			return p.appendElement(dst, t, d)
		}
		for _, off := range x.sets {
			t, d := x.segmentAt(off)
			var stop bool
			if dst, n, stop = p.appendMatch(dst, n, t, d); stop {
				break
			}
		}
		return dst
	}
	if x.index.built.Load() {
		// The index says where each segment starts: only the segments
		// that start with the path's ID are read to their ends.
		for _, sg := range x.index.segs {
			if !strings.HasPrefix(x.data[sg.start:], p.seg) {
				continue
			}
			t, d := x.segmentAt(sg.start)
			var stop bool
			if dst, n, stop = p.appendMatch(dst, n, t, d); stop {
				break
			}
		}
		return dst
	}
	sc := x.scan()
	for {
		start, end, ok := sc.next()
		if !ok {
			break
		}
		var stop bool
		if dst, n, stop = p.appendMatch(dst, n, x.data[start:end], &sc.d); stop {
			break
		}
	}
	return dst
}

// appendMatch reads segment text t (the n-th match so far before it) when
// it is the path's segment, and says whether the occurrence wanted is
// done.
func (p Path) appendMatch(dst []string, n int, t string, d *Delimiters) ([]string, int, bool) {
	ls := len(p.seg)
	if len(t) < ls || t[:ls] != p.seg || len(t) > ls && t[ls] != d.Element {
		return dst, n, false
	}
	if p.hasQual && !qualifies(t, d, p.qual) {
		return dst, n, false
	}
	n++
	if p.occ == 0 {
		return p.appendElement(dst, t, d), n, false
	}
	if n == p.occ {
		return p.appendElement(dst, t, d), n, true
	}
	return dst, n, false
}

// appendLoops reads the path's loop levels: level k selects the instances
// of its loop nested (at any depth) in one selected at level k-1 (any in
// the file, for the first level), counted in document order across them
// all; the segment is then sought, and its occurrence counted, among the
// segments inside every selected instance of the last level.
func (p Path) appendLoops(dst []string, x *Interchange) []string {
	for _, ref := range p.loops {
		if !ref.known {
			return dst
		}
	}
	segs, loops := x.loopIndex()
	// A numbered level selects one instance: the n-th, in document order,
	// of those inside the levels before it. Unnumbered levels are never
	// listed: a loop's enclosing loops say whether it is inside them
	// (inChain), from level `from` on, whose instances must lie inside the
	// instance last selected (scope; anywhere when from is 0).
	var one [1]int32
	var scope []int32
	from := 0
	for k, ref := range p.loops {
		if ref.occ == 0 {
			continue
		}
		lo, hi := int32(0), int32(len(loops)-1)
		if scope != nil {
			lo, hi = scope[0]+1, loops[scope[0]].last
		}
		n, found := 0, int32(-1)
		for l := lo; int(l) < len(loops) && (scope == nil || loops[l].first <= hi); l++ {
			if loops[l].name != ref.name {
				continue
			}
			inside := scope == nil && from == k
			if !inside {
				if from == k {
					inside = insideAny(loops, loops[l].parent, scope)
				} else {
					inside = p.inChain(loops, loops[l].parent, k-1, from, scope)
				}
			}
			if inside {
				if n++; n == ref.occ {
					found = l
					break
				}
			}
		}
		if found < 0 {
			return dst
		}
		one[0] = found
		scope, from = one[:], k+1
	}
	if from < len(p.loops) {
		return p.appendEvery(dst, x, segs, loops, from, scope)
	}
	n, cursor := 0, int32(0)
	for _, s := range scope {
		i := max(loops[s].first, cursor)
		for ; i <= loops[s].last; i++ {
			sg := &segs[i]
			if !strings.HasPrefix(x.data[sg.start:], p.seg) || !insideAny(loops, sg.loop, scope) {
				continue
			}
			t, d := x.segmentAt(sg.start)
			var stop bool
			if dst, n, stop = p.appendMatch(dst, n, t, d); stop {
				return dst
			}
		}
		cursor = max(cursor, i)
	}
	return dst
}

// appendEvery reads the path's segment among the segments inside every
// instance of the loop levels from..last, none of them numbered, nested in
// one of scope (the instances selected at level from-1; anywhere, when from
// is 0), without listing the instances: a segment qualifies when its
// enclosing loops hold the chain of levels. The segments are read in
// document order, and the reading stops at the occurrence wanted.
func (p Path) appendEvery(dst []string, x *Interchange, segs []segment, loops []loop, from int, scope []int32) []string {
	n := 0
	last := len(p.loops) - 1
	visit := func(i, hi int32) (int32, bool) {
		for ; i <= hi; i++ {
			sg := &segs[i]
			if !strings.HasPrefix(x.data[sg.start:], p.seg) || !p.inChain(loops, sg.loop, last, from, scope) {
				continue
			}
			t, d := x.segmentAt(sg.start)
			var stop bool
			if dst, n, stop = p.appendMatch(dst, n, t, d); stop {
				return i, true
			}
		}
		return i, false
	}
	if from == 0 {
		for l := range loops {
			if loops[l].name == p.loops[0].name {
				visit(loops[l].first, int32(len(segs)-1))
				break
			}
		}
		return dst
	}
	cursor := int32(0)
	for _, s := range scope {
		i, stop := visit(max(loops[s].first, cursor), loops[s].last)
		if stop {
			break
		}
		cursor = max(cursor, i)
	}
	return dst
}

// inChain reports whether loop l, or one enclosing it, is an instance of
// level k that lies inside an instance of level k-1, and so on down to
// level from, whose instance must lie inside one of scope (anywhere, when
// from is 0).
func (p Path) inChain(loops []loop, l int32, k, from int, scope []int32) bool {
	for ; l >= 0; l = loops[l].parent {
		if loops[l].name != p.loops[k].name {
			continue
		}
		if k == from {
			if from == 0 || insideAny(loops, loops[l].parent, scope) {
				return true
			}
		} else if p.inChain(loops, loops[l].parent, k-1, from, scope) {
			return true
		}
	}
	return false
}

// insideAny reports whether loop instance l is one of set (sorted) or
// nested in one of them.
func insideAny(loops []loop, l int32, set []int32) bool {
	for ; l >= 0; l = loops[l].parent {
		lo, hi := 0, len(set)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if set[m] < l {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo < len(set) && set[lo] == l {
			return true
		}
	}
	return false
}

// qualifies reports whether element 01 of segment text t is q, or, for a
// composite, whether its first component is.
func qualifies(t string, d *Delimiters, q string) bool {
	v, ok := field(t, d.Element, 1)
	if !ok {
		return false
	}
	if v == q {
		return true
	}
	if i := strings.IndexByte(v, d.Component); i >= 0 {
		return v[:i] == q
	}
	return false
}

// appendElement reads the path's element, repetition and component from
// segment text t.
func (p Path) appendElement(dst []string, t string, d *Delimiters) []string {
	v, ok := field(t, d.Element, p.elem)
	if !ok {
		return dst
	}
	if p.seg == "ISA" {
		// ISA11 and ISA16 are delimiters themselves; ISA elements have no
		// repetitions or components.
		if p.rep <= 1 && p.comp <= 1 {
			dst = append(dst, v)
		}
		return dst
	}
	if d.Repetition != 0 && d.Repetition == d.Component {
		return p.appendPieces(dst, v, d.Component)
	}
	if d.Repetition == 0 {
		if p.rep <= 1 {
			dst = p.appendComponent(dst, v, d)
		}
		return dst
	}
	n := 0
	for {
		r, rest, more := cut(v, d.Repetition)
		n++
		if p.rep == 0 || n == p.rep {
			dst = p.appendComponent(dst, r, d)
			if p.rep != 0 {
				return dst
			}
		}
		if !more {
			return dst
		}
		v = rest
	}
}

// appendPieces reads an element whose repetition and component separators
// are the same character: it splits into pieces P1..Pn, and `NN[i]`,
// `NN-i` and `NN[i]-1` read Pi, `NN[i]-j` with j > 1 reads nothing, `NN[*]`
// every piece, and a plain `NN` the element as written.
func (p Path) appendPieces(dst []string, v string, sep byte) []string {
	want, comp := p.rep, p.comp
	switch {
	case !p.repSet && comp == 0:
		return append(dst, v)
	case !p.repSet:
		want, comp = comp, 0
	case comp > 1:
		return dst
	}
	for n := 1; ; n++ {
		r, rest, more := cut(v, sep)
		if want == 0 || n == want {
			dst = append(dst, r)
			if want != 0 {
				return dst
			}
		}
		if !more {
			return dst
		}
		v = rest
	}
}

func (p Path) appendComponent(dst []string, v string, d *Delimiters) []string {
	if p.comp == 0 {
		return append(dst, v)
	}
	for n := 1; ; n++ {
		c, rest, more := cut(v, d.Component)
		if n == p.comp {
			return append(dst, c)
		}
		if !more {
			return dst
		}
		v = rest
	}
}

func cut(s string, sep byte) (before, after string, found bool) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// PathWarning says why p may read nothing in x although the file holds
// what it names: p names a loop, and loops are defined only for the 5010
// guides chosen by GS08 (X279 for 270/271, X212 for 276/277, X214 for the
// 277CA, X217 for 278), or it names a loop no guide has. It is "" when
// neither is the case.
func (x *Interchange) PathWarning(p Path) string {
	if len(p.loops) == 0 {
		return ""
	}
	none, first := 0, -1
	for i := range x.sets {
		if x.guide(i) == guideNone {
			none++
			if first < 0 {
				first = i
			}
		}
	}
	if none == 0 {
		for _, ref := range p.loops {
			if !ref.known {
				return fmt.Sprintf("path %s names loop %s, which none of the 5010 guides this package knows (X279, X212, X214, X217) has; it reads nothing", p.text, ref.id)
			}
		}
		return ""
	}
	code, control, version, _ := x.setInfo(first)
	what := fmt.Sprintf("transaction set %s %s (%s)", code, strconv.Quote(control), version)
	if none > 1 {
		what = fmt.Sprintf("%d transaction sets (the first: %s)", none, what)
	}
	return fmt.Sprintf("path %s names a loop, but loops are defined only for the 5010 guides chosen by GS08 (X279 for 270/271, X212 for 276/277, X214 for the 277CA, X217 for 278): %s has none, so the path reads nothing there", p.text, what)
}

// Get compiles path and returns the values it selects; see Path.Values.
func (x *Interchange) Get(path string) ([]string, error) {
	p, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	return p.Values(x), nil
}
