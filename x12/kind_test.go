package x12_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/x12"
)

func registry() *assert.Registry {
	r := assert.NewRegistry()
	x12.Register(r)
	return r
}

func recordsEnv(t *testing.T) *assert.Env {
	t.Helper()
	env := assert.NewEnv()
	x12.Attach(env, x12.FolderSource(check.DirFS("testdata/records"), 0))
	return env
}

func run(t *testing.T, env *assert.Env, spec string) assert.Result {
	t.Helper()
	a, err := registry().Decode([]byte(spec))
	if err != nil {
		t.Fatalf("decode %s: %v", spec, err)
	}
	return a.Check(context.Background(), env).Normalize()
}

func TestResponseCheck(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		status  assert.Status
		score   float64
		matched any
		details string
	}{
		{
			name:    "278 approval",
			spec:    `{"assert": "x12-response", "transaction": "278", "correlate_by": {"request_id": "PA-2026-0417"}, "fields": [{"path": "2000F/HCR01", "expected": "A1"}, {"path": "2000F/HCR02", "expected": "AUTH88231"}, {"path": "2000F/SV101-2", "expected": 72148}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "1001",
			details: `the 278 response "1001" (record auth) matched; 3 of 3 fields passed.`,
		},
		{
			name:    "270 selects the eligibility pair",
			spec:    `{"assert": "x12-response", "transaction": "270", "correlate_by": {"2100C/NM1[IL]09": "W123456789"}, "fields": [{"path": "2110C/EB(*)11", "expected": "Y"}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "2001",
		},
		{
			name:    "271 and a metadata number",
			spec:    `{"assert": "x12-response", "transaction": "271", "correlate_by": {"attempt": 1, "patient_id": "W123456789"}, "fields": [{"path": "EB(3)08", "expected": 0.2}, {"path": "EB(2)07", "expected": 500}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "2001",
		},
		{
			name:    "partial",
			spec:    `{"assert": "x12-response", "transaction": "278", "fields": [{"path": "2000F/HCR01", "expected": "A1"}, {"path": "2000F/HCR02", "expected": "AUTH00000"}]}`,
			status:  assert.StatusFailed,
			score:   0.5,
			matched: "1001",
			details: `the 278 response "1001" (record auth) matched but only 1 of 2 fields passed (2000F/HCR02: expected "AUTH00000", got "AUTH88231").`,
		},
		{
			name:    "best of several candidates",
			spec:    `{"assert": "x12-response", "correlate_by": {"patient_id": "W123456789"}, "fields": [{"path": "2110C/EB(*)11", "expected": "Y"}, {"path": "HCR02", "expected": "AUTH88231"}]}`,
			status:  assert.StatusFailed,
			score:   0.5,
			matched: "1001",
			details: `None of 2 records satisfied every field; best was the 278 response "1001" (record auth) with 1 of 2 fields passed (2110C/EB(*)11: expected "Y", got null; no value at this path).`,
		},
		{
			name:    "no candidate",
			spec:    `{"assert": "x12-response", "transaction": "278", "correlate_by": {"request_id": "PA-9999"}}`,
			status:  assert.StatusFailed,
			score:   0,
			matched: nil,
			details: `No candidate: found no 278 records with request_id = "PA-9999"; the source held 4 records.`,
		},
		{
			name:    "AAA rejection",
			spec:    `{"assert": "x12-response", "transaction": "270", "correlate_by": {"verified": false}, "fields": [{"path": "2100B/AAA01", "expected": "Y"}, {"path": "AAA03", "expected": "50"}, {"path": "EB01", "expected": null}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "4321",
		},
		{
			name:    "277 STC composite by record transaction",
			spec:    `{"assert": "x12-response", "transaction": "276", "correlate_by": {"claim_id": "ABCXYZ1"}, "fields": [{"path": "2200D/STC01", "expected": "P3:317"}, {"path": "2200D/STC01-1", "expected": "P3"}, {"path": "2200D(2)/STC01-2", "expected": "3"}, {"path": "2220E/STC01-2", "expected": 88}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "0001",
		},
		{
			name:    "no fields: a candidate is enough",
			spec:    `{"assert": "x12-response", "transaction": "277"}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "0001",
		},
		{
			name:    "null transaction selects all",
			spec:    `{"assert": "x12-response", "transaction": null, "fields": [{"path": "ST01", "expected": "277"}]}`,
			status:  assert.StatusPassed,
			score:   1,
			matched: "0001",
		},
		{
			name:    "a correlate_by key that is neither metadata nor a path",
			spec:    `{"assert": "x12-response", "correlate_by": {"member_id": "W123456789"}}`,
			status:  assert.StatusFailed,
			details: `No candidate: found no records with member_id = "W123456789"; the source held 4 records.`,
		},
		{
			name:   "null correlation matches absent metadata",
			spec:   `{"assert": "x12-response", "transaction": "271", "correlate_by": {"claim_id": null, "2100C/NM1[IL]09": "W123456789"}}`,
			status: assert.StatusPassed, score: 1, matched: "2001",
		},
		{
			name:   "a wildcard field passes when any value matches",
			spec:   `{"assert": "x12-response", "transaction": "271", "correlate_by": {"request_id": "ELIG-0417"}, "fields": [{"path": "EB(*)03[*]", "expected": "73"}, {"path": "2120C/PER04", "expected": "8005551234"}]}`,
			status: assert.StatusPassed, score: 1, matched: "2001",
		},
	}
	env := recordsEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, env, tt.spec)
			if res.Status != tt.status || res.Score != tt.score {
				t.Fatalf("status %s score %v, want %s %v: %s", res.Status, res.Score, tt.status, tt.score, res.Details)
			}
			if tt.details != "" && res.Details != tt.details {
				t.Errorf("details\n got %s\nwant %s", res.Details, tt.details)
			}
			ev := res.Evidence.(check.Evidence)
			if ev.Matched != tt.matched && tt.status == assert.StatusPassed || tt.matched != nil && ev.Matched != tt.matched {
				t.Errorf("matched %v, want %v", ev.Matched, tt.matched)
			}
		})
	}
}

