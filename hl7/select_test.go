package hl7

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// selectPaths are read from every test file by TestSelectMatchesParse and
// the fuzzer.
var selectPaths = []string{"MSH.10", "MSH[2].10", "MSH[*].9.1", "PID.3[*].1", "OBX[*].5", "OBX[2].5", "BHS.11", "FTS.1", "MSH.1", "MSH.1.1.2", "MSH.2", "MSH.2[2]", "PID", "ZZZ.1", "NTE[*].3", "EVN[3]"}

// TestSelectMatchesParse: Select reads what Parse and Batch.Texts read,
// and fails where Parse fails, with the same error.
func TestSelectMatchesParse(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.hl7")
	paths := make([]Path, len(selectPaths))
	for i, s := range selectPaths {
		paths[i] = MustParsePath(s)
	}
	paths = append(paths, Path{Segment: "pid", Field: 1}, Path{}) // invalid paths select nothing
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkSelect(t, f, data, paths)
	}
}

func checkSelect(t *testing.T, name string, data []byte, paths []Path) {
	t.Helper()
	got, err := Select(data, paths...)
	b, perr := Parse(data)
	if perr != nil {
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || err.Error() != perr.Error() {
			t.Fatalf("%s: Select error %v, Parse error %v", name, err, perr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: Select: %v", name, err)
	}
	for i, p := range paths {
		if want := b.Texts(p); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("%s %s: Select %q, Parse %q", name, p, got[i], want)
		}
	}
}
