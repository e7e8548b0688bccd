package hl7

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseTestdata(t testing.TB, name string) *Batch {
	t.Helper()
	b, err := Parse(readTestdata(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

// none is the expectation of a path that selects nothing.
var none []string

// TestPathReads pins what paths read, file by file: the grammar of
// SYNTAX.md applied to real and hand-made messages.
func TestPathReads(t *testing.T) {
	tests := []struct {
		file, path string
		want       []string
	}{
		// MSH numbering: the field separator is MSH.1, the encoding
		// characters MSH.2, neither split nor unescaped.
		{"own/orm_o01_priorauth.hl7", "MSH.1", []string{"|"}},
		{"own/orm_o01_priorauth.hl7", "MSH.2", []string{`^~\&`}},
		{"own/orm_o01_priorauth.hl7", "MSH.2.1", []string{`^~\&`}},
		{"own/orm_o01_priorauth.hl7", "MSH.2.2", none},
		{"own/orm_o01_priorauth.hl7", "MSH.2[*]", []string{`^~\&`}},
		// Only 1s may follow them: a deeper position does not exist.
		{"own/orm_o01_priorauth.hl7", "MSH.1.1.1", []string{"|"}},
		{"own/orm_o01_priorauth.hl7", "MSH.1.1.2", none},
		{"own/orm_o01_priorauth.hl7", "MSH.1.2", none},
		{"own/orm_o01_priorauth.hl7", "MSH.1[2]", none},
		{"own/orm_o01_priorauth.hl7", "MSH.2.1.2", none},
		{"own/orm_o01_priorauth.hl7", "MSH.3", []string{"ASSAYEHR"}},
		{"own/orm_o01_priorauth.hl7", "MSH.9", []string{"ORM^O01^ORM_O01"}},
		{"own/orm_o01_priorauth.hl7", "MSH.9.1", []string{"ORM"}},
		{"own/orm_o01_priorauth.hl7", "MSH-9-2", []string{"O01"}},
		{"own/orm_o01_priorauth.hl7", "MSH-9.3", []string{"ORM_O01"}},
		{"own/orm_o01_priorauth.hl7", "MSH.9.4", none},
		{"own/orm_o01_priorauth.hl7", "MSH.10", []string{"PA-ORM-0001"}},
		{"own/orm_o01_priorauth.hl7", "MSH.16", []string{"NE"}},
		{"own/orm_o01_priorauth.hl7", "MSH.17", none},
		// Repetitions: omitted means the first, * every one.
		{"own/orm_o01_priorauth.hl7", "PID.3", []string{"MRN-000123^^^ASSAYHOSP^MR"}},
		{"own/orm_o01_priorauth.hl7", "PID.3.1", []string{"MRN-000123"}},
		{"own/orm_o01_priorauth.hl7", "PID.3[2].1", []string{"W123456789"}},
		{"own/orm_o01_priorauth.hl7", "PID.3[2].4", []string{"ACMEHEALTH"}},
		{"own/orm_o01_priorauth.hl7", "PID.3[3].1", none},
		{"own/orm_o01_priorauth.hl7", "PID.3[*].1", []string{"MRN-000123", "W123456789"}},
		{"own/orm_o01_priorauth.hl7", "PID.3[*].5", []string{"MR", "MB"}},
		{"own/orm_o01_priorauth.hl7", "PID.3[*].6", none},
		// Empty positions read as "", missing ones as absent.
		{"own/orm_o01_priorauth.hl7", "PID.2", []string{""}},
		{"own/orm_o01_priorauth.hl7", "PID.3.2", []string{""}},
		{"own/orm_o01_priorauth.hl7", "PID.11.7", none},
		{"own/orm_o01_priorauth.hl7", "PID.12", none},
		{"own/orm_o01_priorauth.hl7", "PID.99", none},
		// Deeper than the value with only 1s: the value itself.
		{"own/orm_o01_priorauth.hl7", "PID.8", []string{"F"}},
		{"own/orm_o01_priorauth.hl7", "PID.8.1", []string{"F"}},
		{"own/orm_o01_priorauth.hl7", "PID.8.1.1", []string{"F"}},
		{"own/orm_o01_priorauth.hl7", "PID.8.2", none},
		{"own/orm_o01_priorauth.hl7", "PID.8.1.2", none},
		{"own/orm_o01_priorauth.hl7", "PID.2.1", []string{""}},
		{"own/orm_o01_priorauth.hl7", "PID.5.1", []string{"DOE"}},
		{"own/orm_o01_priorauth.hl7", "PID-5-2", []string{"JANE"}},
		{"own/orm_o01_priorauth.hl7", "IN1.14.1", []string{"AUTH-7781"}},
		{"own/orm_o01_priorauth.hl7", "IN1.36", []string{"W123456789"}},
		{"own/orm_o01_priorauth.hl7", "OBR.4.1", []string{"72148"}},
		{"own/orm_o01_priorauth.hl7", "OBR.4.2", []string{"MRI LUMBAR SPINE W/O CONTRAST"}},
		// A whole segment reads as written.
		{"own/orm_o01_priorauth.hl7", "DG1", []string{"DG1|1||M54.16^Radiculopathy, lumbar region^I10"}},
		{"own/orm_o01_priorauth.hl7", "ZZZ", none},
		{"own/orm_o01_priorauth.hl7", "NTE.3", []string{"Prior authorization AUTH-7781 approved by ACME HEALTH PLAN\nValid through 20250414"}},
		// Segment occurrences.
		{"own/adt_a01_crlf.hl7", "OBX.5", []string{"72"}},
		{"own/adt_a01_crlf.hl7", "OBX[2].5", []string{"128"}},
		{"own/adt_a01_crlf.hl7", "OBX[2].6.1", []string{"mm[Hg]"}},
		{"own/adt_a01_crlf.hl7", "OBX[*].5", []string{"72", "128", `""`}},
		{"own/adt_a01_crlf.hl7", "OBX[*].3.2", []string{"Heart rate", "Systolic blood pressure", "Body height"}},
		{"own/adt_a01_crlf.hl7", "OBX[4].5", none},
		{"own/adt_a01_crlf.hl7", "PID.13[2].4", []string{"jane.doe@example.com"}},
		{"own/adt_a01_crlf.hl7", "ZPI.2", []string{"custom^Z^segment"}},
		{"own/adt_a01_crlf.hl7", "ZPI.2.3", []string{"segment"}},
		{"own/adt_a01_crlf.hl7", "ZPI.4", []string{""}},
		{"own/adt_a01_crlf.hl7", "ZPI.5", none},
		// The explicit null reads as the two characters.
		{"own/adt_a01_crlf.hl7", "OBX[3].5", []string{`""`}},
		{"corpus/hl7dotnet_present_but_null.hl7", "EVN.4", []string{`""`}},
		{"corpus/hl7dotnet_present_but_null.hl7", "EVN.3", []string{""}},
		// Escapes: decoded on leaves, in one pass.
		{"own/escapes.hl7", "PID.5", []string{`O\S\BRIEN^ANNE`}},
		{"own/escapes.hl7", "PID.5.1", []string{"O^BRIEN"}},
		{"own/escapes.hl7", "OBX.5", []string{`A|B^C&D~E\E\F`}},
		{"own/escapes.hl7", "OBX[2].5", []string{`Hello é \X4\ \X\ \XZZ\`}},
		{"own/escapes.hl7", "OBX[3].5", []string{"line one\nline two\\.sp\\\\H\\bold\\N\\"}},
		{"own/escapes.hl7", "OBX[4].5", []string{`keep \Zvendor\ and \P\ and \Cxxyy\`}},
		{"own/escapes.hl7", "OBX[5].5", []string{`tail \F`}},
		{"own/escapes.hl7", "OBX[6].5", []string{`\T\`}},
		{"corpus/hl7dotnet_double_encoded_escape.hl7", "MSA.3", []string{`Double encoded value: \T\`}},
		{"corpus/hl7dotnet_escaped_name_all_delims.hl7", "PID.5", []string{`Smith\F\\S\\R\\E\\T\^John`}},
		{"corpus/hl7dotnet_escaped_name_all_delims.hl7", "PID.5.1", []string{`Smith|^~\&`}},
		{"corpus/hl7dotnet_invalid_escape_z_segment.hl7", "ZZ1.9", []string{`BSV 4\5 re.`}},
		{"corpus/hl7dotnet_sample_orm_o01_escapes.hl7", "NTE[2].3", []string{"some text\r\nsome text after new line\r\nissue Efferent-Health#81"}},
		{"corpus/hl7dotnet_adt_a28_quoted_nulls_escape.hl7", "PID.5.1", []string{"TEST|TEST"}},
		{"corpus/hl7parser_rs_adt_a08_escaped_msh5.hl7", "MSH.5", []string{"Isaac^2"}},
		{"corpus/hl7parser_rs_oru_r01_lab_z_segments.hl7", "OBX[9].6", []string{"10^9/L"}},
		{"corpus/hl7parser_rs_oru_r01_lab_z_segments.hl7", "OBR.4.5", []string{"CBC & Auto Differential"}},
		{"corpus/pyhl7_escaped_field_separator.hl7", "PID.2", []string{"|"}},
		// The v2.7 truncation character: a fifth encoding character,
		// \P\ its escape; in data it is text.
		{"own/v27_truncation.hl7", "MSH.2", []string{`^~\&#`}},
		{"own/v27_truncation.hl7", "PID.5.1", []string{"LONGNAME#"}},
		{"own/v27_truncation.hl7", "NTE.3", []string{"hash # sign"}},
		{"corpus/hl7apy_rsp_k22_v27_truncation_char.hl7", "QPD.3[2].2", []string{"SMITH"}},
		// Custom delimiters: # fields, $ components, % repetitions, ! escape,
		// @ subcomponents.
		{"own/custom_delims_body.hl7", "MSH.1", []string{"#"}},
		{"own/custom_delims_body.hl7", "MSH.2", []string{"$%!@"}},
		{"own/custom_delims_body.hl7", "MSH.9.2", []string{"A04"}},
		{"own/custom_delims_body.hl7", "PID.3[2].1", []string{"ID2"}},
		{"own/custom_delims_body.hl7", "PID.5.2.2", []string{"SUB"}},
		{"own/custom_delims_body.hl7", "NTE.3", []string{"a # b $ c % d ! e @ f"}},
		{"corpus/pyhl7_nonstandard_separators.hl7", "PID.5.2", []string{"EVE"}},
		{"corpus/medplum_ack_underscore_field_separator.hl7", "MSA.3", []string{"Everything was okay dokay!"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.3", []string{"field2"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.4", []string{"field3component1-field3component2"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.4.2", []string{"field3component2"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.5[*]", []string{"field4repeat1", "field4repeat2"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.6.1.2", []string{"field5subcomponent2"}},
		{"corpus/nodehl7client_custom_delimiters_msh_only.hl7", "MSH.7", []string{"field6+"}},
		// Two encoding characters: no escape, no subcomponents.
		{"own/two_encoding_chars.hl7", "PID.3", []string{"ID&1"}},
		{"own/two_encoding_chars.hl7", "PID.3.1.2", none},
		{"own/two_encoding_chars.hl7", "PID.5.1", []string{`NAME\S\X`}},
		// Three: ^~& puts & in the escape position.
		{"corpus/hl7dotnet_msh2_three_encoding_chars.hl7", "PID.5.1", []string{"Smith F S R E T"}},
		// Subcomponents.
		{"corpus/pyhl7_rep_subcomponents.hl7", "PID.3.2", []string{"Sub-Component1&Sub-Component2"}},
		{"corpus/pyhl7_rep_subcomponents.hl7", "PID.3.2.2", []string{"Sub-Component2"}},
		{"corpus/pyhl7_rep_subcomponents.hl7", "PID.4[*]", []string{"Repeat1", "Repeat2"}},
		{"corpus/nodehl7client_adt_a03_lf_subcomponents.hl7", "PID.3[2].4.2", []string{"1.3"}},
		{"corpus/medplum_oul_r22_subcomponents_repetitions.hl7", "SPM.2.1.2", []string{"BARCODE"}},
		{"corpus/medplum_oul_r22_subcomponents_repetitions.hl7", "OBX[5].5[*]", []string{"19132", "19112", "19092"}},
		{"corpus/medplum_oul_r22_subcomponents_repetitions.hl7", "INV[*].2[2].1", []string{"CURRENT", "CURRENT"}},
		// UTF-8 text comes back as written.
		{"corpus/nodehl7client_adt_a08_dutch_utf8.hl7", "PID.5.1.2", []string{"van"}},
		{"corpus/nodehl7client_adt_a08_dutch_utf8.hl7", "PID.5.1.3", []string{"Testpatiënt"}},
		{"corpus/medplum_qbp_q11_utf8_lf.hl7", "MSH.3", []string{"cobas® pro"}},
		// SIU with several resource groups.
		{"corpus/fhirconv_siu_s12_02_multi_rgs.hl7", "RGS[*].1", []string{"1", "2", "3"}},
		{"corpus/fhirconv_siu_s12_02_multi_rgs.hl7", "AIP[3].3.2", []string{"GP"}},
		{"corpus/fhirconv_siu_s12_01.hl7", "SCH.11.4", []string{"202010011126+0215"}},
		// Batches and files read as one sequence of segments.
		{"corpus/pyhl7_batch_two_messages.hl7", "MSH[2].10", []string{"12334456778891"}},
		{"corpus/pyhl7_batch_two_messages.hl7", "MSH[*].10", []string{"12334456778890", "12334456778891"}},
		{"corpus/pyhl7_batch_two_messages.hl7", "BHS.9", []string{""}},
		{"corpus/pyhl7_batch_two_messages.hl7", "BHS.11", []string{"abchs20070101123401-1"}},
		{"corpus/pyhl7_batch_two_messages.hl7", "BTS.1", []string{"2"}},
		{"corpus/pyhl7_file_two_batches.hl7", "FHS.10", []string{"abchs20070101123401.hl7"}},
		{"corpus/pyhl7_file_two_batches.hl7", "MSH[3].10", []string{"12334456778890"}},
		{"corpus/pyhl7_file_two_batches.hl7", "BTS[*].1", []string{"2", "1"}},
		{"corpus/pyhl7_file_two_batches.hl7", "FTS.1", []string{"2"}},
		{"own/batch_lf_mllp.hl7", "MSH[2].9.2", []string{"A08"}},
		{"own/batch_lf_mllp.hl7", "PID[*].5.1", []string{"ONE", "TWO"}},
		{"own/mllp_two_frames.hl7", "MSH[*].10", []string{"FRAME-1", "FRAME-2"}},
		{"own/mllp_two_frames.hl7", "OBX[*].5", []string{"1", "2", "3"}},
	}
	batches := map[string]*Batch{}
	for _, tt := range tests {
		b := batches[tt.file]
		if b == nil {
			b = parseTestdata(t, tt.file)
			batches[tt.file] = b
		}
		p, err := ParsePath(tt.path)
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if got := b.Texts(p); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %s = %q, want %q", tt.file, tt.path, got, tt.want)
		}
		v := b.Get(p)
		if v.Exists() != (len(tt.want) > 0) {
			t.Errorf("%s %s: Exists() = %v", tt.file, tt.path, v.Exists())
		}
		if len(tt.want) > 0 {
			if got := v.String(); got != tt.want[0] {
				t.Errorf("%s %s: Get = %q, want %q", tt.file, tt.path, got, tt.want[0])
			}
			if got := string(v.AppendText([]byte("x"))); got != "x"+tt.want[0] {
				t.Errorf("%s %s: AppendText = %q", tt.file, tt.path, got)
			}
		}
	}
}

func TestMessageScopedReads(t *testing.T) {
	b := parseTestdata(t, "corpus/pyhl7_file_two_batches.hl7")
	msgs := b.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages", len(msgs))
	}
	ids := []string{"12334456778890", "12334456778891", "12334456778890"}
	for i, m := range msgs {
		if got := m.ControlID(); got != ids[i] {
			t.Errorf("message %d: control id %q, want %q", i, got, ids[i])
		}
		if m.Index() != i {
			t.Errorf("message %d: Index() = %d", i, m.Index())
		}
		// Within a message, MSH[2] does not exist and the trailers are
		// not part of it.
		if v := m.Get(MustParsePath("MSH[2].10")); v.Exists() {
			t.Errorf("message %d: MSH[2].10 exists: %q", i, v)
		}
		if v := m.Get(MustParsePath("BTS.1")); v.Exists() {
			t.Errorf("message %d: BTS is part of the message", i)
		}
		if got := m.Texts(MustParsePath("PID.3.1")); !reflect.DeepEqual(got, []string{"0000112234"}) {
			t.Errorf("message %d: PID.3.1 = %q", i, got)
		}
	}
}

func TestValueKinds(t *testing.T) {
	m := parseTestdata(t, "own/adt_a01_crlf.hl7").Message(0)
	tests := []struct {
		path               string
		exists, leaf, null bool
	}{
		{"OBX[3].5", true, true, true},
		{"OBX.5", true, true, false},
		{"PID.5", true, false, false},
		{"PID.5.1", true, true, false},
		{"PID", true, false, false},
		{"MSH.2", true, false, false},
		{"PID.2", true, true, false},
		{"PID.99", false, false, false},
	}
	for _, tt := range tests {
		v := m.Get(MustParsePath(tt.path))
		if v.Exists() != tt.exists || v.IsLeaf() != tt.leaf || v.IsNull() != tt.null {
			t.Errorf("%s: exists %v leaf %v null %v, want %v %v %v", tt.path, v.Exists(), v.IsLeaf(), v.IsNull(), tt.exists, tt.leaf, tt.null)
		}
	}
	if v := m.Get(MustParsePath("PID.99")); v.Bytes() != nil || v.String() != "" {
		t.Errorf("absent value reads %q", v.String())
	}
}

func TestHandBuiltPaths(t *testing.T) {
	m := parseTestdata(t, "own/orm_o01_priorauth.hl7").Message(0)
	// Paths built as structs follow the same rules; invalid ones select
	// nothing rather than panic.
	tests := []struct {
		p    Path
		want []string
	}{
		{Path{Segment: "PID", Field: 3, Repetition: Any, Component: 1}, []string{"MRN-000123", "W123456789"}},
		{Path{Segment: "PID", Field: 5, Component: 2}, []string{"JANE"}},
		{Path{Segment: "PID", Component: 2}, none},
		{Path{Segment: "PID", Field: 5, Subcomponent: 1}, none},
		{Path{Segment: "PI", Field: 5}, none},
		{Path{Segment: "PID", Field: -2}, none},
		{Path{Segment: "PID", Occurrence: -7, Field: 5}, none},
	}
	for _, tt := range tests {
		if got := m.Texts(tt.p); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestGetAllAppends(t *testing.T) {
	b := parseTestdata(t, "own/adt_a01_crlf.hl7")
	dst := make([]Value, 1, 8)
	dst = b.GetAll(MustParsePath("OBX[*].5"), dst)
	if len(dst) != 4 || dst[0].Exists() || dst[3].String() != `""` {
		t.Fatalf("GetAll = %v", dst)
	}
	if got := b.Message(0).GetAll(MustParsePath("OBX[*].1"), nil); len(got) != 3 {
		t.Fatalf("message GetAll = %v", got)
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	d := DefaultDelimiters
	d.Truncation = '#'
	text := "a|b^c&d~e\\f#g\x01h\xc3\xa9"
	esc := appendEscaped(nil, text, d)
	if want := `a\F\b\S\c\T\d\R\e\E\f\P\g h` + "\xc3\xa9"; string(esc) != want {
		t.Fatalf("escaped %q, want %q", esc, want)
	}
	if got := string(unescape(nil, esc, d)); got != strings.ReplaceAll(text, "\x01", " ") {
		t.Fatalf("round trip %q", got)
	}
	// Without an escape character, delimiters become spaces.
	if got := string(appendEscaped(nil, "a|b^c", Delimiters{Field: '|', Component: '^', Repetition: '~'})); got != "a b c" {
		t.Fatalf("no escape character: %q", got)
	}
	if got := string(unescape(nil, []byte(`\Xc3a9\\XC3A9\`), d)); got != "éé" {
		t.Fatalf("hex: %q", got)
	}
}

func TestZeroMessage(t *testing.T) {
	var m Message
	if m.Bytes() != nil || m.Delimiters() != (Delimiters{}) || m.ControlID() != "" || m.Get(MustParsePath("PID.5")).Exists() {
		t.Fatal("the zero Message is not empty")
	}
	for range m.Segments() {
		t.Fatal("the zero Message has segments")
	}
	msgs, _ := MemorySource(nil, &m, nil).Messages(context.Background())
	if len(msgs) != 1 {
		t.Fatalf("MemorySource kept %d", len(msgs))
	}
}
