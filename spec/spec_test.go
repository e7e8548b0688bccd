package spec_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/spec"
	"github.com/google/go-cmp/cmp"

	// Registers every domain package's kinds in the default registry.
	_ "github.com/assaykit/assay/sandbox"
)

// kindCase is one spec of a kind and the exact JSON it must write: the keys
// of DESIGN.md section 4, in its order.
type kindCase struct {
	name string
	kind string
	b    spec.Builder
	want string
}

func mustNumber(t *testing.T, s string) spec.Value {
	t.Helper()
	v, err := spec.ParseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func kindCases(t *testing.T) []kindCase {
	return []kindCase{
		{"fhir full", "fhir-resource-state", spec.FHIRResourceState{
			ResourceType: "Appointment",
			Search:       url.Values{"patient": {"Patient/jane"}, "date": {"ge2025-01-01", "lt2025-02-01"}},
			Fields: []spec.Field{
				{Path: "status", Expected: spec.String("booked")},
				{Path: "participant.0.actor.display", Expected: spec.String("Dr. <Who> & Co")},
				{Path: "minutesDuration", Expected: mustNumber(t, "30.0")},
			},
		}, `{"assert":"fhir-resource-state","resource_type":"Appointment","search":{"date":["ge2025-01-01","lt2025-02-01"],"patient":"Patient/jane"},"fields":[{"path":"status","expected":"booked"},{"path":"participant.0.actor.display","expected":"Dr. <Who> & Co"},{"path":"minutesDuration","expected":30.0}]}`},
		{"fhir defaults", "fhir-resource-state", spec.FHIRResourceState{ResourceType: "Patient"},
			`{"assert":"fhir-resource-state","resource_type":"Patient","search":{},"fields":[]}`},
		{"fhir parameter without a value", "fhir-resource-state", spec.FHIRResourceState{ResourceType: "Patient", Search: url.Values{"name": {}, "_id": {"p1"}}},
			`{"assert":"fhir-resource-state","resource_type":"Patient","search":{"_id":"p1"},"fields":[]}`},
		{"hl7 full", "hl7-structural", spec.HL7Structural{
			CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM"), "MSH.9.2": spec.String("O01")},
			Fields: []spec.Field{
				{Path: "PID.3.1", Expected: spec.String("W123456789")},
				{Path: "OBR.4.1", Expected: spec.Number(72148)},
				{Path: "PID.8"},
				{Path: "ZZZ.1", Expected: spec.Bool(true)},
			},
		}, `{"assert":"hl7-structural","correlate_by":{"MSH.9.2":"O01","message_type":"ORM"},"fields":[{"path":"PID.3.1","expected":"W123456789"},{"path":"OBR.4.1","expected":72148},{"path":"PID.8","expected":null},{"path":"ZZZ.1","expected":true}]}`},
		{"hl7 defaults", "hl7-structural", spec.HL7Structural{},
			`{"assert":"hl7-structural","correlate_by":{},"fields":[]}`},
		{"x12 full", "x12-response", spec.X12Response{
			Transaction: "278",
			CorrelateBy: map[string]spec.Value{"request_id": spec.String("r1"), "TRN02": spec.Number(12)},
			Fields:      []spec.Field{{Path: "HCR01", Expected: spec.String("A1")}, {Path: "2000E/UM03", Expected: spec.String("72148")}},
		}, `{"assert":"x12-response","transaction":"278","correlate_by":{"TRN02":12,"request_id":"r1"},"fields":[{"path":"HCR01","expected":"A1"},{"path":"2000E/UM03","expected":"72148"}]}`},
		{"x12 defaults", "x12-response", spec.X12Response{},
			`{"assert":"x12-response","transaction":null,"correlate_by":{},"fields":[]}`},
		{"portal full", "portal-state-match", spec.PortalStateMatch{
			Portal:      "payer",
			CorrelateBy: spec.PortalCorrelation{Resource: "authorizations", Key: "member_id", Value: spec.String("W123456789")},
			Assertions:  []spec.Field{{Path: "status", Expected: spec.String("approved")}, {Path: "units", Expected: spec.Number(float32(1.5))}},
		}, `{"assert":"portal-state-match","portal":"payer","correlate_by":{"resource":"authorizations","key":"member_id","value":"W123456789"},"assertions":[{"path":"status","expected":"approved"},{"path":"units","expected":1.5}]}`},
		{"portal defaults", "portal-state-match", spec.PortalStateMatch{CorrelateBy: spec.PortalCorrelation{Resource: "claims", Key: "id"}},
			`{"assert":"portal-state-match","correlate_by":{"resource":"claims","key":"id"},"assertions":[]}`},
		{"portal numeric value", "portal-state-match", spec.PortalStateMatch{CorrelateBy: spec.PortalCorrelation{Resource: "claims", Key: "id", Value: spec.Number(5)}},
			`{"assert":"portal-state-match","correlate_by":{"resource":"claims","key":"id","value":5},"assertions":[]}`},
		{"sftp pattern", "sftp-file-present", spec.SFTPFilePresent{
			PathPattern: "outbox/**/*.json", ParseJSON: true,
			Fields: []spec.Field{{Key: "member.id", Expected: spec.String("W123456789")}, {Path: "auth.units", Expected: spec.Number(uint8(3))}},
		}, `{"assert":"sftp-file-present","path_pattern":"outbox/**/*.json","parse_json":true,"fields":[{"key":"member.id","expected":"W123456789"},{"path":"auth.units","expected":3}]}`},
		{"sftp path", "sftp-file-present", spec.SFTPFilePresent{Path: "/inbox/ack.txt"},
			`{"assert":"sftp-file-present","path":"/inbox/ack.txt","parse_json":false,"fields":[]}`},
		{"voice full", "voice-transcript", spec.VoiceTranscript{Speaker: spec.SpeakerAgent, Contains: []string{"member ID", "approved"}, NotContains: []string{"I can't help"}},
			`{"assert":"voice-transcript","speaker":"agent","contains":["member ID","approved"],"not_contains":["I can't help"]}`},
		{"voice defaults", "voice-transcript", spec.VoiceTranscript{Contains: []string{"goodbye"}},
			`{"assert":"voice-transcript","speaker":"any","contains":["goodbye"],"not_contains":[]}`},
		{"exit_code", "exit_code", spec.ExitCode{Code: 0}, `{"assert":"exit_code","exit_code":0}`},
		{"exit_code negative", "exit_code", spec.ExitCode{Code: -1}, `{"assert":"exit_code","exit_code":-1}`},
		{"output_contains", "output_contains", spec.OutputContains{Text: "a <b> & \"c\"\n"}, `{"assert":"output_contains","output_contains":"a <b> & \"c\"\n"}`},
		{"output_equals", "output_equals", spec.OutputEquals{Text: "done"}, `{"assert":"output_equals","output_equals":"done"}`},
		{"error_contains", "error_contains", spec.ErrorContains{Text: "fatal:"}, `{"assert":"error_contains","error_contains":"fatal:"}`},
		{"file_exists", "file_exists", spec.FileExists{Path: "out/report.json"}, `{"assert":"file_exists","file_exists":"out/report.json"}`},
		{"file_contains", "file_contains", spec.FileContains{Path: "README.md", Text: "## Usage"}, `{"assert":"file_contains","file_contains":{"path":"README.md","text":"## Usage"}}`},
		{"ran", "ran", spec.Ran{Pattern: `git commit.*-m`}, `{"assert":"ran","ran":"git commit.*-m"}`},
		{"not_ran", "not_ran", spec.NotRan{Pattern: `rm -rf /`}, `{"assert":"not_ran","not_ran":"rm -rf /"}`},
		{"run_count both", "run_count", spec.RunCount{Pattern: "git push", Min: spec.Int(1), Max: spec.Int(2)}, `{"assert":"run_count","run_count":{"pattern":"git push","min":1,"max":2}}`},
		{"run_count max 0", "run_count", spec.RunCount{Pattern: "curl", Max: spec.Int(0)}, `{"assert":"run_count","run_count":{"pattern":"curl","max":0}}`},
		{"verify contains", "verify", spec.Verify{Run: "test -f out.txt && cat out.txt", OutputContains: spec.Text("ok")}, `{"assert":"verify","verify":{"run":"test -f out.txt && cat out.txt","output_contains":"ok"}}`},
		{"verify equals empty", "verify", spec.Verify{Run: "true", OutputEquals: spec.Text("")}, `{"assert":"verify","verify":{"run":"true","output_equals":""}}`},
		{"verify both", "verify", spec.Verify{Run: "cat x", OutputContains: spec.Text("a"), OutputEquals: spec.Text("ab")}, `{"assert":"verify","verify":{"run":"cat x","output_contains":"a","output_equals":"ab"}}`},
	}
}

// TestKindsWriteTheDesignKeys pins the exact JSON of every kind (golden:
// the keys of DESIGN.md section 4 in its order) and decodes it through the
// default registry, into which sandbox registers every domain package. A
// kind whose package is not registered yet is checked against its golden
// JSON only, and logged.
func TestKindsWriteTheDesignKeys(t *testing.T) {
	kinds := map[string]bool{}
	var unregistered []string
	for _, tt := range kindCases(t) {
		got := tt.b.Spec()
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if !json.Valid(got) || got.Kind() != tt.kind {
			t.Errorf("%s: kind %q, valid JSON %v", tt.name, got.Kind(), json.Valid(got))
		}
		if !kinds[tt.kind] {
			kinds[tt.kind] = true
			if _, ok := assert.Schema(tt.kind); !ok {
				unregistered = append(unregistered, tt.kind)
			}
		}
		if _, ok := assert.Schema(tt.kind); !ok {
			continue
		}
		a, err := assert.Decode(got)
		if err != nil {
			t.Errorf("%s: %s does not decode: %v", tt.name, got, err)
			continue
		}
		if a.Kind() != tt.kind {
			t.Errorf("%s decoded as kind %q", tt.name, a.Kind())
		}
	}
	if len(kinds) != 16 {
		t.Errorf("%d kinds covered, want 16", len(kinds))
	}
	if len(unregistered) > 0 {
		t.Logf("kinds not registered yet, checked against their golden JSON only: %v", unregistered)
	}
}

// TestHandBuiltSpecsAreValidated: what Spec writes but the kind forbids is
// rejected by the registry exactly as the same JSON in a file would be.
func TestHandBuiltSpecsAreValidated(t *testing.T) {
	tests := []struct {
		name string
		b    spec.Builder
		want string // the JSON written, which must not decode
	}{
		{"run_count without bounds", spec.RunCount{Pattern: "x"}, `{"assert":"run_count","run_count":{"pattern":"x"}}`},
		{"run_count min above max", spec.RunCount{Pattern: "x", Min: spec.Int(3), Max: spec.Int(1)}, `{"assert":"run_count","run_count":{"pattern":"x","min":3,"max":1}}`},
		{"file_exists empty", spec.FileExists{}, `{"assert":"file_exists","file_exists":""}`},
		{"hl7 field with a key", spec.HL7Structural{Fields: []spec.Field{{Key: "a", Expected: spec.Number(1)}}}, `{"assert":"hl7-structural","correlate_by":{},"fields":[{"key":"a","expected":1}]}`},
		{"portal without resource", spec.PortalStateMatch{}, `{"assert":"portal-state-match","correlate_by":{"resource":"","key":""},"assertions":[]}`},
		{"sftp both paths", spec.SFTPFilePresent{Path: "a", PathPattern: "b"}, `{"assert":"sftp-file-present","path":"a","path_pattern":"b","parse_json":false,"fields":[]}`},
		{"voice without phrases", spec.VoiceTranscript{}, `{"assert":"voice-transcript","speaker":"any","contains":[],"not_contains":[]}`},
		{"voice unknown speaker", spec.VoiceTranscript{Speaker: "robot", Contains: []string{"hi"}}, `{"assert":"voice-transcript","speaker":"robot","contains":["hi"],"not_contains":[]}`},
		{"fhir lower-case resource type", spec.FHIRResourceState{ResourceType: "patient"}, `{"assert":"fhir-resource-state","resource_type":"patient","search":{},"fields":[]}`},
		{"sftp field path empty", spec.SFTPFilePresent{Path: "a", ParseJSON: true, Fields: []spec.Field{{Expected: spec.Number(1)}}}, `{"assert":"sftp-file-present","path":"a","parse_json":true,"fields":[{"path":"","expected":1}]}`},
		{"sftp neither path", spec.SFTPFilePresent{}, `{"assert":"sftp-file-present","parse_json":false,"fields":[]}`},
		{"sftp field with key and path", spec.SFTPFilePresent{Path: "a", ParseJSON: true, Fields: []spec.Field{{Key: "k", Path: "p"}}}, `{"assert":"sftp-file-present","path":"a","parse_json":true,"fields":[{"key":"k","path":"p","expected":null}]}`},
	}
	for _, tt := range tests {
		got := tt.b.Spec()
		if string(got) != tt.want {
			t.Errorf("%s: wrote %s, want %s", tt.name, got, tt.want)
		}
		if _, ok := assert.Schema(got.Kind()); !ok {
			continue // not registered yet
		}
		_, err := assert.Decode(got)
		var se *assert.SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: %s decoded (err %v), want a *assert.SpecError", tt.name, got, err)
		}
	}
}

