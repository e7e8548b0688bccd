package hl7

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		file    string // or a testdata file
		is      error
		segment int
		seg     string
		line    int
		offset  int
		msg     string
	}{
		{name: "empty", file: "own/bad_empty.hl7", is: ErrNoMessage, msg: "the input is empty"},
		{name: "only whitespace", input: "\r\n  \r\n", is: ErrNoMessage},
		{name: "no MSH", file: "own/bad_no_msh.hl7", is: ErrStructure, segment: 1, seg: "PID", line: 1, msg: "PID before the first header"},
		{name: "segment before MSH", file: "own/bad_segment_before_msh.hl7", is: ErrStructure, segment: 1, seg: "EVN", line: 1},
		{name: "BHS then no MSH", file: "corpus/pyhl7_bad_batch_no_msh.hl7", is: ErrStructure, segment: 2, seg: "EVN", line: 2, offset: 65, msg: "EVN before the first MSH"},
		{name: "two FHS", file: "corpus/pyhl7_bad_file_two_fhs.hl7", is: ErrStructure, segment: 5, seg: "FHS", line: 5, offset: 250},
		{name: "duplicate encoding character", file: "corpus/hl7apy_bad_duplicate_encoding_chars.hl7", is: ErrHeader, segment: 1, seg: "MSH", line: 1, offset: 6, msg: `'&' appears twice`},
		{name: "one encoding character", file: "own/bad_one_encoding_char.hl7", is: ErrHeader, segment: 1, seg: "MSH", offset: 4, line: 1, msg: "at least 2"},
		{name: "zero encoding characters", input: "MSH||||||\r", is: ErrHeader, segment: 1, seg: "MSH", offset: 4, line: 1},
		{name: "six encoding characters", file: "own/bad_six_encoding_chars.hl7", is: ErrHeader, segment: 1, seg: "MSH", offset: 4, line: 1, msg: "at most 5"},
		{name: "MSH without separator", file: "own/bad_msh_no_separator.hl7", is: ErrHeader, segment: 1, seg: "MSH", offset: 3, line: 1},
		{name: "letter as field separator", input: "MSHX^~\\&X\r", is: ErrHeader, segment: 1, seg: "MSH", offset: 3, line: 1},
		{name: "encoding character equal to a control character", input: "MSH|^\x01|\r", is: ErrHeader, segment: 1, offset: 5, line: 1, msg: "0x01"},
		{name: "BTS without BHS", file: "own/bad_bts_without_bhs.hl7", is: ErrStructure, segment: 3, seg: "BTS", line: 3},
		{name: "FTS without FHS", input: "MSH|^~\\&|A\rFTS|1\r", is: ErrStructure, segment: 2, seg: "FTS", line: 2},
		{name: "lower-case segment ID", file: "own/bad_segment_id.hl7", is: ErrStructure, segment: 3, seg: "pv1", line: 3, msg: `"pv1" is not three upper-case`},
		{name: "four-character segment ID", file: "own/bad_segment_id_separator.hl7", is: ErrStructure, segment: 2, seg: "PID", line: 2, msg: `followed by '1', not the field separator '|'`},
		{name: "continuation line without segment ID", file: "corpus/fhirconv_nk1_line_break_inside_segment.hl7", is: ErrStructure, segment: 3, line: 3, offset: 183},
		{name: "segment after FTS", file: "own/bad_after_fts.hl7", is: ErrStructure, segment: 4, seg: "MSH", line: 4, msg: "MSH after FTS"},
		{name: "binary garbage", file: "own/bad_binary.hl7", is: ErrStructure, segment: 1, line: 1},
		{name: "segment after BTS", input: "BHS|^~\\&\rMSH|^~\\&|A\rBTS|1\rPID|1\r", is: ErrStructure, segment: 4, seg: "PID", line: 4, msg: "outside a message"},
		{name: "BHS inside a batch", input: "BHS|^~\\&\rMSH|^~\\&|A\rBHS|^~\\&\r", is: ErrStructure, segment: 3, seg: "BHS", line: 3},
		{name: "short segment", input: "MSH|^~\\&|A\rPI\r", is: ErrStructure, segment: 2, seg: "PI", line: 2},
		{name: "CRLF lines counted once", input: "MSH|^~\\&|A\r\n\r\nPID|1\r\nxx\r\n", is: ErrStructure, segment: 3, line: 4, offset: 21},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.input)
			if tt.file != "" {
				data = readTestdata(t, tt.file)
			}
			_, err := Parse(data)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want a *ParseError", err, err)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if pe.Location.Segment != tt.segment || tt.seg != "" && pe.Name != tt.seg || pe.Location.Line != tt.line || tt.offset != 0 && pe.Offset != tt.offset {
				t.Errorf("located at segment %d %q line %d byte %d, want %d %q %d %d: %v", pe.Location.Segment, pe.Name, pe.Location.Line, pe.Offset, tt.segment, tt.seg, tt.line, tt.offset, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if tt.segment > 0 && !strings.Contains(err.Error(), "segment ") {
				t.Errorf("error %q does not name the segment", err)
			}
		})
	}
}

