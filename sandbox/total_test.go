package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

// linkFolder writes folder/000.ext holding data and 59 more names of it
// (hard links), as the hostile snapshot of issue 25 had: little on disk,
// much to read.
func linkFolder(t *testing.T, folder, ext string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(folder, "000."+ext)
	if err := os.WriteFile(first, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 60; i++ {
		if err := os.Link(first, filepath.Join(folder, fmt.Sprintf("%03d.%s", i, ext))); err != nil {
			t.Fatal(err)
		}
	}
}

// One source reads at most 256 MiB in all by default (DESIGN.md section 12
// rule 17): 60 names of one 5 MB file in fhir/, hl7/ or x12/ are an error
// that names the cap, found before anything is read; Options.MaxTotalSize
// moves the cap, and every folder has a total of its own.
func TestMaxTotalSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 5 MB files")
	}
	const size = 5 << 20
	patient := `{"resourceType":"Patient","id":"p1","name":[{"family":"` + strings.Repeat("x", size-60) + `"}]}`
	segment := "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|1|P|2.5\rPID|1||" + strings.Repeat("y", size-60) + "\r"
	dir := t.TempDir()
	linkFolder(t, filepath.Join(dir, "fhir"), "json", []byte(patient))
	linkFolder(t, filepath.Join(dir, "hl7"), "hl7", []byte(segment))
	linkFolder(t, filepath.Join(dir, "x12"), "response.x12", []byte(strings.Repeat("z", size)))
	criteria := []assert.Criterion{
		{Label: "fhir", Assertion: assert.Spec(`{"assert": "fhir-resource-state", "resource_type": "Patient"}`)},
		{Label: "hl7", Assertion: assert.Spec(`{"assert": "hl7-structural", "correlate_by": {"message_type": "ADT"}}`)},
		{Label: "x12", Assertion: assert.Spec(`{"assert": "x12-response", "transaction": "271"}`)},
	}
	for _, tc := range []struct {
		name  string
		total int64
		want  string // in every criterion's details
	}{
		{"default", 0, "past the 268435456-byte (256 MiB) cap on what one evidence source reads in all"},
		{"lower", 12 << 20, "past the 12582912-byte (12 MiB) cap on what one evidence source reads in all"},
	} {
		env, err := sandbox.Load(dir, sandbox.Options{MaxTotalSize: tc.total})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := assert.Evaluate(context.Background(), criteria, env)
		env.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Criteria {
			if c.Status != assert.StatusError || !strings.Contains(c.Details, tc.want) {
				t.Errorf("%s: %s: %s %q; want error naming the cap", tc.name, c.Label, c.Status, c.Details)
			}
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %s; the cap should be found before reading", tc.name, d)
		}
	}
	// Within the cap a folder is read: the cap is on what one source
	// reads, not on what the snapshot holds.
	small := t.TempDir()
	if err := os.MkdirAll(filepath.Join(small, "hl7"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.hl7", "b.hl7"} {
		if err := os.Link(filepath.Join(dir, "hl7", "000.hl7"), filepath.Join(small, "hl7", name)); err != nil {
			t.Fatal(err)
		}
	}
	env, err := sandbox.Load(small, sandbox.Options{MaxTotalSize: 12 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := assert.Evaluate(context.Background(), criteria[1:2], env)
	if err != nil || res.Criteria[0].Status != assert.StatusPassed {
		t.Fatalf("under the cap: %v %+v", err, res.Criteria[0])
	}
}
