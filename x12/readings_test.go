package x12_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/x12"
)

// The readings of real files that DESIGN 5 and 12.10 settle (issue 10
// items 13, 14 and 18); each test fails without its rule.

// A loop scopes to its own instances and the loops nested in them, by the
// HL hierarchy, not by position: in hl_out_of_order_271.x12 the 2000C of
// HL*6 belongs to the first 2000B although it comes after the second.
func TestLoopScopeOutOfOrderHL(t *testing.T) {
	x := mustParse(t, "own/hl_out_of_order_271.x12")
	if len(x.Findings()) > 0 {
		t.Fatalf("findings %v", x.Findings())
	}
	tests := []struct {
		path string
		want []string
	}{
		{"2000B(1)/NM1[IL](*)03", vals("ALPHA", "CHARLIE")},
		{"2000B(2)/NM1[IL](*)03", vals("BRAVO")},
		{"2000B(1)/EB(*)01", vals("1", "1")},
		{"2000B(2)/EB01", vals("6")},
		{"2000B(1)/2100C(2)/NM103", vals("CHARLIE")},
		{"2000B(1)/NM1(*)03", vals("FIRST CLINIC", "ALPHA", "CHARLIE")},
		{"2000B/NM1[IL](*)03", vals("ALPHA", "BRAVO", "CHARLIE")}, // every 2000B: document order, each once
		{"2000B(2)/2000C(2)/NM103", nil},
	}
	for _, tt := range tests {
		got, err := x.Get(tt.path)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s = %q (%v), want %q", tt.path, got, err, tt.want)
		}
	}
}

// A loop without an occurrence, or with (*), stands for every instance of
// it; a segment occurrence counts across them (DESIGN 5, issue 10 item 13).
func TestEveryLoopInstance(t *testing.T) {
	tests := []struct {
		file, path string
		want       []string
	}{
		{"own/janedoe_271.x12", "2110C/EB(*)01", vals("1", "C", "A", "1")},
		{"own/janedoe_271.x12", "2110C/EB(3)01", vals("A")},
		{"own/janedoe_271.x12", "2110C(*)/EB(2)01", vals("C")},
		{"own/janedoe_271.x12", "2110C(3)/EB(2)01", nil},
		{"corpus/lfh_276_claim_level.x12", "2100D/NM1[IL](*)03", vals("SMITH", "JONES", "MANN")},
		{"corpus/lfh_276_claim_level.x12", "2100D/NM1[IL](2)03", vals("JONES")},
		{"corpus/lfh_276_provider_level.x12", "2100D/NM1[IL](*)03", vals("SMITH", "MANN")},
		{"own/multi_group_crlf.x12", "2000C/NM1[IL](*)09", vals("W123456789", "W555000111", "W123456789")},
	}
	for _, tt := range tests {
		got, err := mustParse(t, tt.file).Get(tt.path)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s %s = %q (%v), want %q", tt.file, tt.path, got, err, tt.want)
		}
	}
}

// When ISA11 equals ISA16 (from 00402 on) the envelope gets a finding and
// the character splits both ways (DESIGN 12.10, issue 10 item 14).
func TestRepetitionSameAsComponent(t *testing.T) {
	x := mustParse(t, "own/isa11_same_as_isa16_271.x12")
	if d := x.Delimiters(); d.Repetition != ':' || d.Component != ':' {
		t.Errorf("delimiters %+v", d)
	}
	if f := x.Findings(); len(f) != 1 || f[0].ID != "ISA" || f[0].Segment != 1 || !strings.Contains(f[0].Message, "ISA11") {
		t.Errorf("findings %v", f)
	}
	tests := []struct {
		path string
		want []string
	}{
		{"EB03", vals("30:4:73")},
		{"EB03[1]", vals("30")},
		{"EB03[2]", vals("4")},
		{"EB03-2", vals("4")},
		{"EB03[2]-1", vals("4")},
		{"EB03[2]-2", nil},
		{"EB03[*]", vals("30", "4", "73")},
		{"EB03[*]-1", vals("30", "4", "73")},
		{"EB03[4]", nil},
		{"EB03-4", nil},
		{"EB(2)03", vals("4")},
		{"2110C/EB03[3]", vals("73")},
	}
	for _, tt := range tests {
		got, err := x.Get(tt.path)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s = %q (%v), want %q", tt.path, got, err, tt.want)
		}
	}
	// Before 00402 ISA11 is no separator: no finding, no repetitions.
	old, err := x12.ParseString(isa('*', ':', "00401", ':', '~') + "IEA*0*000000001~")
	if err != nil || old.Delimiters().Repetition != 0 || len(old.Findings()) != 0 {
		t.Errorf("4010: %+v %v %v", old.Delimiters(), old.Findings(), err)
	}
}

// Findings in a file whose lines end at CR alone count lines (issue 10
// item 18).
func TestFindingLineColumnCROnly(t *testing.T) {
	x := mustParse(t, "own/cr_only_bad_se_271.x12")
	f := x.Findings()
	if len(f) != 1 || f[0].Line != 24 || f[0].Column != 1 || f[0].Segment != 24 {
		t.Fatalf("findings %+v", f)
	}
	if !strings.HasPrefix(f[0].String(), "24:1: segment 24: SE: SE01 counts") {
		t.Errorf("rendered %q", f[0])
	}
	// CRLF counts once; a finding on a later line of a CRLF file.
	crlf, err := x12.ParseString(strings.ReplaceAll(envelope(strings.Replace(tx271, "SE*10", "SE*11", 1)), "~", "~\r\n"))
	if err != nil || len(crlf.Findings()) != 1 || crlf.Findings()[0].Line != 12 {
		t.Errorf("CRLF: %v %v", crlf.Findings(), err)
	}
}

