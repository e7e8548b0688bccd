package hl7_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/hl7"
)

func registry(t *testing.T) *assert.Registry {
	t.Helper()
	r := assert.NewRegistry()
	hl7.Register(r)
	return r
}

func mustParse(t *testing.T, files ...string) []*hl7.Message {
	t.Helper()
	var out []*hl7.Message
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := hl7.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, b.Messages()...)
	}
	return out
}

// capture is what an agent "sent" in these tests: an ADT, the prior
// authorization order, two framed ORUs, and a message without a control id.
func capture(t *testing.T) []*hl7.Message {
	return mustParse(t, "own/adt_a01_crlf.hl7", "own/orm_o01_priorauth.hl7", "own/mllp_two_frames.hl7", "corpus/nodehl7client_adt_a03_lf_subcomponents.hl7")
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStructuralCheck(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		status   assert.Status
		score    float64
		details  string
		evidence string
	}{
		{
			name:     "order matched",
			spec:     `{"assert":"hl7-structural","correlate_by":{"message_type":"ORM","trigger_event":"O01"},"fields":[{"path":"PID.5.1","expected":"DOE"},{"path":"PID.3[*].1","expected":"W123456789"},{"path":"OBR.4.1","expected":72148}]}`,
			status:   assert.StatusPassed,
			score:    1,
			details:  "message PA-ORM-0001 matched; 3 of 3 fields passed.",
			evidence: `{"matched":"PA-ORM-0001","field_results":[{"path":"PID.5.1","expected":"DOE","actual":"DOE","passed":true},{"path":"PID.3[*].1","expected":"W123456789","actual":["MRN-000123","W123456789"],"passed":true},{"path":"OBR.4.1","expected":72148,"actual":"72148","passed":true}],"candidates":1,"message_index":1,"captured":5}`,
		},
		{
			name:     "control id and a path as keys",
			spec:     `{"assert":"hl7-structural","correlate_by":{"control_id":"FRAME-2","MSH.9.1":"ORU"},"fields":[{"path":"OBX[*].5","expected":3},{"path":"OBX[3].5","expected":null}]}`,
			status:   assert.StatusPassed,
			score:    1,
			details:  "message FRAME-2 matched; 2 of 2 fields passed.",
			evidence: `{"matched":"FRAME-2","field_results":[{"path":"OBX[*].5","expected":3,"actual":["2","3"],"passed":true},{"path":"OBX[3].5","expected":null,"actual":null,"passed":true}],"candidates":1,"message_index":3,"captured":5}`,
		},
		{
			name:     "best of several candidates, partial score",
			spec:     `{"assert":"hl7-structural","correlate_by":{"message_type":"ORU"},"fields":[{"path":"PID.5.2","expected":"TWO"},{"path":"OBX.5","expected":"9"}]}`,
			status:   assert.StatusFailed,
			score:    0.5,
			details:  `None of 2 messages satisfied every field; best was message FRAME-2 with 1 of 2 fields passed (OBX.5: expected "9", got "2").`,
			evidence: `{"matched":"FRAME-2","field_results":[{"path":"PID.5.2","expected":"TWO","actual":"TWO","passed":true},{"path":"OBX.5","expected":"9","actual":"2","passed":false}],"candidates":2,"message_index":3,"captured":5}`,
		},
		{
			name:     "no candidate",
			spec:     `{"assert":"hl7-structural","correlate_by":{"message_type":"SIU","sending_application":"ASSAYEHR"},"fields":[{"path":"SCH.1","expected":"1"}]}`,
			status:   assert.StatusFailed,
			score:    0,
			details:  `No candidate: found no messages with message_type = "SIU" and sending_application = "ASSAYEHR"; the source held 5 messages.`,
			evidence: `{"matched":null,"field_results":[],"candidates":0,"message_index":null,"captured":5}`,
		},
		{
			name:     "no fields: any candidate passes",
			spec:     `{"assert":"hl7-structural","correlate_by":{"receiving_application":"RIS"}}`,
			status:   assert.StatusPassed,
			score:    1,
			details:  "message PA-ORM-0001 matched; no fields to check.",
			evidence: `{"matched":"PA-ORM-0001","field_results":[],"candidates":1,"message_index":1,"captured":5}`,
		},
		{
			name:     "no correlate_by: every message is a candidate",
			spec:     `{"assert":"hl7-structural","fields":[{"path":"OBX[2].5","expected":128}]}`,
			status:   assert.StatusPassed,
			score:    1,
			details:  "message ADT-0001 matched; 1 of 1 fields passed.",
			evidence: `{"matched":"ADT-0001","field_results":[{"path":"OBX[2].5","expected":128,"actual":"128","passed":true}],"candidates":5,"message_index":0,"captured":5}`,
		},
		{
			name:     "message without a control id is named by position",
			spec:     `{"assert":"hl7-structural","correlate_by":{"message_structure":"ADT_A03","control_id":null},"fields":[{"path":"PID.3[2].4.2","expected":"1.3"}]}`,
			status:   assert.StatusPassed,
			score:    1,
			details:  "message #4 matched; 1 of 1 fields passed.",
			evidence: `{"matched":"#4","field_results":[{"path":"PID.3[2].4.2","expected":"1.3","actual":"1.3","passed":true}],"candidates":1,"message_index":4,"captured":5}`,
		},
		{
			name:    "explicit null, numbers and case",
			spec:    `{"assert":"hl7-structural","correlate_by":{"control_id":"ADT-0001"},"fields":[{"path":"OBX[3].5","expected":null},{"path":"OBX.5","expected":72.0},{"path":"PID.5.1","expected":"doe"},{"path":"PID.5.1","expected":true}]}`,
			status:  assert.StatusFailed,
			score:   0.5,
			details: `message ADT-0001 matched but only 2 of 4 fields passed (PID.5.1: expected "doe", got "DOE"; differs in case).`,
			evidence: `{"matched":"ADT-0001","field_results":[{"path":"OBX[3].5","expected":null,"actual":"\"\"","passed":true},{"path":"OBX.5","expected":72.0,"actual":"72","passed":true},` +
				`{"path":"PID.5.1","expected":"doe","actual":"DOE","passed":false,"reason":"differs in case"},{"path":"PID.5.1","expected":true,"actual":"DOE","passed":false,"reason":"a boolean compares with the text \"true\" or \"false\""}],"candidates":1,"message_index":0,"captured":5}`,
		},
		{
			name:     "wildcard field that selects nothing",
			spec:     `{"assert":"hl7-structural","correlate_by":{"control_id":"ADT-0001"},"fields":[{"path":"NK1[*].2","expected":"DOE"}]}`,
			status:   assert.StatusFailed,
			score:    0,
			details:  `message ADT-0001 matched but only 0 of 1 fields passed (NK1[*].2: expected "DOE", got null; no value at this path).`,
			evidence: `{"matched":"ADT-0001","field_results":[{"path":"NK1[*].2","expected":"DOE","actual":null,"passed":false,"reason":"no value at this path"}],"candidates":1,"message_index":0,"captured":5}`,
		},
	}
	r := registry(t)
	env := assert.NewEnv()
	hl7.Attach(env, hl7.MemorySource(capture(t)...))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Decode([]byte(tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if a.Kind() != hl7.Kind {
				t.Fatalf("kind %q", a.Kind())
			}
			res := a.Check(context.Background(), env)
			if res.Status != tt.status || res.Score != tt.score || res.Details != tt.details {
				t.Errorf("got %s %v %q\nwant %s %v %q", res.Status, res.Score, res.Details, tt.status, tt.score, tt.details)
			}
			if got := compactJSON(t, res.Evidence); got != tt.evidence {
				t.Errorf("evidence\n got %s\nwant %s", got, tt.evidence)
			}
		})
	}
}

