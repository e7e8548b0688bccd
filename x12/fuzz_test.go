package x12_test

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/assaykit/assay/x12"
)

// fuzzPaths are read from every interchange the parser fuzzer builds.
var fuzzPaths = []x12.Path{
	x12.MustParsePath("ISA06"), x12.MustParsePath("ST(*)02"), x12.MustParsePath("NM1[IL]09"),
	x12.MustParsePath("2000C(*)/2100C/NM103"), x12.MustParsePath("2110C(*)/EB03[*]-1"),
	x12.MustParsePath("2000A/NM1(*)01[*]"), x12.MustParsePath("HI01-2"), x12.MustParsePath("SE01"),
	x12.MustParsePath("2110C/EB(*)01"), x12.MustParsePath("2100D/NM1[IL](*)03"), x12.MustParsePath("EB03[2]-1"),
	x12.MustParsePath("2000B(2)/2000C(*)/EB(2)03-2"), x12.MustParsePath("ST(3)02"),
}

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.x12")
	own, _ := filepath.Glob("testdata/own/*.x12")
	for _, file := range append(files, own...) {
		f.Add(mustRead(f, filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file))))
	}
}

// FuzzParse: no input makes the parser or a path read panic; a parse
// succeeds or fails with a typed error; strict parsing fails exactly when
// lenient parsing has findings; positions stay inside the input.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := x12.Parse(data)
		if err != nil {
			var se *x12.SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if x.Len() == 0 {
			t.Fatal("no segments, not even the ISA")
		}
		// Loop-free paths read by a scan first, before the index exists.
		scanned := make([][]string, len(fuzzPaths))
		for k, p := range fuzzPaths {
			scanned[k] = p.Values(x)
		}
		for i := range x.Len() {
			s := x.Segment(i)
			_ = s.ID()
			_ = s.LoopPath()
			_, _ = s.Element(3)
			if s.Offset() < 0 || s.Offset() > len(data) {
				t.Fatalf("segment %d at %d", i, s.Offset())
			}
		}
		for _, f := range x.Findings() {
			if f.Segment < 1 || f.Segment > x.Len() || f.Offset > len(data) || f.Line < 1 || f.Column < 1 {
				t.Fatalf("finding %+v out of range", f)
			}
		}
		for _, tx := range x.Transactions() {
			if tx.Start < 0 || tx.End < tx.Start-1 || tx.End >= x.Len() {
				t.Fatalf("transaction %+v", tx)
			}
		}
		for k, p := range fuzzPaths {
			v := p.Values(x)
			if len(v) > 1 && !p.Multi() {
				t.Fatalf("%s selected %d values", p, len(v))
			}
			if !slices.Equal(v, scanned[k]) {
				t.Fatalf("%s: scan read %q, the index %q", p, scanned[k], v)
			}
		}
		_, err = x12.Parse(data, x12.Strict())
		if (err != nil) != (len(x.Findings()) > 0) {
			t.Fatalf("strict error %v with %d findings", err, len(x.Findings()))
		}
	})
}

// FuzzParsePath: no string makes the path parser or a read panic; an
// accepted path reads back as written, and one without a wildcard selects
// at most one value.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"BHT03", "NM1[IL]09", "NM1(3)03", "2100C/NM1[IL]03", "2110C/EB01", "EB03[2]", "EB03[*]",
		"HI01-2", "ISA06", "SVC01", "2000C(2)/2100C/NM103", "2000C(*)/2110C(*)/EB(*)03[*]-2", "NM1[", "2100C/", "(*)", "-1", "NM1[a]b]03"} {
		f.Add(s)
	}
	x, err := x12.Parse(mustRead(f, "own/janedoe_271.x12"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := x12.ParsePath(s)
		if err != nil {
			var pe *x12.PathError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q", p.String())
		}
		if v := p.Values(x); len(v) > 1 && !p.Multi() {
			t.Fatalf("%s selected %d values", s, len(v))
		}
	})
}
