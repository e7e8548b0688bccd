package x12

import (
	"slices"
	"strconv"
)

// The loops of the implementation guides, as the guides nest them: the
// single source of the loop tables the indexer reads (tables.go), which
// buildTables makes from these definitions and TestTables writes out as
// Go source, so that the tables are data the linker lays out rather than
// code run when the package loads. After changing a definition, run
//
//	go generate ./x12
//
// (TestTables fails while tables.go is stale). Nothing here runs in a
// program that uses the package: the linker leaves it out.
//
//go:generate go test -run ^TestTables$ -write-tables

// guideLoop is a loop of an implementation guide as written below: the
// segment (and, where siblings share it, the element-01 qualifiers) that
// opens it, and the loops nested in it.
type guideLoop struct {
	id    string
	seg   string
	quals []string
	// inLS: the loop opens only inside an LS/LE bracket (the 2120 loops of
	// the 271).
	inLS     bool
	children []*guideLoop
}

// txDef maps the HL03 level codes of one transaction set to their loops.
type txDef map[string]*guideLoop

func lp(id, seg string, children ...*guideLoop) *guideLoop {
	return &guideLoop{id: id, seg: seg, children: children}
}

// hl is an HL level loop.
func hl(id string, children ...*guideLoop) *guideLoop { return lp(id, "HL", children...) }

// qual restricts the qualifiers (element 01) that open d.
func qual(d *guideLoop, quals ...string) *guideLoop {
	d.quals = quals
	return d
}

func inLS(d *guideLoop) *guideLoop {
	d.inLS = true
	return d
}

// NM101 codes of the 278 (X217) name loops, where one HL level holds
// several NM1 loops.
var (
	x217EventProvider   = []string{"71", "72", "AAJ", "DD", "DK", "DN", "FA", "G3", "P3", "QB", "QV", "SJ"}
	x217Transport       = []string{"45", "FS", "ND", "PW", "R3"}
	x217Contact         = []string{"1P", "2B", "ABG", "FA", "PR", "X3"}
	x217ServiceProvider = []string{"1T", "71", "72", "73", "77", "AAJ", "DD", "DK", "DN", "FA", "G3", "P3", "QB", "QV", "SJ"}
)

// eligibility is the 270 (request) or 271 (response) of X279.
func eligibility(response bool) txDef {
	member := func(x string) *guideLoop {
		if !response {
			return lp("2100"+x, "NM1", lp("2110"+x, "EQ"))
		}
		return lp("2100"+x, "NM1", lp("2110"+x, "EB", lp("2115"+x, "III"), inLS(lp("2120"+x, "NM1"))))
	}
	return txDef{
		"20": hl("2000A", lp("2100A", "NM1")),
		"21": hl("2000B", lp("2100B", "NM1")),
		"22": hl("2000C", member("C")),
		"23": hl("2000D", member("D")),
	}
}

// claimStatus is the 276 (request) or 277 (response) of X212.
func claimStatus(response bool) txDef {
	line := "2210"
	if response {
		line = "2220"
	}
	patient := func(x string) *guideLoop {
		return hl("2000"+x, lp("2100"+x, "NM1"), lp("2200"+x, "TRN", lp(line+x, "SVC")))
	}
	d := txDef{
		"20": hl("2000A", lp("2100A", "NM1")),
		"21": hl("2000B", lp("2100B", "NM1")),
		"19": hl("2000C", lp("2100C", "NM1")),
		"22": patient("D"),
		"23": patient("E"),
	}
	if response {
		d["21"] = hl("2000B", lp("2100B", "NM1"), lp("2200B", "TRN"))
		d["19"] = hl("2000C", lp("2100C", "NM1"), lp("2200C", "TRN"))
	}
	return d
}

// claimAck is the 277CA of X214, the claim acknowledgment.
func claimAck() txDef {
	return txDef{
		"20": hl("2000A", lp("2100A", "NM1"), lp("2200A", "TRN")),
		"21": hl("2000B", lp("2100B", "NM1"), lp("2200B", "TRN")),
		"19": hl("2000C", lp("2100C", "NM1"), lp("2200C", "TRN")),
		"PT": hl("2000D", lp("2100D", "NM1"), lp("2200D", "TRN", lp("2220D", "SVC"))),
	}
}