func TestStructuralSpecErrors(t *testing.T) {
	tests := []struct {
		spec     string
		pointers []string
		msg      string
	}{
		{`{"assert":"hl7-structural","fields":[{"path":"PID.5","expect":"X"}]}`, []string{"/fields/0", "/fields/0/expect"}, `unknown key "expect"`},
		{`{"assert":"hl7-structural","correlate_by":{"control_id":{"a":1}}}`, []string{"/correlate_by/control_id"}, ""},
		{`{"assert":"hl7-structural","correlate_by":[]}`, []string{"/correlate_by"}, ""},
		{`{"assert":"hl7-structural","fields":[{"path":"PID..5","expected":"X"},{"path":"PID.5","expected":"X"},{"path":"pid.3","expected":1}]}`, []string{"/fields/0/path", "/fields/2/path"}, "upper-case (PID)"},
		{`{"assert":"hl7-structural","correlate_by":{"messagetype":"ADT","MSH.9.1":"ADT","patient/id":"1"}}`, []string{"/correlate_by/messagetype", "/correlate_by/patient~1id"}, "neither an HL7 path nor one of control_id, message_structure, message_type"},
		{`{"assert":"hl7-structural","correlate_by":{},"extra":1}`, []string{"/extra"}, `unknown key "extra"`},
	}
	r := registry(t)
	for _, tt := range tests {
		_, err := r.Decode([]byte(tt.spec))
		var se *assert.SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a *SpecError", tt.spec, err)
			continue
		}
		var ptrs []string
		for _, v := range se.Violations {
			ptrs = append(ptrs, v.Pointer)
		}
		if strings.Join(ptrs, " ") != strings.Join(tt.pointers, " ") {
			t.Errorf("%s: pointers %q, want %q (%v)", tt.spec, ptrs, tt.pointers, err)
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v does not say %q", tt.spec, err, tt.msg)
		}
	}
}

