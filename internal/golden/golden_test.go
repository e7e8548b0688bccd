package golden

import (
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records a failure instead of stopping the
// test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.failed = f; panic(r) }
func (r *recorder) Fatal(a ...any)            { r.failed = "fatal"; panic(r) }

// compare runs Compare and returns the failure it reported, "" if none.
func compare(t *testing.T, path string, data []byte, update bool) (failed string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != any(r) {
			panic(p)
		}
		failed = r.failed
	}()
	Compare(r, path, data, update)
	return ""
}

func TestCompare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "golden", "evidence.json")
	data := JSON(t, []map[string]string{{"details": `ran "a<b" && c`}})
	if want := "[\n  {\n    \"details\": \"ran \\\"a<b\\\" && c\"\n  }\n]\n"; string(data) != want {
		t.Errorf("JSON = %q, want %q", data, want)
	}
	if f := compare(t, path, data, false); !strings.Contains(f, "-update") {
		t.Errorf("a missing golden: %q", f)
	}
	if f := compare(t, path, data, true); f != "" {
		t.Errorf("-update: %q", f)
	}
	if f := compare(t, path, data, false); f != "" {
		t.Errorf("the same data: %q", f)
	}
	if f := compare(t, path, append(data, ' '), false); !strings.Contains(f, "differs") {
		t.Errorf("other data: %q", f)
	}
}