// review is the 278 request or response of X217.
func review(response bool) txDef {
	d := txDef{
		"20": hl("2000A", lp("2010A", "NM1")),
		"21": hl("2000B", lp("2010B", "NM1")),
		"22": hl("2000C", lp("2010C", "NM1")),
		"23": hl("2000D", lp("2010D", "NM1")),
		"EV": hl("2000E",
			qual(lp("2010EA", "NM1"), x217EventProvider...),
			qual(lp("2010EB", "NM1"), x217Transport...),
			qual(lp("2010EC", "NM1"), "X3")),
		"SS": hl("2000F", lp("2010F", "NM1")),
	}
	if response {
		d["EV"] = hl("2000E",
			qual(lp("2010EA", "NM1"), x217EventProvider...),
			qual(lp("2010EB", "NM1"), x217Contact...),
			qual(lp("2010EC", "NM1"), x217Transport...))
		d["SS"] = hl("2000F",
			qual(lp("2010FA", "NM1"), x217ServiceProvider...),
			qual(lp("2010FB", "NM1"), x217Contact...))
	}
	return d
}

// namedGuide is one guide's loops and the name of its levels table.
type namedGuide struct {
	name string
	def  txDef
}

// guideDefs lists the guides' loops, each with the name of its levels
// table (txDefOf).
func guideDefs() []namedGuide {
	return []namedGuide{
		{"def270", eligibility(false)},
		{"def271", eligibility(true)},
		{"def276", claimStatus(false)},
		{"def277", claimStatus(true)},
		{"def277CA", claimAck()},
		{"def278Q", review(false)},
		{"def278Res", review(true)},
	}
}

// tableSet holds the loop tables of tables.go, as buildTables makes them.
type tableSet struct {
	loopNames []string
	loopDefs  []loopDef
	kidsOf    []defKids
	loopSegs  []uint32
	idTable   [128]idSlot
	openSteps [][maxOpeners]openStep
	idClass   [256]uint8
	levels    []namedLevels
}

// namedLevels is one guide's levels table and its name.
type namedLevels struct {
	name string
	l    levels
}

// buildTables makes the loop tables from the guides' definitions: every
// definition is numbered (an HL level before the loops nested in it, the
// guides in guideDefs' order, HL codes in byte order), loop IDs are
// numbered in byte order, so that loopName can search loopNames.
func buildTables() *tableSet {
	t := &tableSet{}
	guides := guideDefs()

	// Loop IDs, sorted; "" (0) names an HL level the guide does not have.
	names := []string{""}
	var collect func(d *guideLoop)
	collect = func(d *guideLoop) {
		if !slices.Contains(names, d.id) {
			names = append(names, d.id)
		}
		for _, c := range d.children {
			collect(c)
		}
	}
	for _, g := range guides {
		for _, code := range sortedCodes(g.def) {
			collect(g.def[code])
		}
	}
	slices.Sort(names)
	t.loopNames = names
	nameOf := func(id string) uint16 {
		n, _ := slices.BinarySearch(names, id)
		return uint16(n)
	}

	// Definitions, numbered in pre-order; 0 stands for none.
	idx := map[*guideLoop]uint16{}
	nodes := []*guideLoop{nil}
	var number func(d *guideLoop)
	number = func(d *guideLoop) {
		if _, ok := idx[d]; ok {
			panic("x12: loop " + d.id + " is nested in two others")
		}
		idx[d] = uint16(len(nodes))
		nodes = append(nodes, d)
		for _, c := range d.children {
			number(c)
		}
	}
	for _, g := range guides {
		for _, code := range sortedCodes(g.def) {
			number(g.def[code])
		}
	}
	t.loopDefs = make([]loopDef, len(nodes))
	t.kidsOf = make([]defKids, len(nodes))
	for i, d := range nodes {
		if d == nil {
			continue
		}
		t.loopDefs[i] = loopDef{id: d.id, name: nameOf(d.id), seg: d.seg, quals: d.quals}
		if len(d.children) > maxKids {
			panic("x12: loop " + d.id + " has more than maxKids nested loops")
		}
		dk := &t.kidsOf[i]
		dk.n = uint8(len(d.children))
		for k, c := range d.children {
			dk.kids[k] = kid{segID: packString(c.seg), def: idx[c], name: nameOf(c.id), inLS: c.inLS, qual: c.quals != nil}
			dk.qual = dk.qual || c.quals != nil
			dk.hasLS = dk.hasLS || c.inLS
		}
	}

	// The HL levels of each guide.
	for _, g := range guides {
		codes := sortedCodes(g.def)
		if len(codes) > maxLevels {
			panic("x12: a guide names more than maxLevels HL levels")
		}
		var l levels
		for _, code := range codes {
			l.codes[l.n], l.defs[l.n] = packCode(code), idx[g.def[code]]
			l.n++
		}
		t.levels = append(t.levels, namedLevels{g.name, l})
	}

	// The segments that open a loop other than an HL level.
	for _, d := range nodes[1:] {
		if id := packString(d.seg); d.seg != "HL" && !slices.Contains(t.loopSegs, id) {
			t.loopSegs = append(t.loopSegs, id)
		}
	}
	if len(t.loopSegs) > maxOpeners {
		panic("x12: more than maxOpeners segments open loops")
	}

	t.idTable = buildIDTable(t.loopSegs)
	t.openSteps = buildOpenSteps(t.kidsOf, t.loopSegs)
	for b := '0'; b <= '9'; b++ {
		t.idClass[b] = classDigit
	}
	for b := 'A'; b <= 'Z'; b++ {
		t.idClass[b] = classLetter
	}
	return t
}

