package x12_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/x12"
)

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, name string) *x12.Interchange {
	t.Helper()
	x, err := x12.Parse(mustRead(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}

func TestDelimiters(t *testing.T) {
	tests := []struct {
		file string
		want x12.Delimiters
	}{
		{"corpus/lfh_271_dependent.x12", x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}},
		{"corpus/lfh_270_pipe_elements_question_terminator.x12", x12.Delimiters{Element: '|', Repetition: '^', Component: ':', Segment: '?'}},
		{"corpus/imsweb_837p_tilde_elements_underscore_terminator.x12", x12.Delimiters{Element: '~', Component: '^', Segment: '_'}}, // ISA11 is U
		{"corpus/imsweb_270_4010.x12", x12.Delimiters{Element: '*', Component: ':', Segment: '~'}},                                  // 00401: no repetition separator
		{"corpus/imsweb_277ca_rejected.x12", x12.Delimiters{Element: '*', Repetition: '^', Component: '|', Segment: '~'}},
		{"corpus/stupidedi_278_admission_request.x12", x12.Delimiters{Element: '*', Repetition: '>', Component: ':', Segment: '~'}},
		{"own/pipe_bang_newline_271.x12", x12.Delimiters{Element: '|', Repetition: '!', Component: '>', Segment: '\n'}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			if got := mustParse(t, tt.file).Delimiters(); got != tt.want {
				t.Errorf("got %+q, want %+q", got, tt.want)
			}
		})
	}
}

// isa builds an ISA segment with the given element separator, ISA11,
// version and ISA16, and the terminator term.
func isa(sep, rep byte, version string, comp, term byte) string {
	f := []string{"ISA", "00", "          ", "00", "          ", "ZZ", "SENDER         ", "ZZ", "RECEIVER       ",
		"261120", "0930", string(rep), version, "000000001", "0", "P", string(comp)}
	return strings.Join(f, string(sep)) + string(term)
}