func TestParseStructure(t *testing.T) {
	tests := []struct {
		file     string
		messages int
		segments int
		ids      []string
	}{
		{"own/orm_o01_priorauth.hl7", 1, 8, []string{"PA-ORM-0001"}},
		{"own/adt_a01_crlf.hl7", 1, 8, []string{"ADT-0001"}},
		{"own/batch_lf_mllp.hl7", 2, 6, []string{"B1-MSG1", "B1-MSG2"}},
		{"own/mllp_two_frames.hl7", 2, 7, []string{"FRAME-1", "FRAME-2"}},
		{"corpus/pyhl7_batch_two_messages.hl7", 2, 14, []string{"12334456778890", "12334456778891"}},
		{"corpus/pyhl7_file_two_batches.hl7", 3, 24, []string{"12334456778890", "12334456778891", "12334456778890"}},
		{"corpus/hl7dotnet_sample_adt_o01.hl7", 1, 5, []string{"MSGID12349876"}}, // a blank line inside
		{"corpus/hl7parser_rs_oru_r01_lab_z_segments.hl7", 1, 21, []string{"3216598"}},
		// Three encoding characters are valid (the design reads them by
		// position; hl7apy rejects this one for v2.7).
		{"corpus/hl7apy_bad_missing_encoding_chars.hl7", 1, 1, []string{""}},
	}
	for _, tt := range tests {
		b := parseTestdata(t, tt.file)
		if b.Len() != tt.messages || len(b.segs) != tt.segments {
			t.Errorf("%s: %d messages, %d segments; want %d, %d", tt.file, b.Len(), len(b.segs), tt.messages, tt.segments)
			continue
		}
		for i, m := range b.Messages() {
			if got := m.ControlID(); got != tt.ids[i] {
				t.Errorf("%s message %d: control id %q, want %q", tt.file, i, got, tt.ids[i])
			}
			first := true
			for s := range m.Segments() {
				if first != (s.Name() == "MSH") {
					t.Errorf("%s message %d: segment %s", tt.file, i, s.Name())
				}
				first = false
			}
		}
	}
}

func TestDelimiters(t *testing.T) {
	tests := []struct {
		file string
		want Delimiters
		enc  string
	}{
		{"own/orm_o01_priorauth.hl7", DefaultDelimiters, `^~\&`},
		{"own/v27_truncation.hl7", Delimiters{'|', '^', '~', '\\', '&', '#'}, `^~\&#`},
		{"own/two_encoding_chars.hl7", Delimiters{Field: '|', Component: '^', Repetition: '~'}, "^~"},
		{"corpus/hl7dotnet_msh2_three_encoding_chars.hl7", Delimiters{Field: '|', Component: '^', Repetition: '~', Escape: '&'}, "^~&"},
		{"own/custom_delims_body.hl7", Delimiters{'#', '$', '%', '!', '@', 0}, "$%!@"},
		{"corpus/medplum_ack_underscore_field_separator.hl7", Delimiters{'_', '^', '~', '\\', '&', 0}, `^~\&`},
	}
	for _, tt := range tests {
		m := parseTestdata(t, tt.file).Message(0)
		if got := m.Delimiters(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.file, got, tt.want)
		}
		if got := m.Delimiters().EncodingCharacters(); got != tt.enc {
			t.Errorf("%s: encoding characters %q, want %q", tt.file, got, tt.enc)
		}
	}
}

