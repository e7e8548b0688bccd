package hl7_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
	"github.com/assaykit/assay/internal/golden"
)

// TestEvidenceGolden runs hl7-structural specs against a snapshot folder
// (good files, one that does not parse) and compares every result with
// testdata/golden/evidence.json. Run with -update after a deliberate
// change.
func TestEvidenceGolden(t *testing.T) {
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	snapshot := fstest.MapFS{
		"a.hl7":         {Data: read("own/orm_o01_priorauth.hl7")},
		"b.hl7":         {Data: read("own/mllp_two_frames.hl7")},
		"c.hl7":         {Data: read("own/bad_segment_id.hl7")},
		"d.hl7":         {Data: read("own/bom_adt_a04.hl7")},
		"e.hl7":         {Data: read("own/cr_lone_lf_in_segment.hl7")},
		"notes.txt":     {Data: []byte("not evidence")},
		"sub.hl7/x.hl7": {Data: read("own/adt_a01_crlf.hl7")},
	}
	env := assert.NewEnv()
	hl7.Attach(env, hl7.FolderSource(snapshot, 0))
	specs := []string{
		`{"assert":"hl7-structural","correlate_by":{"message_type":"ORM"},"fields":[{"path":"PID.3[*].1","expected":"W123456789"},{"path":"OBR.4.1","expected":72148}]}`,
		`{"assert":"hl7-structural","correlate_by":{"message_type":"ORU"},"fields":[{"path":"OBX[*].5","expected":"line one\nline two"}]}`,
		`{"assert":"hl7-structural","correlate_by":{"control_id":"BOM-1"},"fields":[{"path":"PID.5.1","expected":"DOE"},{"path":"PID.5.2","expected":"JOHN"}]}`,
		`{"assert":"hl7-structural","correlate_by":{"message_type":"SIU"}}`,
	}
	type entry struct {
		Spec   json.RawMessage `json:"spec"`
		Result assert.Result   `json:"result"`
	}
	var got []entry
	r := registry(t)
	for _, s := range specs {
		a, err := r.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, entry{Spec: json.RawMessage(s), Result: assert.Run(context.Background(), a, env)})
	}
	update := flag.Lookup("update")
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), golden.JSON(t, got), update != nil && update.Value.String() == "true")
}
