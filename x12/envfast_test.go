package x12

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The envelope checks read an ST like the last one but for ST02, and an
// SE of the usual shape, without finding each element (stFields,
// closeST); an HL whose parent is the HL before it without a search
// (openHL). checkFast compares what they found with the same checks made
// the slow way: each SE's SE01 and SE02 findings with field's reading of
// it and its ST, each set's guide (through the loops, checkIndex, whose
// index built on first use takes the guide from the set's ST and GS by
// field), and the findings of the in-pass index with those of the parse
// that builds no index (of an input over eagerLimit).
func checkFast(t *testing.T, name string, data []byte) {
	t.Helper()
	x, err := Parse(data)
	if err != nil {
		return
	}
	checkIndex(t, name, x)
	if len(x.findings) >= maxFindings {
		return
	}
	for _, tx := range x.Transactions() {
		se, sed := x.segmentAt(x.index.segs[tx.End].start)
		if tx.End <= tx.Start || !strings.HasPrefix(se, "SE") || segmentID(se, sed.Element) != "SE" {
			continue
		}
		st, std := x.stSegment(slices.Index(x.sets, x.index.segs[tx.Start].start))
		st02, _ := field(st, std.Element, 2)
		se01, _ := field(se, sed.Element, 1)
		se02, _ := field(se, sed.Element, 2)
		var want []string
		if n := tx.End - tx.Start + 1; !countIsSlow(se01, n) {
			want = append(want, "SE01 counts "+strconv.Quote(se01)+" segments, but transaction set "+strconv.Quote(st02)+" has "+strconv.Itoa(n)+" from ST to SE")
		}
		if se02 != st02 {
			want = append(want, "SE02 "+strconv.Quote(se02)+" does not match ST02 "+strconv.Quote(st02))
		}
		var got []string
		for _, f := range x.findings {
			if f.Segment == tx.End+1 && (strings.HasPrefix(f.Message, "SE01 ") || strings.HasPrefix(f.Message, "SE02 ")) {
				got = append(got, f.Message)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: the SE at segment %d has findings %q, want %q", name, tx.End+1, got, want)
		}
	}
	// The same input parsed as one over eagerLimit is: no index, the HLs
	// checked by checkHL.
	if y := parseNoIndex(x.data); !slices.Equal(x.findings, y.findings) {
		t.Fatalf("%s: findings with the index %+v, without %+v", name, x.findings, y.findings)
	}
}

// parseNoIndex parses s as ParseString does an input over eagerLimit,
// without building the index in its pass; s is known to parse.
func parseNoIndex(s string) *Interchange {
	x := &Interchange{data: s}
	x.delims, x.marks, x.sets, x.groups = x.delims0[:0], x.marks0[:0], x.sets0[:0], x.groups0[:0]
	p := &parser{x: x, s: s}
	p.hl.stack, p.hl.seen, p.hl.data = p.stackBuf[:0], p.seenBuf[:0], s
	p.run(skipPreamble(s))
	if len(x.findings) > 0 {
		x.locate()
	}
	return x
}

// Interchanges whose STs, SEs and HLs take each way through stFields,
// closeST and openHL.
func TestEnvelopeFastPaths(t *testing.T) {
	for name, s := range fastCases() {
		checkFast(t, name, []byte(s))
	}
	files, _ := filepath.Glob("testdata/*/*.x12")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		checkFast(t, file, data)
	}
}