func TestNumber(t *testing.T) {
	type myInt int16
	tests := []struct {
		v    spec.Value
		want string
	}{
		{spec.Number(0), `0`},
		{spec.Number(-7), `-7`},
		{spec.Number(int8(-128)), `-128`},
		{spec.Number(myInt(300)), `300`},
		{spec.Number(uint64(math.MaxUint64)), `18446744073709551615`},
		{spec.Number(int64(math.MinInt64)), `-9223372036854775808`},
		{spec.Number(uintptr(9)), `9`},
		{spec.Number(1.5), `1.5`},
		{spec.Number(float32(0.1)), `0.1`},
		{spec.Number(0.1), `0.1`},
		{spec.Number(1e21), `1e+21`},
		{spec.Number(1e20), `100000000000000000000`},
		{spec.Number(1e-7), `1e-7`},
		{spec.Number(float32(1e-7)), `1e-7`},
		{spec.Number(math.Copysign(0, -1)), `-0`},
		{spec.Number(math.NaN()), `"NaN"`},
		{spec.Number(math.Inf(1)), `"Infinity"`},
		{spec.Number(float32(math.Inf(-1))), `"-Infinity"`},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
	// Finite floats match encoding/json exactly.
	for _, f := range []float64{0, 1, -1, 3.14159, 1e-6, 9.999999e-7, 123456789012345678, 1e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		want, _ := json.Marshal(f)
		if got := spec.Number(f).String(); got != string(want) {
			t.Errorf("Number(%v) = %s, encoding/json writes %s", f, got, want)
		}
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) {
			continue
		}
		want, _ = json.Marshal(f32)
		if got := spec.Number(f32).String(); got != string(want) {
			t.Errorf("Number(float32(%v)) = %s, encoding/json writes %s", f32, got, want)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for _, s := range []string{"0", "-0", "30.0", "1e3", "1E+3", "-1.25e-10", "12345678901234567890123"} {
		v, err := spec.ParseNumber(s)
		if err != nil || v.String() != s {
			t.Errorf("ParseNumber(%q) = %s, %v; want it as written", s, v, err)
		}
	}
	for _, s := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1,5", "NaN", "Infinity", "0x10", " 1", "1 ", "1.5.5", "--1", "1e5e5"} {
		if v, err := spec.ParseNumber(s); err == nil {
			t.Errorf("ParseNumber(%q) = %s, want an error", s, v)
		}
	}
}

func TestValues(t *testing.T) {
	tests := []struct {
		v    spec.Value
		want string
	}{
		{spec.Value{}, `null`},
		{spec.Null(), `null`},
		{spec.Bool(false), `false`},
		{spec.Bool(true), `true`},
		{spec.String(""), `""`},
		{spec.String("a<b>&c \"q\" \\ \t\n\x01 é \u2028 \xff"), `"a<b>&c \"q\" \\ \t\n\u0001 é \u2028 \ufffd"`},
	}
	for _, tt := range tests {
		got, err := tt.v.MarshalJSON()
		if err != nil || string(got) != tt.want || tt.v.String() != tt.want {
			t.Errorf("got %s (%v), want %s", got, err, tt.want)
		}
	}
	if !spec.Null().IsNull() || spec.String("").IsNull() || spec.Bool(false).IsNull() || spec.Number(0).IsNull() {
		t.Error("IsNull")
	}
	// A Value in a struct marshals through encoding/json as its JSON.
	out, err := json.Marshal(struct{ V spec.Value }{spec.Number(2)})
	if err != nil || string(out) != `{"V":2}` {
		t.Errorf("json.Marshal: %s, %v", out, err)
	}
}

func TestOf(t *testing.T) {
	type named string // not a scalar Of knows
	tests := []struct {
		in      any
		want    string
		wantErr bool
	}{
		{nil, `null`, false},
		{"x", `"x"`, false},
		{true, `true`, false},
		{json.Number("1.0"), `1.0`, false},
		{json.Number("1,0"), ``, true},
		{int(1), `1`, false}, {int8(2), `2`, false}, {int16(3), `3`, false}, {int32(4), `4`, false}, {int64(5), `5`, false},
		{uint(6), `6`, false}, {uint8(7), `7`, false}, {uint16(8), `8`, false}, {uint32(9), `9`, false}, {uint64(10), `10`, false},
		{float32(0.5), `0.5`, false}, {2.25, `2.25`, false},
		{spec.Bool(true), `true`, false},
		{named("x"), ``, true},
		{map[string]int{}, ``, true},
		{[]int{1}, ``, true},
	}
	for _, tt := range tests {
		v, err := spec.Of(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && v.String() != tt.want) {
			t.Errorf("Of(%#v) = %s, %v; want %s (error %v)", tt.in, v, err, tt.want, tt.wantErr)
		}
	}
}

func TestOptionals(t *testing.T) {
	if n, ok := spec.Int(0).Get(); !ok || n != 0 {
		t.Error("Int(0) is unset")
	}
	if _, ok := (spec.OptionalInt{}).Get(); ok {
		t.Error("zero OptionalInt is set")
	}
	if s, ok := spec.Text("").Get(); !ok || s != "" {
		t.Error(`Text("") is unset`)
	}
	if _, ok := (spec.OptionalString{}).Get(); ok {
		t.Error("zero OptionalString is set")
	}
}

// TestSpecsAreFresh: two calls return separate buffers, so changing one
// spec cannot change another.
func TestSpecsAreFresh(t *testing.T) {
	b := spec.ExitCode{Code: 1}
	s1, s2 := b.Spec(), b.Spec()
	s1[len(s1)-2] = '9'
	if string(s2) != `{"assert":"exit_code","exit_code":1}` {
		t.Errorf("second spec changed: %s", s2)
	}
}