// A byte-order mark and white space before the ISA are skipped, and the
// ISA's 106 characters count from its I (DESIGN 12.10).
func TestPreambleBeforeISA(t *testing.T) {
	x := mustParse(t, "own/bom_blank_lines_271.x12")
	if len(x.Findings()) > 0 || x.Segment(0).Offset() != 8 || x.Segment(0).ID() != "ISA" {
		t.Fatalf("findings %v, ISA at %d", x.Findings(), x.Segment(0).Offset())
	}
	_, err := x12.ParseString("\uFEFF\n" + strings.Replace(isa('*', '^', "00501", ':', '~'), "          ", "         ", 1))
	var se *x12.SyntaxError
	if !errors.As(err, &se) || se.Offset != 11 || !strings.Contains(se.Msg, "ISA02 is 9 characters") || se.Location.Line != 2 || se.Location.Column != 8 {
		t.Errorf("got %v", err)
	}
}

// Loop paths exist only for the guides DESIGN 5 names, chosen by ST03 or
// GS08; elsewhere a loop path reads nothing, and PathWarning says why
// (DESIGN 12.10). Loop-free paths work on any X12 file.
func TestLoopsOnlyForGuides(t *testing.T) {
	tests := []struct {
		file, path string
		want       []string
		warn       string
	}{
		{"corpus/lfh_837p_example1.x12", "CLM01", vals("26463774"), ""},
		{"corpus/lfh_837p_example1.x12", "2300/CLM01", nil, `837 "0021" (005010X222A2) has none`},
		{"own/janedoe_271.x12", "2300/CLM01", nil, "names loop 2300, which none of the 5010 guides"},
		{"corpus/lfh_837p_example1.x12", "2000A/NM101", nil, `transaction set 837 "0021"`},
		{"corpus/imsweb_270_4010.x12", "2110C/EQ01", nil, "004010X092A1"},
		{"corpus/imsweb_270_4010.x12", "EQ01", vals("30"), ""},
		{"corpus/imsweb_271_4010.x12", "2120C/NM103", vals("JONES"), ""}, // ST03 names X279
		{"own/janedoe_271.x12", "2100C/NM103", vals("DOE"), ""},
	}
	for _, tt := range tests {
		x := mustParse(t, tt.file)
		p := x12.MustParsePath(tt.path)
		if got := p.Values(x); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s = %q, want %q", tt.file, tt.path, got, tt.want)
		}
		if w := x.PathWarning(p); tt.warn == "" && w != "" || !strings.Contains(w, tt.warn) {
			t.Errorf("%s %s: warning %q, want %q", tt.file, tt.path, w, tt.warn)
		}
	}
}

// A loop-free path reads the same by a scan of the input (before anything
// builds the segment index) as through the index.
func TestScanAndIndexAgree(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.x12")
	paths := []string{"ST(*)02", "ST(2)01", "SE(*)01", "NM1(*)03", "NM1[IL]09", "EB(*)03[*]", "HL(3)03",
		"ISA13", "IEA(*)02", "GS08", "HI01-2", "SVC(*)01-2", "TRN(2)02", "REF[EJ]02", "DTP(*)03"}
	for _, file := range files {
		rel := filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file))
		scanned, err := x12.Parse(mustRead(t, rel))
		if err != nil {
			continue
		}
		indexed, _ := x12.Parse(mustRead(t, rel))
		_ = indexed.Segment(0) // builds the index
		for _, s := range paths {
			p := x12.MustParsePath(s)
			if a, b := p.Values(scanned), p.Values(indexed); !slices.Equal(a, b) {
				t.Errorf("%s %s: scan %q, index %q", rel, s, a, b)
			}
		}
	}
}

// A large interchange builds its index on first use, once, however many
// goroutines read it at the same time (run with -race).
func TestLazyIndexConcurrent(t *testing.T) {
	data := largeInterchange(t, 2000) // over the size indexed while parsing
	x, err := x12.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"2000C(2000)/NM1[IL]09", "ST(1500)02", "EB(*)01", "2110C/EB(5)01", "SE(7)01"}
	want := make([][]string, len(paths))
	fresh, _ := x12.Parse(data)
	_ = fresh.Segment(0)
	for i, s := range paths {
		want[i], _ = fresh.Get(s)
	}
	done := make(chan []string, 8*len(paths))
	for g := 0; g < 8; g++ {
		go func() {
			for _, s := range paths {
				v, _ := x.Get(s)
				done <- v
			}
		}()
	}
	got := map[string]int{}
	for range 8 * len(paths) {
		got[strings.Join(<-done, ",")]++
	}
	for i := range paths {
		if got[strings.Join(want[i], ",")] != 8 {
			t.Errorf("%s: readings %v, want %q eight times", paths[i], got, want[i])
		}
	}
	if len(x.Transactions()) != 2000 || x.Transactions()[1999].Control != "1999" {
		t.Errorf("transactions %d", len(x.Transactions()))
	}
}