// TestReencode checks that every message of every parsable test file
// re-encodes byte for byte: the message's bytes, and its segments joined
// with the terminators they had, are the input with only framing and blank
// lines between messages left out.
func TestReencode(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.hl7")
	if len(files) < 40 {
		t.Fatalf("only %d test files", len(files))
	}
	parsed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(data)
		if err != nil {
			continue
		}
		parsed++
		var whole, joined []byte
		for _, m := range b.Messages() {
			whole = append(whole, m.Bytes()...)
			for i := range m.segs {
				s := m.segs[i]
				next := termEnd(data, s.end)
				joined = append(joined, data[s.start:next]...)
				if i+1 < len(m.segs) {
					// blank lines between segments belong to the message
					joined = append(joined, data[next:m.segs[i+1].start]...)
				}
			}
		}
		if !bytes.Equal(whole, joined) {
			t.Errorf("%s: Bytes differs from the segments joined", f)
		}
		// Remove from the input what is not a message: headers,
		// trailers, framing and whitespace between messages.
		var rest []byte
		for s := range b.Segments() {
			if n := s.Name(); n == "FHS" || n == "BHS" || n == "BTS" || n == "FTS" {
				continue
			}
			rest = append(rest, s.Bytes()...)
		}
		var msgSegs []byte
		for _, m := range b.Messages() {
			for s := range m.Segments() {
				msgSegs = append(msgSegs, s.Bytes()...)
			}
		}
		if !bytes.Equal(rest, msgSegs) {
			t.Errorf("%s: message segments differ from the input's", f)
		}
		if b.Len() == 1 && len(b.segs) == len(b.Message(0).segs) {
			trimmed := bytes.TrimPrefix(bytes.Trim(data, "\x0b\x1c\r\n "), []byte("\xef\xbb\xbf")) // a byte-order mark is not part of the message
			if !bytes.Equal(bytes.Trim(b.Message(0).Bytes(), "\r\n "), trimmed) {
				t.Errorf("%s: the message's bytes are not the input", f)
			}
		}
	}
	if parsed < 30 {
		t.Fatalf("only %d files parsed", parsed)
	}
}

func TestParseMessage(t *testing.T) {
	m, err := ParseMessage(readTestdata(t, "own/orm_o01_priorauth.hl7"))
	if err != nil || m.ControlID() != "PA-ORM-0001" {
		t.Fatalf("%v %v", m, err)
	}
	_, err = ParseMessage(readTestdata(t, "own/mllp_two_frames.hl7"))
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrStructure) || pe.Location.Segment != 4 || pe.Name != "MSH" || !strings.Contains(err.Error(), "2 messages") {
		t.Fatalf("error %v", err)
	}
	if _, err := ParseMessage(nil); !errors.Is(err, ErrNoMessage) {
		t.Fatalf("error %v", err)
	}
}

func TestLineEndings(t *testing.T) {
	segs := []string{`MSH|^~\&|A|B|C|D|20250101||ADT^A01|LE-1|P|2.5`, "PID|1||X||DOE^JANE", "PV1|1|I"}
	for name, sep := range map[string]string{"CR": "\r", "LF": "\n", "CRLF": "\r\n", "LFCR": "\n\r"} {
		for _, framed := range []bool{false, true} {
			data := strings.Join(segs, sep) + sep
			if framed {
				data = "\x0b" + data + "\x1c\r"
			}
			m, err := ParseMessage([]byte(data))
			if err != nil {
				t.Errorf("%s framed=%v: %v", name, framed, err)
				continue
			}
			if got := m.Get(MustParsePath("PID.5.2")).String(); got != "JANE" {
				t.Errorf("%s: PID.5.2 = %q", name, got)
			}
			if got := m.Get(MustParsePath("PV1.2")).String(); got != "I" {
				t.Errorf("%s: PV1.2 = %q", name, got)
			}
			// A message's bytes end after its last terminator, whole: LF CR
			// is one line break, as CRLF is (so that the bytes re-parse
			// alone as they read in their input).
			want := strings.Join(segs, sep) + sep
			if got := string(m.Bytes()); got != want {
				t.Errorf("%s framed=%v: Bytes = %q, want %q", name, framed, got, want)
			}
		}
	}
}

