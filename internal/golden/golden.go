package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// JSON returns v as a golden file holds it: indented by two spaces, with
// <, > and & as they are (details quote commands and patterns), ending in
// a newline.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Compare fails t when data differs from the file at path. With update it
// writes data there first, making the file's folder, so that a deliberate
// change is one run with -update and a review of the diff.
func Compare(t testing.TB, path string, data []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Fatalf("%s differs (-want +got; run the test with -update after a deliberate change, and review the diff):\n%s", path, diff)
	}
}