func TestStructuralSourceErrors(t *testing.T) {
	r := registry(t)
	a, err := r.Decode([]byte(`{"assert":"hl7-structural","correlate_by":{"message_type":"ADT"}}`))
	if err != nil {
		t.Fatal(err)
	}
	// No source at all.
	res := a.Check(context.Background(), assert.NewEnv())
	if res.Status != assert.StatusError || !strings.Contains(res.Details, "hl7") {
		t.Errorf("missing source: %s %q", res.Status, res.Details)
	}
	// A malformed file in the capture folder is read but does not parse:
	// it is no candidate, and the evidence lists it under "rejected" with
	// its index and reason (DESIGN section 11); the other file still counts.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "01.hl7"), []byte("MSH|^~\\&|A|B|C|D|1||ADT^A01|1|P|2.5\r"), 0o644)
	os.WriteFile(filepath.Join(dir, "02.hl7"), []byte("PID|1\r"), 0o644)
	env := assert.NewEnv()
	hl7.Attach(env, hl7.FolderSource(check.DirFS(dir), 0))
	res = a.Check(context.Background(), env)
	ev := compactJSON(t, res.Evidence)
	if res.Status != assert.StatusPassed || !strings.Contains(ev, `"rejected":[{"index":1,"from":"02.hl7","reason":"hl7: 02.hl7:1:1: segment 1: `) {
		t.Errorf("malformed file: %s %q %s", res.Status, res.Details, ev)
	}
	// A file that cannot be read (a FIFO where a file belongs, a file over
	// the cap) makes the evidence incomplete: status error, naming it.
	if err := syscall.Mkfifo(filepath.Join(dir, "03.hl7"), 0o644); err == nil {
		env = assert.NewEnv()
		hl7.Attach(env, hl7.FolderSource(check.DirFS(dir), 0))
		if res = a.Check(context.Background(), env); res.Status != assert.StatusError || !strings.Contains(res.Details, "03.hl7") || !strings.Contains(res.Details, "not a regular file") {
			t.Errorf("FIFO: %s %q", res.Status, res.Details)
		}
		os.Remove(filepath.Join(dir, "03.hl7"))
	}
	env = assert.NewEnv()
	hl7.Attach(env, hl7.FolderSource(check.DirFS(dir), 10))
	if res = a.Check(context.Background(), env); res.Status != assert.StatusError || !strings.Contains(res.Details, "01.hl7") || !strings.Contains(res.Details, "cap") {
		t.Errorf("over the cap: %s %q", res.Status, res.Details)
	}
	// A folder that cannot be read.
	env = assert.NewEnv()
	hl7.Attach(env, hl7.FolderSource(check.DirFS(filepath.Join(dir, "missing")), 0))
	if res = a.Check(context.Background(), env); res.Status != assert.StatusError {
		t.Errorf("missing folder: %s %q", res.Status, res.Details)
	}
}

func TestFolderSource(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(filepath.Join("testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("own/mllp_two_frames.hl7", "b.hl7")
	copyFile("own/orm_o01_priorauth.hl7", "a.hl7")
	copyFile("corpus/pyhl7_file_two_batches.hl7", "c.hl7")
	copyFile("own/bad_no_msh.hl7", "ignored.txt")
	os.WriteFile(filepath.Join(dir, "empty.hl7"), []byte("\x0b\x1c\r\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub.hl7"), 0o755)
	msgs, err := hl7.FolderSource(check.DirFS(dir), 0).Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range msgs {
		ids = append(ids, m.ControlID())
	}
	want := "PA-ORM-0001 FRAME-1 FRAME-2 12334456778890 12334456778891 12334456778890"
	if strings.Join(ids, " ") != want {
		t.Fatalf("messages %q, want %q", ids, want)
	}
}

// TestStructuralBuiltByHand builds a spec in Go: it goes through the same
// validation as one read from a file, so an invalid path can never reach a
// check.
func TestStructuralBuiltByHand(t *testing.T) {
	env := assert.NewEnv()
	hl7.Attach(env, hl7.MemorySource(capture(t)...))
	spec := map[string]any{
		"assert":       hl7.Kind,
		"correlate_by": map[string]any{"control_id": "PA-ORM-0001"},
		"fields":       []check.Field{{Path: "IN1.36", Expected: "W123456789"}},
	}
	build := func() (assert.Assertion, error) {
		raw, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		return registry(t).Decode(raw)
	}
	a, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if res := a.Check(context.Background(), env); res.Status != assert.StatusPassed {
		t.Fatalf("%s %q", res.Status, res.Details)
	}
	spec["fields"] = append(spec["fields"].([]check.Field), check.Field{Path: "IN1..36", Expected: "x"})
	var se *assert.SpecError
	if _, err := build(); !errors.As(err, &se) || len(se.Violations) != 1 || se.Violations[0].Pointer != "/fields/1/path" || !strings.Contains(err.Error(), "IN1..36") {
		t.Fatalf("invalid path built by hand: %v", err)
	}
}