func TestRepetitionSeparator(t *testing.T) {
	tests := []struct {
		name    string
		rep     byte
		version string
		want    byte
	}{
		{"5010 caret", '^', "00501", '^'},
		{"4010 caret is not a separator", '^', "00401", 0},
		{"4020 caret", '^', "00402", '^'},
		{"5010 letter U", 'U', "00501", 0},
		{"5010 digit", '7', "00501", 0},
		{"5010 space", ' ', "00501", 0},
		{"same as ISA16", ':', "00501", ':'}, // DESIGN 12.10: it splits both ways, with a finding
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := x12.ParseString(isa('*', tt.rep, tt.version, ':', '~') + "IEA*0*000000001~")
			if err != nil {
				t.Fatal(err)
			}
			if got := x.Delimiters().Repetition; got != tt.want {
				t.Errorf("repetition %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	good := isa('*', '^', "00501", ':', '~')
	tests := []struct {
		name   string
		input  string
		offset int
		msg    string
	}{
		{"empty", "", 0, "no ISA segment"},
		{"not X12", "MSH|^~\\&|APP", 0, `this input starts with "MSH|^~\\&|APP"`},
		{"GS first", "GS*HS*A*B~", 0, "no ISA segment"},
		{"white space then garbage", "\r\n  \x00\x01", 4, "no ISA segment"},
		{"ISA02 short", strings.Replace(good, "*          *00", "*         *00", 1), 7, "ISA02 is 9 characters, not 10"},
		{"ISA06 long", strings.Replace(good, "SENDER         ", "SENDER          ", 1), 35, "ISA06 is 16 characters, not 15"},
		{"truncated ISA", good[:60], 54, "the input ends inside ISA08"},
		{"ISA without ISA16", good[:103], 102, "the input ends inside ISA15"},
		{"ISA without terminator", good[:105], 0, "ends inside the ISA"},
		{"too few elements", "ISA*00*" + strings.Repeat("x", 200), 7, "ISA02 does not end"},
		{"component equals terminator", isa('*', '^', "00501", '~', '~'), 0, "must differ"},
		{"component equals element", isa('*', '^', "00501", '*', '~'), 0, "must differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := x12.ParseString(tt.input)
			var se *x12.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, %v; want a *SyntaxError", x, err)
			}
			if se.Offset != tt.offset || !strings.Contains(se.Error(), tt.msg) {
				t.Errorf("got %q at %d, want %q at %d", se.Error(), se.Offset, tt.msg, tt.offset)
			}
		})
	}
}

// envelope wraps transaction-set segments (ST to SE) in a GS and ISA with
// correct counts and control numbers.
func envelope(sets ...string) string {
	return isa('*', '^', "00501", ':', '~') + "GS*HB*S*R*20261120*0930*7*X*005010X279A1~" + strings.Join(sets, "") +
		"GE*" + string(rune('0'+len(sets))) + "*7~IEA*1*000000001~"
}

const tx271 = "ST*271*0001*005010X279A1~BHT*0022*11*T1*20261120*0930~HL*1**20*1~NM1*PR*2*PAYER*****PI*1~" +
	"HL*2*1*21*1~NM1*1P*2*CLINIC*****XX*2~HL*3*2*22*0~NM1*IL*1*DOE*JANE****MI*W1~EB*1**30~SE*10*0001~"

func TestFindings(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // each finding's String must contain the next entry
	}{
		{"clean", envelope(tx271), nil},
		{"wrong SE01", envelope(strings.Replace(tx271, "SE*10", "SE*11", 1)),
			[]string{`1:322: segment 12: SE: SE01 counts "11" segments, but transaction set "0001" has 10 from ST to SE`}},
		{"SE01 not a number", envelope(strings.Replace(tx271, "SE*10", "SE*X", 1)), []string{`SE01 counts "X" segments`}},
		{"wrong SE02", envelope(strings.Replace(tx271, "SE*10*0001", "SE*10*0002", 1)), []string{`SE02 "0002" does not match ST02 "0001"`}},
		{"wrong GE01", strings.Replace(envelope(tx271), "GE*1", "GE*2", 1), []string{`GE01 counts "2" transaction sets, but group "7" has 1`}},
		{"wrong GE02", strings.Replace(envelope(tx271), "GE*1*7", "GE*1*8", 1), []string{`GE02 "8" does not match GS06 "7"`}},
		{"GE02 zero padded", strings.Replace(envelope(tx271), "GE*1*7", "GE*1*0007", 1), nil},
		{"wrong IEA01", strings.Replace(envelope(tx271), "IEA*1", "IEA*3", 1), []string{`IEA01 counts "3" functional groups, but interchange "000000001" has 1`}},
		{"wrong IEA02", strings.Replace(envelope(tx271), "IEA*1*000000001", "IEA*1*000000002", 1), []string{`IEA02 "000000002" does not match ISA13 "000000001"`}},
		{"missing SE", envelope(strings.Replace(tx271, "SE*10*0001~", "", 1)), []string{`1:322: segment 12: GE: transaction set "0001" (ST at segment 3) has no SE`}},
		{"two ST without SE", envelope(strings.Replace(tx271, "SE*10*0001~", "", 1), tx271),
			[]string{`1:322: segment 12: ST: transaction set "0001" (ST at segment 3) has no SE`}},
		{"missing GE", strings.Replace(envelope(tx271), "GE*1*7~", "", 1), []string{`1:333: segment 13: IEA: functional group "7" (GS at segment 2) has no GE`}},
		{"missing IEA", strings.TrimSuffix(envelope(tx271), "IEA*1*000000001~"),
			[]string{`1:340: segment 13: GE: the input ends before the IEA of interchange "000000001" (ISA at segment 1)`}},
		{"truncated inside a transaction set", envelope(tx271)[:200], []string{"no segment terminator", "ends before the SE", "ends before the GE", "ends before the IEA"}},
		{"missing final terminator", strings.TrimSuffix(envelope(tx271), "~"), []string{`1:340: segment 14: IEA: the last segment has no segment terminator '~'`}},
		{"segment outside a transaction set", strings.Replace(envelope(tx271), "GE*", "REF*X*1~GE*", 1), []string{`1:333: segment 13: REF: REF outside a transaction set`}},
		{"ST outside a group", isa('*', '^', "00501", ':', '~') + tx271 + "IEA*0*000000001~", []string{"1:107: segment 2: ST: ST outside a functional group: no GS is open"}},
		{"GS outside an interchange", envelope(tx271) + "GS*HB*S*R*20261120*0930*8*X*005010X279A1~GE*0*8~", []string{"1:356: segment 15: GS: GS outside an interchange: no ISA is open"}},
		{"trailers without headers", envelope(tx271) + "SE*1*1~IEA*1*1~", []string{"SE without an open ST", "IEA without an open ISA"}},
		{"bad segment identifier", envelope(strings.Replace(tx271, "EB*1", "eb*1", 1)), []string{`"eb" is not a segment identifier`}},
		{"HL parent unknown", envelope(strings.Replace(tx271, "HL*3*2*22", "HL*3*9*22", 1)), []string{`segment 9: HL: HL02 names parent "9", which no earlier HL of this transaction set has`}},
		{"unreadable later ISA", envelope(tx271) + "ISA*00*short~", []string{"an ISA that cannot be read", "IEA"}},
		{"GS while a transaction set is open", strings.Replace(envelope(tx271), "SE*10*0001~GE*1*7~IEA*1*000000001~", "", 1) + "GS*HB*S*R*20261120*0930*8*X*005010X279A1~GE*0*8~IEA*2*000000001~",
			[]string{`1:322: segment 12: GS: transaction set "0001" (ST at segment 3) has no SE`, `1:322: segment 12: GS: functional group "7" (GS at segment 2) has no GE`}},
		{"IEA while a transaction set is open", strings.Replace(envelope(tx271), "SE*10*0001~GE*1*7~", "", 1),
			[]string{`1:322: segment 12: IEA: transaction set "0001" (ST at segment 3) has no SE`, `1:322: segment 12: IEA: functional group "7"`}},
		{"ISA while everything is open", strings.Replace(envelope(tx271), "SE*10*0001~GE*1*7~IEA*1*000000001~", "", 1) + envelope(tx271),
			[]string{`1:322: segment 12: ISA: transaction set "0001"`, `1:322: segment 12: ISA: functional group "7"`, `1:322: segment 12: ISA: interchange "000000001" (ISA at segment 1) has no IEA`}},
		{"blanks after terminators", strings.ReplaceAll(envelope(tx271), "~", "~ \t \r\n"), nil},
		{"TA1 inside the interchange", strings.Replace(envelope(tx271), "GS*", "TA1*000000001*261120*0930*A*000~GS*", 1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := x12.ParseString(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			got := x.Findings()
			if len(got) < len(tt.want) || len(tt.want) == 0 && len(got) > 0 {
				t.Fatalf("findings %v, want %q", got, tt.want)
			}
			k := 0
			for _, f := range got {
				if k < len(tt.want) && strings.Contains(f.String(), tt.want[k]) {
					k++
				}
			}
			if k < len(tt.want) {
				t.Errorf("findings %v\ndo not contain, in order, %q", got, tt.want)
			}
			if _, err := x12.ParseString(tt.input, x12.Strict()); (err != nil) != (len(tt.want) > 0) {
				t.Errorf("strict parse: %v", err)
			}
		})
	}
}

func TestStrict(t *testing.T) {
	data := mustRead(t, "corpus/lfh_270_bad_se_segment_count.x12")
	x, err := x12.Parse(data, x12.Strict())
	var fe *x12.FindingsError
	if !errors.As(err, &fe) || x != nil {
		t.Fatalf("got %v, %v; want a *FindingsError", x, err)
	}
	if len(fe.Findings) != 1 || fe.Findings[0].Segment != 19 || fe.Findings[0].ID != "SE" || fe.Findings[0].Line != 19 {
		t.Errorf("findings %+v", fe.Findings)
	}
	if !strings.Contains(err.Error(), `SE01 counts "27" segments, but transaction set "0001" has 17`) {
		t.Errorf("error %q", err)
	}
	if _, err := x12.Parse(mustRead(t, "corpus/lfh_270_simple_newlines.x12"), x12.Strict()); err != nil {
		t.Errorf("a clean file: %v", err)
	}
}

func TestLineBreaksAfterTerminators(t *testing.T) {
	flat := envelope(tx271)
	for _, nl := range []string{"\n", "\r\n", "\r", "\r\n\r\n"} {
		x, err := x12.ParseString(strings.ReplaceAll(flat, "~", "~"+nl))
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Findings()) > 0 || x.Len() != 14 {
			t.Errorf("%q: %d segments, findings %v", nl, x.Len(), x.Findings())
		}
		if got := x.Segment(13).String(); got != "IEA*1*000000001" {
			t.Errorf("%q: last segment %q", nl, got)
		}
	}
}

