package x12_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/x12"
)

var (
	stdDelims = x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}
	writeTime = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
)

// newSet starts an interchange with one group and one 271 open.
func newSet(d x12.Delimiters) *x12.Writer {
	w := x12.NewWriter(d, x12.Header{Sender: "PAYER", Receiver: "CLINIC", Time: writeTime, Control: 42})
	w.Group(x12.Group{Code: "HB", Sender: "PAYER", Receiver: "CLINIC", Time: writeTime, Control: 42, Version: "005010X279A1"})
	w.Set("271", "0001")
	return w
}

// parseClean parses data and fails the test on an error or a finding.
func parseClean(t testing.TB, data []byte) *x12.Interchange {
	t.Helper()
	x, err := x12.Parse(data, x12.Strict())
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return x
}

func TestWriterEnvelope(t *testing.T) {
	w := x12.NewWriter(stdDelims, x12.Header{
		AuthorizationQualifier: "03", Authorization: "SECRETAUTH", SenderQualifier: "30", Sender: "123456789",
		Receiver: "CLINIC", Time: writeTime, Control: 123, AckRequested: true, Usage: "T",
	})
	w.Segment("TA1", "000000901", "260301", "0930", "A", "000")
	for g := range 2 {
		w.Group(x12.Group{Code: "HB", Sender: "P", Receiver: "C", Time: writeTime, Control: int64(10 + g), Version: "005010X279A1"})
		for s := range 3 {
			w.Set("271", "000"+string(rune('1'+s)))
			for range s {
				w.Segment("MSG", "HELLO")
			}
		}
	}
	w.Group(x12.Group{Code: "HB", Sender: "P", Receiver: "C", Time: writeTime, Control: 12, Version: "004010X092A1"})
	w.Set("271", "9999")
	data, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	x := parseClean(t, data)
	for path, want := range map[string][]string{
		"ISA01": {"03"}, "ISA02": {"SECRETAUTH"}, "ISA05": {"30"}, "ISA06": {"123456789      "},
		"ISA08": {"CLINIC         "}, "ISA09": {"260301"}, "ISA10": {"0930"}, "ISA11": {"^"}, "ISA12": {"00501"},
		"ISA13": {"000000123"}, "ISA14": {"1"}, "ISA15": {"T"}, "ISA16": {":"}, "IEA01": {"3"}, "IEA02": {"000000123"},
		"GS(*)06": {"10", "11", "12"}, "GE(*)01": {"3", "3", "1"}, "GE(*)02": {"10", "11", "12"},
		"SE(*)01": {"2", "3", "4", "2", "3", "4", "2"}, "ST(*)03": {"005010X279A1", "005010X279A1", "005010X279A1", "005010X279A1", "005010X279A1", "005010X279A1"},
		"GS(3)04": {"20260301"}, "GS(3)05": {"0930"}, "GS(3)07": {"X"}, "TA104": {"A"},
	} {
		if got, _ := x.Get(path); !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	// Bytes again returns the same; anything after it fails.
	again, err := w.Bytes()
	if err != nil || string(again) != string(data) {
		t.Errorf("Bytes again: %v", err)
	}
	w.Segment("MSG", "LATE")
	if _, err := w.Bytes(); err == nil || !strings.Contains(err.Error(), "finished") {
		t.Errorf("a segment after Bytes: %v", err)
	}
}

func TestWriterTrims(t *testing.T) {
	w := newSet(stdDelims)
	w.Segment("NM1", "IL", "1", "DOE", "", "", "", "", "", "")
	w.SegmentOf("SV1", x12.Composite("HC", "73721", "", ""), x12.Simple("150"), nil, x12.Element{{"", ""}})
	w.SegmentOf("EB", x12.Simple("1"), x12.Element{{"30"}, {"MR"}, {""}, {}})
	w.SegmentOf("HI", x12.Element{{"ABK", "M5416"}, {"ABF", "M5126"}})
	data, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"~NM1*IL*1*DOE~", "~SV1*HC:73721*150~", "~EB*1*30^MR~", "~HI*ABK:M5416^ABF:M5126~"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %s in %s", want, data)
		}
	}
	parseClean(t, data)
}

func TestWriterRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     x12.Delimiters
		h     x12.Header
		write func(w *x12.Writer)
		want  string // in the error
		delim bool   // errors.Is ErrDelimiter
	}{
		{name: "element value holds the element separator", write: func(w *x12.Writer) { w.Segment("NM1", "IL", "A*B") }, want: "segment 5 (NM102)", delim: true},
		{name: "value holds the segment terminator", write: func(w *x12.Writer) { w.Segment("MSG", "A~") }, want: "MSG01", delim: true},
		{name: "value holds the component separator", write: func(w *x12.Writer) { w.Segment("MSG", "A:B") }, want: "MSG01", delim: true},
		{name: "value holds the repetition separator", write: func(w *x12.Writer) { w.Segment("MSG", "A^B") }, want: "MSG01", delim: true},
		{name: "component holds a delimiter", write: func(w *x12.Writer) { w.SegmentOf("SV1", nil, x12.Composite("HC", "7:3")) }, want: "SV102", delim: true},
		{name: "ISA sender holds a delimiter", h: x12.Header{Sender: "A*B"}, want: "ISA06", delim: true},
		{name: "GS sender holds a delimiter", write: func(w *x12.Writer) {
			w.Group(x12.Group{Code: "HB", Sender: "A~", Receiver: "B", Control: 2})
		}, want: "GS02", delim: true},
		{name: "ISA sender too long", h: x12.Header{Sender: "0123456789ABCDEF"}, want: "ISA06 is at most 15"},
		{name: "ISA qualifier short", h: x12.Header{SenderQualifier: "Z"}, want: "ISA05 is 2 characters"},
		{name: "ISA usage long", h: x12.Header{Usage: "PT"}, want: "ISA15 is at most 1"},
		{name: "ISA13 out of range", h: x12.Header{Control: 1e9}, want: "ISA13"},
		{name: "GS06 out of range", write: func(w *x12.Writer) { w.Group(x12.Group{Code: "HB", Control: 0}) }, want: "GS06"},
		{name: "ST02 short", write: func(w *x12.Writer) { w.Set("271", "1") }, want: "ST02 is 4 to 9"},
		{name: "segment ID lower case", write: func(w *x12.Writer) { w.Segment("nm1", "IL") }, want: "segment identifier"},
		{name: "segment ID too long", write: func(w *x12.Writer) { w.Segment("NM12", "IL") }, want: "segment identifier"},
		{name: "envelope segment", write: func(w *x12.Writer) { w.Segment("SE", "3", "0001") }, want: "envelope segments itself"},
		{name: "TA1 inside a group", write: func(w *x12.Writer) { w.Segment("TA1", "1") }, want: "between the ISA"},
		{name: "repetition without a separator", d: x12.Delimiters{Element: '*', Component: ':', Segment: '~'},
			write: func(w *x12.Writer) { w.SegmentOf("EB", x12.Simple("1"), x12.Repeated("30", "MR")) }, want: "repetition separator"},
		{name: "delimiters collide", d: x12.Delimiters{Element: '*', Repetition: ':', Component: ':', Segment: '~'}, want: "given twice"},
		{name: "delimiter is a letter", d: x12.Delimiters{Element: 'E', Component: ':', Segment: '~'}, want: "letter"},
		{name: "delimiter is a space", d: x12.Delimiters{Element: '*', Component: ' ', Segment: '~'}, want: "space"},
		{name: "delimiter is not ASCII", d: x12.Delimiters{Element: 0xE9, Component: ':', Segment: '~'}, want: "ASCII"},
		{name: "no segment terminator", d: x12.Delimiters{Element: '*', Component: ':'}, want: "required"},
		{name: "repetition before 00402", h: x12.Header{Version: "00401"}, want: "00402"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			if d == (x12.Delimiters{}) {
				d = stdDelims
			}
			h := tc.h
			h.Control = max(h.Control, 1)
			w := x12.NewWriter(d, h)
			w.Group(x12.Group{Code: "HB", Sender: "P", Receiver: "C", Control: 1, Version: "005010X279A1"})
			w.Set("271", "0001")
			w.Segment("BHT", "0022", "11")
			if tc.write != nil {
				tc.write(w)
			}
			w.Segment("MSG", "AFTER") // ignored once the Writer failed
			data, err := w.Bytes()
			var we *x12.WriteError
			if !errors.As(err, &we) {
				t.Fatalf("Bytes = %q, %v; want a *WriteError", data, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if errors.Is(err, x12.ErrDelimiter) != tc.delim {
				t.Errorf("errors.Is(%v, ErrDelimiter) = %v", err, !tc.delim)
			}
			if w.Err() != err {
				t.Errorf("Err() = %v, Bytes %v", w.Err(), err)
			}
		})
	}
}