func fastCases() map[string]string {
	isa := "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261119*1401*^*00501*000000001*0*P*:~"
	isaPipe := "ISA|00|          |00|          |ZZ|SENDER         |ZZ|RECEIVER       |261119|1401|^|00501|000000002|0|P|:~"
	gs := func(v string) string { return "GS*HB*S*R*20261120*0930*1*X*" + v + "~" }
	body := "BHT*0022*11*X*20261119*1401~HL*1**20*1~NM1*PR*2*P~HL*2*1*21*1~NM1*1P*2*C~HL*3*2*22*0~NM1*IL*1*D~EB*1~"
	set := func(st, se string) string { return st + "~" + body + se + "~" }
	return map[string]string{
		"repeated": isa + gs("005010X279A1") + set("ST*271*0001*005010X279A1", "SE*10*0001") +
			set("ST*271*0002*005010X279A1", "SE*10*0002") + set("ST*271*12345678901*005010X279A1", "SE*10*12345678901") +
			set("ST*270*0003*005010X279A1", "SE*10*0003") + set("ST*271*0004*005010X212", "SE*10*0004") +
			set("ST*271*0005", "SE*10*0005") + set("ST*271*0006", "SE*10*0006") + "GE*7*1~IEA*1*000000001~",
		"gs08": isa + gs("005010X279A1") + set("ST*271*0001", "SE*10*0001") + "GE*1*1~" +
			gs("005010X212") + set("ST*271*0002", "SE*10*0002") + set("ST*277*0003", "SE*10*0003") + "GE*2*1~IEA*2*000000001~",
		"st03 changes": isa + gs("X") + set("ST*271*1*005010X279A1", "SE*10*1") + set("ST*271*2*005010X279A1*X", "SE*10*2") +
			set("ST*271*3*005010X279A1", "SE*10*3") + set("ST*271*4*005010X279A", "SE*10*4") + set("ST*271*5*005010X279A12", "SE*10*5") +
			set("ST*271", "SE*10") + set("ST*271*", "SE*10*") + set("ST*271**005010X279A1", "SE*10*") + set("ST*271*7*005010X279A1", "SE*10*7") +
			set("ST*2712*8*005010X279A1", "SE*10*8") + set("ST*27*9*005010X279A1", "SE*10*9") + set("ST", "SE") + set("ST*271*9*005010X279A1", "SE*10*9") +
			"GE*13*1~IEA*1*000000001~",
		"se shapes": isa + gs("005010X279A1") + set("ST*271*0001*005010X279A1", "SE*11*0001") + set("ST*271*0002*005010X279A1", "SE*10*0003") +
			set("ST*271*0003*005010X279A1", "SE*+10*0003") + set("ST*271*0004*005010X279A1", "SE*010*0004") +
			set("ST*271*0005*005010X279A1", "SE*10*0005*") + set("ST*271*0006*005010X279A1", "SE*10*00061") +
			set("ST*271*0007*005010X279A1", "SE*10*000") + set("ST*271*0008*005010X279A1", "SE*0000000010*0008") +
			set("ST*271*0009*005010X279A1", "SE*10") + set("ST*271*0010*005010X279A1", "SE*10*") + set("ST*271*0011*005010X279A1", "SE**0011") +
			set("ST*271*0012*005010X279A1", "SE*1a*0012") + set("ST*271*0013*005010X279A1", "SE*10*0013*X") +
			"GE*13*1~IEA*1*000000001~",
		"two interchanges": isa + gs("005010X279A1") + set("ST*271*0001*005010X279A1", "SE*10*0001") + "GE*1*1~IEA*1*000000001~" +
			isaPipe + strings.ReplaceAll(gs("005010X279A1")+set("ST*271*0001*005010X279A1", "SE*10*0001")+set("ST*271*0002*005010X279A1", "SE*10*0002"), "*", "|") +
			"GE|2|1~IEA|1|000000002~",
		"hl shapes": isa + gs("005010X279A1") + "ST*271*0001*005010X279A1~BHT*0022*11~HL*1**20*1~HL*2*1*21*1~HL*3*2*22*0~HL*4*2*22*0~" +
			"HL*5*1*21~HL*6*4*22~HL*7*9*22~HL*8~HL*9*8~HL~HL*10*1*23*0~HL*11*10*22~HL*123456789*11*22~HL*12*123456789*23~HL*13*12~HL*14**~" +
			"HL*1*1*20~HL*1*1*20~SE*22*0001~GE*1*1~IEA*1*000000001~",
		"hl deep": isa + gs("005010X279A1") + "ST*271*0001*005010X279A1~" + deepHL(20) + "SE*22*0001~GE*1*1~IEA*1*000000001~",
	}
}

// deepHL nests n HLs, each the child of the one before, then names each
// ancestor again.
func deepHL(n int) string {
	var b strings.Builder
	for k := 1; k <= n; k++ {
		b.WriteString("HL*" + strconv.Itoa(k) + "*" + strconv.Itoa(k-1) + "*22~")
	}
	for k := n; k > 0; k-- {
		b.WriteString("HL*" + strconv.Itoa(n+k) + "*" + strconv.Itoa(k) + "*23~")
	}
	return b.String()
}

// FuzzEnvelopeFast: checkFast on any input.
func FuzzEnvelopeFast(f *testing.F) {
	for _, s := range fastCases() {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/*/*.x12")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, "input", data)
	})
}

// packCodeAt, which openHL reads HL03 with, packs an element read in
// place as packCode packs it found first: codes of every length, followed
// by another element or ending the segment.
func TestPackCodeAt(t *testing.T) {
	for _, code := range []string{"", "2", "20", "EV", "200", "2000", "20000"} {
		for _, rest := range []string{"", "*1", "*"} {
			seg := "HL*3*2*" + code + rest
			c := len("HL*3*2*")
			if got, want := packCodeAt(seg, c, len(seg), '*'), packCode(code); got != want {
				t.Errorf("%q: packCodeAt %#x, packCode %#x", seg, got, want)
			}
		}
	}
	// Past the segment's end (an HL without HL03): no code.
	if got := packCodeAt("HL*3*2", len("HL*3*2")+1, len("HL*3*2"), '*'); got != 0 {
		t.Errorf("past the end: %#x", got)
	}
}