// sortedCodes returns the HL03 codes of d in byte order.
func sortedCodes(d txDef) []string {
	codes := make([]string, 0, len(d))
	for code := range d {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	return codes
}

// buildIDTable makes idTable: the classes of the segment identifiers the
// envelope checks and the loops read, by the perfect hash of idMul. It
// panics if idMul no longer separates them, naming a multiplier that does.
func buildIDTable(loopSegs []uint32) (t [128]idSlot) {
	classes := map[uint32]uint8{
		idISA: clsEnvelope, idIEA: clsEnvelope, idTA1: clsEnvelope, idGS: clsEnvelope,
		idGE: clsEnvelope, idST: clsEnvelope, idSE: clsEnvelope, idInvalid: clsEnvelope,
		idHL: clsLoop, idBHT: clsLoop, idLS: clsLoop, idLE: clsLoop,
	}
	for _, id := range loopSegs {
		classes[id] |= clsLoop | clsOpens
	}
	if !fillIDTable(&t, classes, loopSegs, idMul) {
		for m := uint32(idMul) + 2; ; m += 2 {
			if fillIDTable(&t, classes, loopSegs, m) {
				panic("x12: the segment identifier hash collides; set idMul to " + strconv.FormatUint(uint64(m), 16))
			}
		}
	}
	return t
}

// fillIDTable fills t with classes hashed by multiplier m, and reports
// whether no two identifiers share a slot.
func fillIDTable(t *[128]idSlot, classes map[uint32]uint8, loopSegs []uint32, m uint32) bool {
	*t = [128]idSlot{}
	for id, c := range classes {
		e := &t[(id*m)>>25]
		if e.id != 0 {
			return false
		}
		*e = idSlot{id: id, class: c}
		if k := slices.Index(loopSegs, id); k >= 0 {
			e.op = uint8(k)
		}
	}
	return true
}

// buildOpenSteps makes openSteps: for every definition, as the innermost
// open loop (its ancestors open around it), and every segment that opens
// loops, what opener's search through the open loops finds where no LS is
// open.
func buildOpenSteps(kidsOf []defKids, loopSegs []uint32) [][maxOpeners]openStep {
	parent := make([]uint16, len(kidsOf))
	for i := range kidsOf {
		for _, k := range kidsOf[i].kids[:kidsOf[i].n] {
			if parent[k.def] != 0 {
				panic("x12: a loop definition is nested in two others")
			}
			parent[k.def] = uint16(i)
		}
	}
	out := make([][maxOpeners]openStep, len(kidsOf))
	for d := range out {
		for op, id := range loopSegs {
			st := openStep{kind: stepInner}
		levels:
			for cur, up := d, 0; ; cur, up = int(parent[cur]), up+1 {
				dk := &kidsOf[cur]
				if dk.qual {
					st = openStep{kind: stepSearch}
					break
				}
				found := -1
				for ci, k := range dk.kids[:dk.n] {
					if k.segID != id || k.inLS {
						continue
					}
					if found >= 0 {
						st = openStep{kind: stepSearch}
						break levels
					}
					found = ci
				}
				if found >= 0 {
					st = openStep{kind: stepOpen, up: uint8(up), kid: uint8(found)}
					break
				}
				if parent[cur] == 0 {
					break
				}
			}
			out[d][op] = st
		}
	}
	return out
}
