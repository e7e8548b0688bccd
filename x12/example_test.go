package x12_test

import (
	"context"
	"fmt"
	"os"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/x12"
)

func ExampleParse() {
	data, _ := os.ReadFile("testdata/own/janedoe_271.x12")
	x, err := x12.Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, path := range []string{"BHT03", "NM1[IL]09", "2100C/NM1[IL]03", "2110C/EB01", "EB03[2]", "EB(*)11", "ISA06"} {
		v, _ := x.Get(path)
		fmt.Printf("%s = %q\n", path, v)
	}
	// Output:
	// BHT03 = ["ELIG-0417"]
	// NM1[IL]09 = ["W123456789"]
	// 2100C/NM1[IL]03 = ["DOE"]
	// 2110C/EB01 = ["1"]
	// EB03[2] = ["4"]
	// EB(*)11 = ["Y"]
	// ISA06 = ["PAYERUMO       "]
}

func ExampleInterchange_Findings() {
	data, _ := os.ReadFile("testdata/corpus/lfh_270_bad_se_segment_count.x12")
	x, _ := x12.Parse(data) // lenient: the data is read anyway
	for _, f := range x.Findings() {
		fmt.Println(f)
	}
	_, err := x12.Parse(data, x12.Strict())
	fmt.Println(err != nil)
	// Output:
	// 19:1: segment 19: SE: SE01 counts "27" segments, but transaction set "0001" has 17 from ST to SE
	// true
}

func ExampleParsePath() {
	p, err := x12.ParsePath("2000C/NM1[IL](*)09")
	fmt.Println(p, p.Multi(), err)
	_, err = x12.ParsePath("NM103(2)")
	fmt.Println(err)
	// Output:
	// 2000C/NM1[IL](*)09 true <nil>
	// x12 path "NM103(2)": 1:6: a segment occurrence goes before the element position, as in NM1(2)03
}

func ExampleSegment_LoopPath() {
	data, _ := os.ReadFile("testdata/corpus/lfh_277_claim_level.x12")
	x, _ := x12.Parse(data)
	for i := 30; i < 37; i++ {
		s := x.Segment(i)
		fmt.Printf("%-30s %s\n", s.LoopPath(), s)
	}
	// Output:
	// 2000A/2000B/2000C/2000D/2000E  HL*8*7*23
	// 2000A/2000B/2000C/2000D/2000E/2100E NM1*QC*1*MANN*JOSEPH
	// 2000A/2000B/2000C/2000D/2000E/2200E TRN*2*ABCXYC3
	// 2000A/2000B/2000C/2000D/2000E/2200E STC*F2:88:QC*20050612**150.00*0.00
	// 2000A/2000B/2000C/2000D/2000E/2200E REF*1K*051681010827
	// 2000A/2000B/2000C/2000D/2000E/2200E REF*EJ*MA345678
	// 2000A/2000B/2000C/2000D/2000E/2200E/2220E SVC*HC:99203*150.00*0.00****1.00
}

// The x12-response check over the recorded exchanges of a sandbox
// snapshot's x12 folder.
func Example_response() {
	env := assert.NewEnv()
	x12.Attach(env, x12.FolderSource(check.DirFS("testdata/records"), 0))
	spec := `{"assert": "x12-response", "transaction": "278",
	  "correlate_by": {"patient_id": "W123456789"},
	  "fields": [{"path": "2000F/HCR01", "expected": "A1"}, {"path": "2000F/SV101-2", "expected": "72148"}]}`
	a, err := assert.Decode([]byte(spec))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := a.Check(context.Background(), env)
	fmt.Println(res.Status, res.Details)
	// An authorization number the response does not hold fails.
	a, err = assert.Decode([]byte(`{"assert": "x12-response", "transaction": "278",
	  "fields": [{"path": "2000F/HCR02", "expected": "AUTH00000"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res = a.Check(context.Background(), env)
	fmt.Println(res.Status, res.Details)
	// Output:
	// passed the 278 response "1001" (record auth) matched; 2 of 2 fields passed.
	// failed the 278 response "1001" (record auth) matched but only 0 of 1 fields passed (2000F/HCR02: expected "AUTH00000", got "AUTH88231").
}
