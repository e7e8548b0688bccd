package x12

import (
	"slices"
	"strings"
	"sync"
)

// The loops of the implementation guides, written as the guides nest them.
// They are made the first time a path names a loop or an index is built,
// so that a program that reads no loops never pays for them.

// loopDef is a loop of an implementation guide: the segment (and, where
// siblings share it, the element-01 qualifiers) that opens it, and the
// loops nested in it.
type loopDef struct {
	id    string
	name  uint16 // the index of id in the guides' loopIDs
	seg   string
	quals []string
	// inLS: the loop opens only inside an LS/LE bracket (the 2120 loops of
	// the 271).
	inLS bool
	// hasLS: some child opens only inside LS/LE, so an LS in this loop
	// opens a bracket.
	hasLS    bool
	children []*loopDef
}

// levels maps the HL03 level codes of one transaction set to their loops.
type levels map[string]*loopDef

func lp(id, seg string, children ...*loopDef) *loopDef {
	d := &loopDef{id: id, seg: seg, children: children}
	for _, c := range children {
		d.hasLS = d.hasLS || c.inLS
	}
	return d
}

// hl is an HL level loop.
func hl(id string, children ...*loopDef) *loopDef { return lp(id, "HL", children...) }

// qual restricts the qualifiers (element 01) that open d.
func qual(d *loopDef, quals ...string) *loopDef {
	d.quals = quals
	return d
}

func inLS(d *loopDef) *loopDef {
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
func eligibility(response bool) levels {
	member := func(x string) *loopDef {
		if !response {
			return lp("2100"+x, "NM1", lp("2110"+x, "EQ"))
		}
		return lp("2100"+x, "NM1", lp("2110"+x, "EB", lp("2115"+x, "III"), inLS(lp("2120"+x, "NM1"))))
	}
	return levels{
		"20": hl("2000A", lp("2100A", "NM1")),
		"21": hl("2000B", lp("2100B", "NM1")),
		"22": hl("2000C", member("C")),
		"23": hl("2000D", member("D")),
	}
}

// claimStatus is the 276 (request) or 277 (response) of X212.
func claimStatus(response bool) levels {
	line := "2210"
	if response {
		line = "2220"
	}
	patient := func(x string) *loopDef {
		return hl("2000"+x, lp("2100"+x, "NM1"), lp("2200"+x, "TRN", lp(line+x, "SVC")))
	}
	l := levels{
		"20": hl("2000A", lp("2100A", "NM1")),
		"21": hl("2000B", lp("2100B", "NM1")),
		"19": hl("2000C", lp("2100C", "NM1")),
		"22": patient("D"),
		"23": patient("E"),
	}
	if response {
		l["21"] = hl("2000B", lp("2100B", "NM1"), lp("2200B", "TRN"))
		l["19"] = hl("2000C", lp("2100C", "NM1"), lp("2200C", "TRN"))
	}
	return l
}

// claimAck is the 277CA of X214, the claim acknowledgment.
func claimAck() levels {
	return levels{
		"20": hl("2000A", lp("2100A", "NM1"), lp("2200A", "TRN")),
		"21": hl("2000B", lp("2100B", "NM1"), lp("2200B", "TRN")),
		"19": hl("2000C", lp("2100C", "NM1"), lp("2200C", "TRN")),
		"PT": hl("2000D", lp("2100D", "NM1"), lp("2200D", "TRN", lp("2220D", "SVC"))),
	}
}

// review is the 278 request or response of X217.
func review(response bool) levels {
	l := levels{
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
		l["EV"] = hl("2000E",
			qual(lp("2010EA", "NM1"), x217EventProvider...),
			qual(lp("2010EB", "NM1"), x217Contact...),
			qual(lp("2010EC", "NM1"), x217Transport...))
		l["SS"] = hl("2000F",
			qual(lp("2010FA", "NM1"), x217ServiceProvider...),
			qual(lp("2010FB", "NM1"), x217Contact...))
	}
	return l
}

// The guides loop paths are defined for, chosen by the group's GS08 or,
// when present, the transaction set's ST03 (which X12 lets override GS08):
// the guide it names when the set's ST01 fits it.
const (
	guideNone uint8 = iota
	guide270
	guide271
	guide276
	guide277
	guide277CA
	guide278
)

// guideFor picks the guide of a transaction set from its ST01 and the
// version its ST03, or else its group's GS08, names.
func guideFor(code, gs08, st03 string) uint8 {
	v := st03
	if v == "" {
		v = gs08
	}
	switch {
	case strings.Contains(v, "X279"):
		switch code {
		case "270":
			return guide270
		case "271":
			return guide271
		}
	case strings.Contains(v, "X212"):
		switch code {
		case "276":
			return guide276
		case "277":
			return guide277
		}
	case strings.Contains(v, "X214"):
		if code == "277" {
			return guide277CA
		}
	case strings.Contains(v, "X217"):
		if code == "278" {
			return guide278
		}
	}
	return guideNone
}

// guideSet is every guide's loops.
type guideSet struct {
	byGuide     [guide278 + 1]levels // nil for guideNone; the 278's request
	response278 levels               // what BHT02 11 switches a 278 to
	loopIDs     []string             // every loop ID, sorted, "" (none) first
	openers     []string             // the segments that open a loop other than an HL level
}

// guides returns the loops of every guide, made on first use.
var guides = sync.OnceValue(func() *guideSet {
	g := &guideSet{response278: review(true)}
	g.byGuide[guide270] = eligibility(false)
	g.byGuide[guide271] = eligibility(true)
	g.byGuide[guide276] = claimStatus(false)
	g.byGuide[guide277] = claimStatus(true)
	g.byGuide[guide277CA] = claimAck()
	g.byGuide[guide278] = review(false)
	g.loopIDs = []string{""}
	var collect func(d *loopDef)
	collect = func(d *loopDef) {
		if !slices.Contains(g.loopIDs, d.id) {
			g.loopIDs = append(g.loopIDs, d.id)
		}
		if d.seg != "HL" && !slices.Contains(g.openers, d.seg) {
			g.openers = append(g.openers, d.seg)
		}
		for _, c := range d.children {
			collect(c)
		}
	}
	for _, l := range append(g.byGuide[:], g.response278) {
		for _, d := range l {
			collect(d)
		}
	}
	slices.Sort(g.loopIDs)
	var name func(d *loopDef)
	name = func(d *loopDef) {
		d.name = loopName(g.loopIDs, d.id)
		for _, c := range d.children {
			name(c)
		}
	}
	for _, l := range append(g.byGuide[:], g.response278) {
		for _, d := range l {
			name(d)
		}
	}
	return g
})

// loopName returns the index of loop ID id in ids (sorted); 0 when absent.
func loopName(ids []string, id string) uint16 {
	if n, ok := slices.BinarySearch(ids, id); ok {
		return uint16(n)
	}
	return 0
}

// knownLoop returns the index of a loop ID in the guides' loopIDs, and
// whether some guide has a loop of that ID.
func knownLoop(id string) (uint16, bool) {
	n := loopName(guides().loopIDs, id)
	return n, n != 0
}