func TestLeadingBOMAndWhiteSpace(t *testing.T) {
	x, err := x12.ParseString("\uFEFF\r\n  " + envelope(tx271))
	if err != nil || len(x.Findings()) > 0 {
		t.Fatalf("%v %v", err, x.Findings())
	}
	if x.Segment(0).Offset() != 7 {
		t.Errorf("ISA at %d", x.Segment(0).Offset())
	}
}

func TestTransactions(t *testing.T) {
	x := mustParse(t, "own/multi_group_crlf.x12")
	if len(x.Findings()) > 0 {
		t.Fatalf("findings %v", x.Findings())
	}
	want := []x12.Transaction{
		{Code: "271", Control: "0001", Version: "005010X279A1", Start: 2, End: 12},
		{Code: "271", Control: "0002", Version: "005010X279A1", Start: 13, End: 23},
		{Code: "277", Control: "0003", Version: "005010X212", Start: 26, End: 42},
	}
	got := x.Transactions()
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("transaction %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	// A missing ST03 falls back to the group's GS08.
	y, _ := x12.ParseString(envelope(strings.Replace(tx271, "ST*271*0001*005010X279A1", "ST*271*0001", 1)))
	if v := y.Transactions()[0].Version; v != "005010X279A1" {
		t.Errorf("version %q", v)
	}
}

func TestTwoInterchanges(t *testing.T) {
	x := mustParse(t, "own/two_interchanges.x12")
	if len(x.Findings()) > 0 {
		t.Fatalf("findings %v", x.Findings())
	}
	txs := x.Transactions()
	if len(txs) != 2 || txs[0].Code != "270" || txs[1].Code != "271" {
		t.Fatalf("transactions %+v", txs)
	}
	// The second interchange has its own delimiters.
	got, _ := x.Get("EB(1)03[3]")
	if len(got) != 1 || got[0] != "73" {
		t.Errorf("EB(1)03[3] = %q", got)
	}
	if got, _ := x.Get("ISA(2)11"); len(got) != 1 || got[0] != "!" {
		t.Errorf("ISA(2)11 = %q", got)
	}
}

func TestSegment(t *testing.T) {
	x := mustParse(t, "own/janedoe_271.x12")
	s := x.Segment(13)
	if s.ID() != "EB" || s.String() != "EB*1*IND*30^4^73*HM*ACME GOLD HMO" || s.Index() != 13 {
		t.Fatalf("segment 13: %q %q", s.ID(), s)
	}
	if v, ok := s.Element(3); !ok || v != "30^4^73" {
		t.Errorf("EB03 = %q, %v", v, ok)
	}
	if _, ok := s.Element(6); ok {
		t.Error("EB06 is past the end of the segment")
	}
	if _, ok := s.Element(0); ok {
		t.Error("element 0 exists")
	}
	if s.Loop() != "2110C" || s.LoopPath() != "2000A/2000B/2000C/2100C/2110C" {
		t.Errorf("loop %q, path %q", s.Loop(), s.LoopPath())
	}
	if l := x.Segment(0); l.Loop() != "" || l.LoopPath() != "" {
		t.Errorf("ISA loop %q", l.Loop())
	}
	defer func() {
		if recover() == nil {
			t.Error("Segment out of range did not panic")
		}
	}()
	x.Segment(x.Len())
}

// TestCorpus parses every sample: the broken ones fail as their names say,
// the others parse, and the findings are the ones the samples really have.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.x12")
	wantFindings := map[string]int{
		"imsweb_270_4010.x12":                                  3, // SE01, SE02 padding, IEA02
		"imsweb_271_4010.x12":                                  2, // SE01, IEA02
		"imsweb_277_x212.x12":                                  1, // IEA02
		"imsweb_837p_segment_errors.x12":                       1, // SE01
		"imsweb_837p_valid.x12":                                1, // SE01 of the sample is 25 for 34 segments
		"imsweb_837p_tilde_elements_underscore_terminator.x12": 1,
		"lfh_270_bad_se_segment_count.x12":                     1,
		"lfh_271_subscriber_aaa_rejection.x12":                 1, // SE02 4323 for ST02 4321
		"stupidedi_278_admission_request.x12":                  1, // SE01 25 for 26 segments
		"stupidedi_278_home_health_request.x12":                1,
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			x, err := x12.Parse(mustRead(t, "corpus/"+name))
			if strings.Contains(name, "_bad_isa") || strings.Contains(name, "_bad_missing_isa") {
				var se *x12.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want a *SyntaxError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(x.Findings()); got != wantFindings[name] {
				t.Errorf("%d findings, want %d: %v", got, wantFindings[name], x.Findings())
			}
			if len(x.Transactions()) == 0 {
				t.Error("no transaction sets")
			}
		})
	}
}
