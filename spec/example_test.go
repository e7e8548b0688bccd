package spec_test

import (
	"context"
	"fmt"
	"math"
	"net/url"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/spec"

	_ "github.com/assaykit/assay/clitask" // registers the cli-bench kinds
)

// A spec built in Go is decoded and checked like one read from a file.
func Example() {
	s := spec.RunCount{Pattern: "git push", Min: spec.Int(1)}.Spec()
	a, err := assert.Decode(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(s))
	fmt.Println(a.Kind())
	res := assert.Run(context.Background(), a, assert.NewEnv())
	fmt.Println(res.Status) // no trace attached: the check cannot run
	// Output:
	// {"assert":"run_count","run_count":{"pattern":"git push","min":1}}
	// run_count
	// error
}

func ExampleFHIRResourceState() {
	fmt.Println(string(spec.FHIRResourceState{
		ResourceType: "Appointment",
		Search:       url.Values{"patient": {"Patient/jane"}, "date": {"ge2025-01-01", "lt2025-02-01"}},
		Fields: []spec.Field{
			{Path: "status", Expected: spec.String("booked")},
			{Path: "minutesDuration", Expected: spec.Number(30)},
		},
	}.Spec()))
	// Output:
	// {"assert":"fhir-resource-state","resource_type":"Appointment","search":{"date":["ge2025-01-01","lt2025-02-01"],"patient":"Patient/jane"},"fields":[{"path":"status","expected":"booked"},{"path":"minutesDuration","expected":30}]}
}

func ExampleHL7Structural() {
	fmt.Println(string(spec.HL7Structural{
		CorrelateBy: map[string]spec.Value{"message_type": spec.String("ORM"), "trigger_event": spec.String("O01")},
		Fields: []spec.Field{
			{Path: "PID.3.1", Expected: spec.String("W123456789")},
			{Path: "PID.8"}, // expected null: absent or empty
		},
	}.Spec()))
	// Output:
	// {"assert":"hl7-structural","correlate_by":{"message_type":"ORM","trigger_event":"O01"},"fields":[{"path":"PID.3.1","expected":"W123456789"},{"path":"PID.8","expected":null}]}
}

func ExampleX12Response() {
	fmt.Println(string(spec.X12Response{
		Transaction: "271",
		CorrelateBy: map[string]spec.Value{"patient_id": spec.String("W123456789")},
		Fields:      []spec.Field{{Path: "2110C/EB(*)01", Expected: spec.String("1")}},
	}.Spec()))
	// Output:
	// {"assert":"x12-response","transaction":"271","correlate_by":{"patient_id":"W123456789"},"fields":[{"path":"2110C/EB(*)01","expected":"1"}]}
}

func ExamplePortalStateMatch() {
	fmt.Println(string(spec.PortalStateMatch{
		Portal:      "payer",
		CorrelateBy: spec.PortalCorrelation{Resource: "authorizations", Key: "member_id", Value: spec.String("W123456789")},
		Assertions:  []spec.Field{{Path: "status", Expected: spec.String("approved")}, {Path: "units", Expected: spec.Number(3)}},
	}.Spec()))
	// Output:
	// {"assert":"portal-state-match","portal":"payer","correlate_by":{"resource":"authorizations","key":"member_id","value":"W123456789"},"assertions":[{"path":"status","expected":"approved"},{"path":"units","expected":3}]}
}

func ExampleSFTPFilePresent() {
	fmt.Println(string(spec.SFTPFilePresent{
		PathPattern: "outbox/**/*.json",
		ParseJSON:   true,
		Fields: []spec.Field{
			{Key: "member.id", Expected: spec.String("W123456789")}, // a member named "member.id"
			{Path: "auth.approved", Expected: spec.Bool(true)},
		},
	}.Spec()))
	// Output:
	// {"assert":"sftp-file-present","path_pattern":"outbox/**/*.json","parse_json":true,"fields":[{"key":"member.id","expected":"W123456789"},{"path":"auth.approved","expected":true}]}
}

func ExampleVoiceTranscript() {
	fmt.Println(string(spec.VoiceTranscript{
		Speaker:     spec.SpeakerAgent,
		Contains:    []string{"member ID", "approved"},
		NotContains: []string{"I can't help"},
	}.Spec()))
	// Output:
	// {"assert":"voice-transcript","speaker":"agent","contains":["member ID","approved"],"not_contains":["I can't help"]}
}

func ExampleExitCode() {
	fmt.Println(string(spec.ExitCode{Code: 0}.Spec()))
	// Output: {"assert":"exit_code","exit_code":0}
}

func ExampleOutputContains() {
	fmt.Println(string(spec.OutputContains{Text: "Created PR #"}.Spec()))
	// Output: {"assert":"output_contains","output_contains":"Created PR #"}
}

func ExampleOutputEquals() {
	fmt.Println(string(spec.OutputEquals{Text: "3"}.Spec()))
	// Output: {"assert":"output_equals","output_equals":"3"}
}

func ExampleErrorContains() {
	fmt.Println(string(spec.ErrorContains{Text: "not found"}.Spec()))
	// Output: {"assert":"error_contains","error_contains":"not found"}
}

func ExampleFileExists() {
	fmt.Println(string(spec.FileExists{Path: "out/report.json"}.Spec()))
	// Output: {"assert":"file_exists","file_exists":"out/report.json"}
}

func ExampleFileContains() {
	fmt.Println(string(spec.FileContains{Path: "README.md", Text: "## Usage"}.Spec()))
	// Output: {"assert":"file_contains","file_contains":{"path":"README.md","text":"## Usage"}}
}

func ExampleRan() {
	fmt.Println(string(spec.Ran{Pattern: `git commit.*-m`}.Spec()))
	// Output: {"assert":"ran","ran":"git commit.*-m"}
}

func ExampleNotRan() {
	fmt.Println(string(spec.NotRan{Pattern: `rm -rf`}.Spec()))
	// Output: {"assert":"not_ran","not_ran":"rm -rf"}
}

func ExampleRunCount() {
	fmt.Println(string(spec.RunCount{Pattern: "curl", Max: spec.Int(0)}.Spec()))
	fmt.Println(string(spec.RunCount{Pattern: "git push", Min: spec.Int(1), Max: spec.Int(2)}.Spec()))
	// Output:
	// {"assert":"run_count","run_count":{"pattern":"curl","max":0}}
	// {"assert":"run_count","run_count":{"pattern":"git push","min":1,"max":2}}
}

func ExampleVerify() {
	fmt.Println(string(spec.Verify{Run: "cat out.txt", OutputEquals: spec.Text("")}.Spec()))
	// Output: {"assert":"verify","verify":{"run":"cat out.txt","output_equals":""}}
}

// Numbers are written as encoding/json writes them; JSON has no NaN or
// infinity, so those become strings that no JSON number equals.
func ExampleNumber() {
	for _, v := range []spec.Value{spec.Number(72148), spec.Number(uint8(3)), spec.Number(0.25), spec.Number(1e21), spec.Number(math.NaN()), spec.Number(math.Inf(-1))} {
		fmt.Println(v)
	}
	// Output:
	// 72148
	// 3
	// 0.25
	// 1e+21
	// "NaN"
	// "-Infinity"
}

// ParseNumber keeps a literal exactly as written.
func ExampleParseNumber() {
	v, err := spec.ParseNumber("30.0")
	fmt.Println(v, err)
	_, err = spec.ParseNumber("30,0")
	fmt.Println(err)
	// Output:
	// 30.0 <nil>
	// spec: "30,0" is not a JSON number
}