// TestWriterDelimiters: any legal set of delimiters (line breaks and
// control characters included) builds what parses without findings and
// reads back as written.
func TestWriterDelimiters(t *testing.T) {
	for _, d := range []x12.Delimiters{
		stdDelims,
		{Element: '|', Repetition: '!', Component: '>', Segment: '\n'},
		{Element: 0x1D, Repetition: 0x1F, Component: 0x1C, Segment: 0x1E},
		{Element: '*', Component: ':', Segment: '~'},
		{Element: '^', Repetition: '*', Component: '~', Segment: ':'},
	} {
		w := newSet(d)
		w.Segment("NM1", "IL", "1", "O'DOE-SMITH", "JANE", "", "", "", "MI", "W 1")
		w.SegmentOf("HI", x12.Composite("ABK", "M5416"))
		if d.Repetition != 0 {
			w.SegmentOf("EQ", x12.Repeated("30", "MR"))
		}
		data, err := w.Bytes()
		if err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		x := parseClean(t, data)
		if got := x.Delimiters(); got != d {
			t.Errorf("delimiters %q read back as %q", d, got)
		}
		for path, want := range map[string]string{"NM1[IL]03": "O'DOE-SMITH", "NM109": "W 1", "HI01-2": "M5416"} {
			if got, _ := x.Get(path); len(got) != 1 || got[0] != want {
				t.Errorf("%q: %s = %q", d, path, got)
			}
		}
	}
}

// FuzzWriter builds an interchange from arbitrary delimiters, a segment
// ID and element values: either the Writer refuses with a *WriteError (a
// value holding a delimiter is ErrDelimiter, and one does), or what it
// built parses strictly, without findings, and every value reads back.
func FuzzWriter(f *testing.F) {
	f.Add(byte('*'), byte('^'), byte(':'), byte('~'), "NM1", "IL\x001\x00DOE\x00JANE\x00\x00\x00\x00MI\x00W123")
	f.Add(byte('|'), byte(0), byte('>'), byte('\n'), "EB", "1\x00IND\x0030")
	f.Add(byte('*'), byte(':'), byte(':'), byte('~'), "EB", "1")
	f.Add(byte('*'), byte('^'), byte(':'), byte('~'), "MSG", "A*B")
	f.Add(byte('\r'), byte('\t'), byte('\v'), byte('\n'), "HI", " lead\x00trail ")
	f.Fuzz(func(t *testing.T, e, r, c, s byte, id, values string) {
		d := x12.Delimiters{Element: e, Repetition: r, Component: c, Segment: s}
		vals := strings.Split(values, "\x00")
		w := newSet(d)
		w.Segment(id, vals...)
		w.SegmentOf(id, x12.Composite(vals...))
		if r != 0 {
			w.SegmentOf(id, x12.Repeated(vals...))
		}
		data, err := w.Bytes()
		if err != nil {
			var we *x12.WriteError
			if !errors.As(err, &we) {
				t.Fatalf("error %v is not a *WriteError", err)
			}
			if errors.Is(err, x12.ErrDelimiter) && !strings.ContainsAny(we.Value, string([]byte{e, c, s})) && (r == 0 || !strings.ContainsRune(we.Value, rune(r))) {
				t.Fatalf("ErrDelimiter for %q, which holds none of %q", we.Value, d)
			}
			return
		}
		x := parseClean(t, data)
		trimmed := vals
		for len(trimmed) > 0 && trimmed[len(trimmed)-1] == "" {
			trimmed = trimmed[:len(trimmed)-1]
		}
		seg := x.Segment(3)
		if seg.ID() != id {
			t.Fatalf("segment 4 is %q, want %q", seg.ID(), id)
		}
		for i, v := range trimmed {
			if got, ok := seg.Element(i + 1); !ok || got != v {
				t.Fatalf("%s%02d = %q, %v; want %q", id, i+1, got, ok, v)
			}
		}
		if _, ok := seg.Element(len(trimmed) + 1); ok {
			t.Fatalf("%s has more than %d elements", id, len(trimmed))
		}
	})
}
