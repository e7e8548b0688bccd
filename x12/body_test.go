package x12

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testFiles are the interchanges of testdata.
func testFiles(t testing.TB) [][]byte {
	t.Helper()
	corpus, _ := filepath.Glob("testdata/corpus/*.x12")
	own, _ := filepath.Glob("testdata/own/*.x12")
	var out [][]byte
	for _, name := range append(corpus, own...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	if len(out) == 0 {
		t.Fatal("no interchanges in testdata")
	}
	return out
}

// parseBoth parses s with body reading the transaction set bodies and
// without it (run reading every segment itself), and fails when the two
// differ in anything the parse produces.
func parseBoth(t *testing.T, s string) {
	t.Helper()
	withBody, err1 := ParseString(s)
	without, err2 := ParseString(s, withoutBody())
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("errors differ: with body %v, without %v", err1, err2)
	}
	if err1 != nil {
		return
	}
	type parsed struct {
		N        int
		Marks    []isaMark
		Delims   []Delimiters
		Sets     []int32
		Groups   []int32
		Findings []Finding
		Segs     []segment
		Loops    []loop
	}
	view := func(x *Interchange) parsed {
		return parsed{x.nsegs, x.marks, x.delims, x.sets, x.groups, x.findings, x.index.segs, x.index.loops}
	}
	if a, b := view(withBody), view(without); !reflect.DeepEqual(a, b) {
		t.Fatalf("the parse with body differs from run's own:\nwith body %+v\nwithout   %+v", a, b)
	}
}

// TestBodyLoop compares body with run's own reading on the test data and
// on the edge cases body leaves to run: white space that is the
// terminator, a doubled terminator, segments without elements, an "IS"
// segment when the element separator is "A", identifiers that are not
// valid, a segment without its terminator, and line breaks of every kind.
func TestBodyLoop(t *testing.T) {
	for _, data := range testFiles(t) {
		parseBoth(t, string(data))
	}
	isa := "ISA*00*          *00*          *ZZ*PAYERUMO       *ZZ*CLINICSUBMIT   *261119*1401*^*00501*000009700*0*P*:~"
	body := "GS*HB*A*B*20261120*0930*9700*X*005010X279A1~ST*271*2001*005010X279A1~BHT*0022*11~HL*1**20*1~NM1*PR*2*ACME~HL*2*1*21*1~NM1*1P*2*X~HL*3*2*22*0~TRN*2*E~NM1*IL*1*DOE~DMG*D8*1~EB*1*IND~EB*C~III*ZZ*22~LS*2120~NM1*X3*2~PER*IC~LE*2120~SE*19*2001~GE*1*9700~IEA*1*000009700~"
	// An ISA without the letter A, which serves as its element separator.
	isaNoA := strings.ReplaceAll(isa, "PAYERUMO", "PBYERUMO")
	cases := []string{
		isa + body,
		isa + strings.ReplaceAll(body, "~", "~\n"),
		isa + strings.ReplaceAll(body, "~", "~\r\n"),
		isa + strings.ReplaceAll(body, "~", "~ \t\n\n"),
		isa + strings.ReplaceAll(body, "~", "~~"),
		isa + strings.ReplaceAll(body, "DMG*D8*1~", "DMG~DM~D~~"),
		isa + strings.ReplaceAll(body, "DMG*D8*1~", "dmg*1~1MG*2~DMGX*3~D*4~"),
		isa + strings.ReplaceAll(body, "HL*3*2*22*0~", "HL*3*9*22*0~"),
		isa + strings.TrimSuffix(body, "~"),
		isa + strings.ReplaceAll(body, "IEA*1*000009700~", "IEA*1*000009700"),
		strings.ReplaceAll(isa, "~", "\n") + strings.ReplaceAll(body, "~", "\n"),
		strings.ReplaceAll(isa, "~", "\n") + strings.ReplaceAll(body, "~", "\n\n"),
		strings.ReplaceAll(isa+body, "*", "A"),
		strings.ReplaceAll(isa+body, "*", "A") + "ISA~",
		strings.ReplaceAll(isaNoA+strings.ReplaceAll(body, "DMG*D8*1~", isaNoA), "*", "A"),
		strings.ReplaceAll(isaNoA+strings.ReplaceAll(body, "DMG*D8*1~", "ISA~ISAB~"), "*", "A"),
		isa + strings.ReplaceAll(body, "DMG*D8*1~", isa),
		isa + strings.Repeat(strings.ReplaceAll(body, "EB*C~", strings.Repeat("MSG*XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX~", 40)), 3),
		isa + strings.Repeat(body, 50),
	}
	for _, c := range cases {
		parseBoth(t, c)
	}
}

// FuzzBody: body reads every input as run's own reading does.
func FuzzBody(f *testing.F) {
	for _, data := range testFiles(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parseBoth(t, string(data))
	})
}