// TestLineOf pins the line rule ParseError uses (assert.LineColumn): CR,
// LF and CRLF each end one line.
func TestLineOf(t *testing.T) {
	data := []byte("a\r\nb\rc\nd\n\re")
	for off, want := range map[int]int{0: 1, 3: 2, 5: 3, 7: 4, 10: 6, 11: 6, 99: 6} {
		if got, _ := assert.LineColumn(data, off); got != want {
			t.Errorf("line of %d = %d, want %d", off, got, want)
		}
	}
}

// TestTerminators pins DESIGN section 12 rule 9: terminators are chosen per
// file or MLLP frame; an input with a CR ends segments at CR or CRLF and
// reads a lone LF as data, except at a segment's start, where it is
// dropped with other leading whitespace, and at the end of the input or
// frame, where it ends the last segment; without a CR, LF ends segments. A
// UTF-8 byte-order mark before MSH is skipped.
func TestTerminators(t *testing.T) {
	tests := []struct {
		name, file, input string
		reads             map[string][]string // path -> texts, batch-wide
		segments          int
	}{
		{name: "lone LF inside a CR segment is data", file: "own/cr_lone_lf_in_segment.hl7", segments: 4,
			reads: map[string][]string{"OBX[1].5": {"line one\nline two"}, "OBX[2].5": {"72"}, "OBX[2].1": {"2"}}},
		{name: "each frame chooses", file: "own/frames_mixed_terminators.hl7", segments: 5,
			reads: map[string][]string{"OBX[*].5": {"kept\ntogether", "one line", "72"}, "MSH[*].10": {"MIX-1", "MIX-2"}}},
		{name: "byte-order mark", file: "own/bom_adt_a04.hl7", segments: 2, reads: map[string][]string{"MSH.10": {"BOM-1"}, "MSH.1": {"|"}}},
		{name: "byte-order mark in every frame", file: "own/bom_two_frames.hl7", segments: 4, reads: map[string][]string{"MSH[*].10": {"BOM-F1", "BOM-F2"}}},
		{name: "leading whitespace dropped", input: "MSH|^~\\&|A\r \t\nPID|1\r\n\n\r", segments: 2, reads: map[string][]string{"PID.1": {"1"}}},
		{name: "LF only", input: "MSH|^~\\&|A\nPID|1\nPV1|1|I", segments: 3, reads: map[string][]string{"PV1.2": {"I"}}},
		{name: "the CR after an end block does not choose CR", input: "\x0bMSH|^~\\&|A\nPID|1\n\x1c\r", segments: 2, reads: map[string][]string{"PID.1": {"1"}}},
		{name: "one CR makes a lone LF data", input: "MSH|^~\\&|A\nPID|1\r", segments: 1, reads: map[string][]string{"MSH.3": {"A\nPID"}}},
		{name: "a CR file's trailing LF ends its last field", input: "MSH|^~\\&|A\rPID|1||123||DOE^JOHN\n", segments: 2, reads: map[string][]string{"PID.5.2": {"JOHN"}}},
		{name: "trailing LFs and CRs end a CR file", input: "MSH|^~\\&|A\rPID|1||123||DOE^JOHN\n\r\n\n", segments: 2, reads: map[string][]string{"PID.5.2": {"JOHN"}}},
		{name: "a lone LF before the end stays data", input: "MSH|^~\\&|A\rOBX|1|TX|||one\ntwo\n", segments: 2, reads: map[string][]string{"OBX.5": {"one\ntwo"}}},
		{name: "a frame's trailing LF ends its last field", input: "\x0bMSH|^~\\&|A\rPID|1||123||DOE^JOHN\n\x1c\r", segments: 2, reads: map[string][]string{"PID.5.2": {"JOHN"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.input)
			if tt.file != "" {
				data = readTestdata(t, tt.file)
			}
			b, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.segs) != tt.segments {
				t.Errorf("%d segments, want %d", len(b.segs), tt.segments)
			}
			for path, want := range tt.reads {
				if got := b.Texts(MustParsePath(path)); !slices.Equal(got, want) {
					t.Errorf("%s = %q, want %q", path, got, want)
				}
			}
			for _, m := range b.Messages() {
				if !bytes.HasPrefix(m.Bytes(), []byte("MSH")) {
					t.Errorf("message bytes start %q", m.Bytes()[:min(8, len(m.Bytes()))])
				}
			}
		})
	}
}