func TestResponseEvidenceJSON(t *testing.T) {
	res := run(t, recordsEnv(t), `{"assert": "x12-response", "transaction": "278", "fields": [{"path": "HCR(*)02", "expected": "AUTH88231"}, {"path": "2010C/NM103", "expected": "DOE"}, {"path": "NM1[SJ]10", "expected": null}]}`)
	got, err := json.Marshal(res.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"matched":"1001","field_results":[` +
		`{"path":"HCR(*)02","expected":"AUTH88231","actual":["AUTH88231","AUTH88231"],"passed":true},` +
		`{"path":"2010C/NM103","expected":"DOE","actual":"DOE","passed":true},` +
		`{"path":"NM1[SJ]10","expected":null,"actual":null,"passed":true}],"candidates":1}`
	if string(got) != want {
		t.Errorf("evidence\n got %s\nwant %s", got, want)
	}
}

func TestResponseErrors(t *testing.T) {
	spec := `{"assert": "x12-response", "transaction": "271"}`
	t.Run("no source", func(t *testing.T) {
		res := run(t, assert.NewEnv(), spec)
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "no x12 evidence") {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
	t.Run("malformed response", func(t *testing.T) {
		env := assert.NewEnv()
		x12.Attach(env, x12.MemorySource(x12.Record{Name: "bad", Response: "GS*HB*X~"}))
		res := run(t, env, spec)
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "x12 record bad: the response cannot be read: x12: at byte 0: 1:1: no ISA segment") {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
	t.Run("unreadable folder", func(t *testing.T) {
		env := assert.NewEnv()
		x12.Attach(env, x12.FolderSource(check.DirFS(filepath.Join(t.TempDir(), "missing")), 0))
		res := run(t, env, spec)
		if res.Status != assert.StatusError || !strings.Contains(res.Details, "x12 records:") {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		a, _ := registry().Decode([]byte(spec))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res := a.Check(ctx, recordsEnv(t)); res.Status != assert.StatusError {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
	t.Run("a request that cannot be read does not matter", func(t *testing.T) {
		env := assert.NewEnv()
		resp, _ := os.ReadFile("testdata/own/janedoe_271.x12")
		x12.Attach(env, x12.MemorySource(x12.Record{Request: "garbage", Response: string(resp)}))
		if res := run(t, env, `{"assert": "x12-response", "transaction": "270", "fields": [{"path": "BHT03", "expected": "ELIG-0417"}]}`); res.Status != assert.StatusPassed {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
	t.Run("declared transaction", func(t *testing.T) {
		env := assert.NewEnv()
		resp, _ := os.ReadFile("testdata/corpus/lfh_835_managed_care.x12")
		x12.Attach(env, x12.MemorySource(x12.Record{Transaction: "278", Response: string(resp)}))
		if res := run(t, env, `{"assert": "x12-response", "transaction": "278"}`); res.Status != assert.StatusPassed {
			t.Errorf("%s %q", res.Status, res.Details)
		}
		if res := run(t, env, `{"assert": "x12-response", "transaction": "276"}`); res.Status != assert.StatusFailed {
			t.Errorf("%s %q", res.Status, res.Details)
		}
	})
}

func TestResponseSpec(t *testing.T) {
	tests := []struct {
		name, spec, want string
	}{
		{"bad field path", `{"assert": "x12-response", "fields": [{"path": "NM1[IL]09", "expected": "x"}, {"path": "nm109", "expected": "x"}]}`, `/fields/1/path: x12 path "nm109"`},
		{"unknown key", `{"assert": "x12-response", "transation": "271"}`, "transation"},
		{"transaction out of range", `{"assert": "x12-response", "transaction": "280"}`, "/transaction"},
		{"transaction as a number", `{"assert": "x12-response", "transaction": 271}`, "/transaction"},
		{"field without expected", `{"assert": "x12-response", "fields": [{"path": "BHT03"}]}`, "/fields/0"},
		{"correlate_by value an object", `{"assert": "x12-response", "correlate_by": {"a": {}}}`, "/correlate_by/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := registry().Decode([]byte(tt.spec))
			var se *assert.SpecError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a SpecError mentioning %q", err, tt.want)
			}
		})
	}
	a, err := registry().Decode([]byte(`{"assert": "x12-response", "transaction": "271", "correlate_by": {"TRN02": "X", "n": 5}, "fields": [{"path": "EB01", "expected": "1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.Kind() != x12.Kind {
		t.Errorf("decoded %+v", a)
	}
	// What was decoded is what is checked: correlate_by "TRN02" = "X"
	// selects no record, and the number 5 compares as text.
	if res := a.Check(context.Background(), recordsEnv(t)); res.Status != assert.StatusFailed || !strings.Contains(res.Details, `271 records with TRN02 = "X" and n = 5`) {
		t.Errorf("%s %q", res.Status, res.Details)
	}
	if _, ok := assert.DefaultRegistry().Schema(x12.Kind); !ok {
		t.Error("x12-response is not in the default registry")
	}
}

// Details name the best record even when two responses share an ST02.
func TestResponseSameControlNumber(t *testing.T) {
	resp, _ := os.ReadFile("testdata/own/janedoe_271.x12")
	env := assert.NewEnv()
	x12.Attach(env, x12.MemorySource(
		x12.Record{Name: "first", Response: string(resp), Metadata: map[string]any{"n": "1"}},
		x12.Record{Name: "second", Response: strings.Replace(string(resp), "NM1*IL*1*DOE*JANE", "NM1*IL*1*ROE*JANE", 1)},
	))
	res := run(t, env, `{"assert": "x12-response", "fields": [{"path": "NM1[IL]03", "expected": "ROE"}, {"path": "BHT03", "expected": "X"}]}`)
	if !strings.Contains(res.Details, `best was the 271 response "2001" (record second)`) {
		t.Errorf("details %q", res.Details)
	}
}

// A spec built in Go goes through the decoder like one read from a file:
// an invalid path is a spec error, never a check that passes expected:
// null (issue 9).
func TestResponseBuiltInGo(t *testing.T) {
	spec, _ := json.Marshal(map[string]any{"assert": x12.Kind, "transaction": "278",
		"correlate_by": map[string]any{"2010C/NM109": "W123456789"},
		"fields":       []check.Field{{Path: "2000F/HCR01", Expected: "A1"}}})
	if res := run(t, recordsEnv(t), string(spec)); res.Status != assert.StatusPassed {
		t.Errorf("%s %q", res.Status, res.Details)
	}
	bad, _ := json.Marshal(map[string]any{"assert": x12.Kind, "fields": []check.Field{{Path: "nm109", Expected: nil}}})
	var se *assert.SpecError
	if _, err := registry().Decode(bad); !errors.As(err, &se) {
		t.Errorf("an invalid path with expected null decoded: %v", err)
	}
}
