package x12_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/assaykit/assay/x12"
)

// vals is shorthand for the values a path selects; nil means none.
func vals(v ...string) []string { return v }

func TestPaths(t *testing.T) {
	tests := []struct {
		file, path string
		want       []string
	}{
		// The examples of SYNTAX.md.
		{"own/janedoe_271.x12", "BHT03", vals("ELIG-0417")},
		{"own/janedoe_271.x12", "NM1[IL]09", vals("W123456789")},
		{"own/janedoe_271.x12", "NM1(3)03", vals("DOE")},
		{"own/janedoe_271.x12", "2100C/NM1[IL]03", vals("DOE")},
		{"own/janedoe_271.x12", "2110C/EB01", vals("1")},
		{"own/janedoe_271.x12", "EB03", vals("30")},
		{"own/janedoe_271.x12", "EB03[2]", vals("4")},
		{"own/janedoe_271.x12", "EB03[*]", vals("30", "4", "73")},
		{"own/janedoe_271.x12", "EB(*)03", vals("30", "4", "4", "4")},
		{"own/janedoe_271.x12", "EB(*)11", vals("Y")},
		{"own/janedoe_271.x12", "ISA06", vals("PAYERUMO       ")},
		{"own/janedoe_271.x12", "ISA11", vals("^")},
		{"own/janedoe_271.x12", "ISA16", vals(":")},
		{"own/janedoe_271.x12", "ISA16-1", vals(":")},
		{"own/janedoe_271.x12", "ISA16-2", nil},
		{"own/janedoe_271.x12", "GS08", vals("005010X279A1")},
		{"own/janedoe_278_request.x12", "HI01-2", vals("M5416")},
		{"own/janedoe_278_request.x12", "HI02", vals("ABF:M5126")},
		{"corpus/lfh_276_claim_level.x12", "SVC01", vals("HC:99203")},
		{"corpus/lfh_276_claim_level.x12", "SVC01-2", vals("99203")},
		{"corpus/lfh_276_claim_level.x12", "SVC01-3", nil},

		// Loops: scoping, occurrences, nesting.
		{"own/janedoe_271.x12", "2000C/2110C/EB01", vals("1")},
		{"own/janedoe_271.x12", "2000C/2100C/2110C(2)/EB01", vals("C")}, // each EB opens a 2110C
		{"own/janedoe_271.x12", "2110C(4)/MSG01", vals("PRIOR AUTHORIZATION REQUIRED FOR ADVANCED IMAGING")},
		// A loop without an occurrence, or with (*), stands for every
		// instance; the segment occurrence counts across them (DESIGN 5).
		{"own/janedoe_271.x12", "2110C/MSG01", vals("PRIOR AUTHORIZATION REQUIRED FOR ADVANCED IMAGING")},
		{"own/janedoe_271.x12", "2110C(1)/MSG01", nil},
		{"own/janedoe_271.x12", "2110C/EB(2)01", vals("C")},
		{"own/janedoe_271.x12", "2110C(1)/EB(2)01", nil},
		{"own/janedoe_271.x12", "2110C/EB(*)01", vals("1", "C", "A", "1")},
		{"own/janedoe_271.x12", "2110C(*)/EB01", vals("1")},
		{"own/janedoe_271.x12", "2110C(*)/EB(*)01", vals("1", "C", "A", "1")},
		{"own/janedoe_271.x12", "2110C(5)/EB01", nil},
		{"own/janedoe_271.x12", "2120C/NM103", vals("ACME UTILIZATION MANAGEMENT")},
		{"own/janedoe_271.x12", "2120C/PER04", vals("8005551234")},
		{"own/janedoe_271.x12", "2115C/III02", vals("22")},
		{"own/janedoe_271.x12", "2100C/NM1(2)03", vals("ACME UTILIZATION MANAGEMENT")}, // 2120C is nested in 2100C
		{"own/janedoe_271.x12", "2100A/NM103", vals("ACME HEALTH PLAN")},
		{"own/janedoe_271.x12", "2100B/NM103", vals("SPRINGFIELD SPINE CLINIC")},
		{"own/janedoe_271.x12", "2000A/NM1(*)01", vals("PR", "1P", "IL", "X3")}, // every loop nests in 2000A
		{"own/janedoe_271.x12", "2000B/NM101", vals("1P")},
		{"own/janedoe_271.x12", "2000C/TRN02", vals("ELIG-0417")},
		{"own/janedoe_271.x12", "2100C/TRN02", nil}, // TRN is in 2000C, before 2100C
		{"own/janedoe_271.x12", "2100D/NM103", nil},
		{"own/janedoe_271.x12", "2300/CLM01", nil},
		{"corpus/lfh_271_dependent.x12", "2000C/NM1[03]03", vals("SMITH")}, // 2000D nests in its parent 2000C
		{"corpus/lfh_271_dependent.x12", "2000D/2100D/NM104", vals("MARY")},
		{"corpus/lfh_271_dependent.x12", "2120D/NM103", vals("JONES")},
		{"corpus/lfh_271_dependent.x12", "2110D(3)/EB03[10]", vals("UC")},
		{"corpus/lfh_271_dependent.x12", "2110D/EB(*)07", vals("10.00", "30.00")},
		{"corpus/lfh_271_dependent.x12", "2110C/EB01", nil},
		{"corpus/imsweb_277_x212.x12", "2000D(3)/TRN02", vals("0000003")},
		{"corpus/imsweb_277_x212.x12", "2000A(2)/2100D/NM104", vals("JOHNONE")},
		{"corpus/imsweb_277_x212.x12", "2000D/2200D/STC(*)01-2", vals("704", "704", "704", "704", "704", "704", "704", "704")},
		{"corpus/imsweb_277_x212.x12", "2200D(8)/STC04", vals("100")},
		{"corpus/imsweb_277_x212.x12", "2200D(9)/STC04", nil},
		{"corpus/lfh_277_claim_level.x12", "2200E/STC01", vals("F2:88:QC")},
		{"corpus/lfh_277_claim_level.x12", "2220E/STC01-1", vals("F2")},
		{"corpus/lfh_277_claim_level.x12", "2220E/SVC02", vals("150.00")},
		{"corpus/lfh_277_claim_level.x12", "2200D(2)/STC01-1", vals("F0")},
		{"corpus/lfh_277_information_receiver_level.x12", "2200B/STC01", vals("E0:0")},
		{"corpus/lfh_276_claim_level.x12", "2210E/SVC01-2", vals("99203")},
		{"corpus/lfh_276_claim_level.x12", "2000D(2)/2100D/NM103", vals("JONES")},
		{"corpus/lfh_276_claim_level.x12", "2000D/2200D/TRN(*)02", vals("ABCXYZ1", "ABCXYZ2")},
		{"corpus/lfh_276_claim_level.x12", "2000D/TRN(*)02", vals("ABCXYZ1", "ABCXYZ2", "ABCXYZ3")}, // 2000E nests in the third 2000D
		{"corpus/imsweb_277ca_rejected.x12", "2200D/STC01", vals("A7|562|85")},
		{"corpus/imsweb_277ca_rejected.x12", "2200D/STC01-2", vals("562")},
		{"corpus/imsweb_277ca_rejected.x12", "2100D/NM103", vals("CLILNAME")},
		{"corpus/stupidedi_278_admission_response.x12", "2000E/HCR01", vals("A6")},
		{"corpus/stupidedi_278_admission_response.x12", "2000F/HCR01", vals("A1")},
		{"corpus/stupidedi_278_admission_response.x12", "HCR(*)02", vals("AUTH0002", "AUTH0002")},
		{"corpus/stupidedi_278_admission_response.x12", "2010EA/NM103", vals("MONTGOMERY HOSPITAL")},
		{"corpus/stupidedi_278_admission_response.x12", "2010FA/NM103", vals("WATSON")},
		{"corpus/stupidedi_278_admission_response.x12", "2000F/SV202-2", vals("33510")},
		{"corpus/stupidedi_278_home_health_request.x12", "2000F(2)/SV101", vals("HC:B4184")},
		{"corpus/stupidedi_278_home_health_request.x12", "2010EA/NM103", vals("CARING HANDS HOME HEALTH AGENCY")},
		{"own/janedoe_278_response.x12", "2010FB/NM103", vals("ACME UTILIZATION MANAGEMENT")},
		{"own/janedoe_278_response.x12", "2000F/SV101-2", vals("72148")},
		{"own/janedoe_278_response.x12", "2010C/NM109", vals("W123456789")},

		// AAA rejections.
		{"corpus/lfh_271_subscriber_aaa_rejection.x12", "AAA03", vals("50")},
		{"corpus/lfh_271_subscriber_aaa_rejection.x12", "2100B/AAA01", vals("Y")},
		{"corpus/lfh_271_subscriber_aaa_rejection.x12", "2100C/AAA03", nil},

		// Qualifiers, occurrences, repetitions, components.
		{"corpus/lfh_276_claim_level.x12", "REF[EJ]02", vals("SM123456")},
		{"corpus/lfh_276_claim_level.x12", "REF[EJ](*)02", vals("SM123456", "J0234567", "MA345678")},
		{"corpus/lfh_276_claim_level.x12", "REF[EJ](3)02", vals("MA345678")},
		{"corpus/lfh_276_claim_level.x12", "REF[XX]02", nil},
		{"own/janedoe_278_request.x12", "HI[ABK]01-2", vals("M5416")}, // the first component of a composite qualifies
		{"own/janedoe_278_request.x12", "HI[ABF]01", nil},
		{"own/janedoe_278_request.x12", "HI[ABK:M5416]02", vals("ABF:M5126")},
		{"own/janedoe_271.x12", "EB03[4]", nil},
		{"own/janedoe_271.x12", "EB03[*]-1", vals("30", "4", "73")},
		{"own/janedoe_271.x12", "EB(2)03[*]", vals("4")},
		{"own/janedoe_271.x12", "NM1(*)01", vals("PR", "1P", "IL", "X3")},
		{"own/janedoe_271.x12", "NM1(9)01", nil},

		// Present but empty, and past the end.
		{"own/janedoe_271.x12", "HL02", vals("")},
		{"own/janedoe_271.x12", "NM1[IL]05", vals("")},
		{"own/janedoe_271.x12", "NM1[IL]05-1", vals("")},
		{"own/janedoe_271.x12", "NM1[IL]05-2", nil},
		{"own/janedoe_271.x12", "NM1[IL]10", nil},
		{"own/janedoe_271.x12", "NM103-1", vals("ACME HEALTH PLAN")},

		// Envelopes and several transaction sets read as one sequence.
		{"own/multi_group_crlf.x12", "ST(*)01", vals("271", "271", "277")},
		{"own/multi_group_crlf.x12", "ST(3)02", vals("0003")},
		{"own/multi_group_crlf.x12", "GS(2)01", vals("HN")},
		{"own/multi_group_crlf.x12", "2100C(2)/NM103", vals("ROE")},
		{"own/multi_group_crlf.x12", "2000C/NM1[IL](*)09", vals("W123456789", "W555000111", "W123456789")}, // the 277's 2000C holds its 2000D
		{"own/multi_group_crlf.x12", "2220D/STC01", vals("F1:65")},
		{"own/multi_group_crlf.x12", "IEA02", vals("000000031")},

		// Non-default delimiters.
		{"own/pipe_bang_newline_271.x12", "EB03[3]", vals("73")},
		{"own/pipe_bang_newline_271.x12", "2120C/NM103", vals("ACME UTILIZATION MANAGEMENT")},
		{"corpus/lfh_270_pipe_elements_question_terminator.x12", "2100C/NM1[IL]09", vals("00000000001")},
		{"corpus/imsweb_837p_tilde_elements_underscore_terminator.x12", "SV1(2)01-2", vals("478331")},
		{"corpus/imsweb_837p_tilde_elements_underscore_terminator.x12", "SV1(2)07", vals("1^2^3")}, // 5010 with ISA11 U: no repetitions

		// A transaction set whose loops the package does not know.
		{"corpus/lfh_835_managed_care.x12", "CLP(2)01", vals("8765432112")},
		{"corpus/lfh_835_managed_care.x12", "NM1[QC]03", vals("BUDD")},
		{"corpus/lfh_835_managed_care.x12", "2100/NM103", nil},
		{"corpus/lfh_837p_example1.x12", "SV1(*)01-2", vals("99213", "87070", "99214", "86663")},

		// 4010.
		{"corpus/imsweb_271_4010.x12", "2120C/NM103", vals("JONES")},
		{"corpus/imsweb_270_4010.x12", "EQ01", vals("30")},
		{"corpus/imsweb_270_4010.x12", "2110C/EQ01", nil}, // 004010X092 is not a guide loops are defined for (DESIGN 12.10)
	}
	cache := map[string]*x12.Interchange{}
	for _, tt := range tests {
		t.Run(tt.file+":"+tt.path, func(t *testing.T) {
			x := cache[tt.file]
			if x == nil {
				x = mustParse(t, tt.file)
				cache[tt.file] = x
			}
			p, err := x12.ParsePath(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Values(x)
			if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !p.Multi() && len(got) > 1 {
				t.Errorf("a path without a wildcard selected %d values", len(got))
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		path   string
		offset int
		msg    string
	}{
		{"", 0, "empty path"},
		{"NM1", 3, "expected a two-digit element position after NM1"},
		{"NM1[IL]", 7, "two-digit element position"},
		{"N3", 2, "expected a two-digit element position after N3"},
		{"nm103", 0, "segment IDs are written in capitals"},
		{"NM103x", 5, `unexpected "x"`},
		{"NM103X", 0, "expected a segment ID"},
		{"NM100", 3, "element positions start at 01"},
		{"NM1[IL03", 3, "the qualifier has no closing ]"},
		{"NM1[]03", 3, "empty qualifier"},
		{"NM1(0)03", 3, `expected a number from 1 or *, not "0"`},
		{"NM1(x)03", 3, `not "x"`},
		{"NM1(2", 3, "no closing )"},
		{"NM1(99999999999999999999)03", 3, "expected a number from 1"},
		{"NM103(2)", 5, "a segment occurrence goes before the element position, as in NM1(2)03"},
		{"EB03[0]", 4, "repetition"},
		{"EB03[", 4, "no closing ]"},
		{"EB03-", 5, "component number"},
		{"EB03-0", 5, "component number"},
		{"EB03-x", 5, "component number"},
		{"2100C", 5, "expected / after loop 2100C"},
		{"2100c/NM103", 4, "loop IDs are written in capitals"},
		{"2100C(0)/NM103", 5, "loop 2100C"},
		{"2100C//NM103", 6, "expected a segment ID"},
		{"2100C/", 6, "expected a segment ID"},
		{"1NM103", 3, "expected / after loop 1NM"},
		{"N@103", 0, "expected a segment ID"},
		{"ABCDEF01", 0, "expected a segment ID"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := x12.ParsePath(tt.path)
			var pe *x12.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *PathError", err)
			}
			if pe.Offset != tt.offset || !contains(pe.Msg, tt.msg) || pe.Path != tt.path {
				t.Errorf("got %q at %d, want %q at %d", pe.Error(), pe.Offset, tt.msg, tt.offset)
			}
		})
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestPathAccessors(t *testing.T) {
	p := x12.MustParsePath("2000C/NM1[IL](*)09")
	if p.String() != "2000C/NM1[IL](*)09" || !p.Multi() {
		t.Errorf("%q multi=%v", p, p.Multi())
	}
	if p := x12.MustParsePath("2000C(*)/NM1[IL]09"); p.Multi() {
		t.Error("a loop wildcard alone makes a path multi: it only widens the scope")
	}
	if x12.MustParsePath("NM1[IL](2)09[1]-1").Multi() {
		t.Error("a path without wildcards is multi")
	}
	var zero x12.Path
	if got := zero.Values(mustParse(t, "own/janedoe_271.x12")); got != nil {
		t.Errorf("the zero Path selected %q", got)
	}
	if got := p.Values(nil); got != nil {
		t.Errorf("a nil Interchange gave %q", got)
	}
	x := mustParse(t, "own/janedoe_271.x12")
	buf := make([]string, 0, 4)
	if n := testing.AllocsPerRun(100, func() { buf = p.AppendValues(buf[:0], x) }); n != 0 {
		t.Errorf("AppendValues allocates %v times", n)
	}
	if _, err := x.Get("NM1"); err == nil {
		t.Error("Get accepted an invalid path")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParsePath did not panic")
		}
	}()
	x12.MustParsePath("bad")
}
