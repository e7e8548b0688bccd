package hl7_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

const order = "MSH|^~\\&|EHR|HOSP|RIS|RAD|20250114093000||ORM^O01^ORM_O01|PA-0001|P|2.5.1\r" +
	"PID|1||MRN-1^^^HOSP^MR~W123456789^^^ACME^MB||DOE^JANE||19800412|F\r" +
	"OBR|1|ORD-1||72148^MRI LUMBAR SPINE W/O CONTRAST^CPT4\r" +
	"NTE|1||Approved\\.br\\AUTH-7781 \\T\\ valid\r"

func ExampleParse() {
	b, err := hl7.Parse([]byte(order))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := b.Message(0)
	for _, path := range []string{"MSH.9", "MSH.9.1", "PID.3[2].1", "PID-5-2", "PID.8.1", "OBR.4.2", "NTE.3", "PID.9"} {
		v := m.Get(hl7.MustParsePath(path))
		fmt.Printf("%-10s exists=%-5v %q\n", path, v.Exists(), v.String())
	}
	// Output:
	// MSH.9      exists=true  "ORM^O01^ORM_O01"
	// MSH.9.1    exists=true  "ORM"
	// PID.3[2].1 exists=true  "W123456789"
	// PID-5-2    exists=true  "JANE"
	// PID.8.1    exists=true  "F"
	// OBR.4.2    exists=true  "MRI LUMBAR SPINE W/O CONTRAST"
	// NTE.3      exists=true  "Approved\nAUTH-7781 & valid"
	// PID.9      exists=false ""
}

func ExampleMessage_Texts() {
	m, _ := hl7.ParseMessage([]byte(order))
	fmt.Println(m.Texts(hl7.MustParsePath("PID.3[*].1")))
	// Output: [MRN-1 W123456789]
}

func ExampleParsePath() {
	p, err := hl7.ParsePath("OBX[*]-5-1")
	fmt.Println(p, p.Wildcard(), err)
	_, err = hl7.ParsePath("PID.0")
	fmt.Println(err)
	// Output:
	// OBX[*].5.1 true <nil>
	// hl7 path "PID.0": 1:5: field "0": positions start at 1
}

func ExampleParse_error() {
	_, err := hl7.Parse([]byte("MSH|^~\\&|EHR\rEVN|A01\rpv1|1\r"))
	var pe *hl7.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Location.Segment, pe.Location.Line, errors.Is(err, hl7.ErrStructure))
	}
	fmt.Println(err)
	// Output:
	// 3 3 true
	// hl7: 3:1: segment 3: malformed segment structure: segment ID "pv1" is not three upper-case letters or digits
}

// A check of what an agent sent, from messages held in memory.
func ExampleMemorySource() {
	m, _ := hl7.ParseMessage([]byte(order))
	env := assert.NewEnv()
	hl7.Attach(env, hl7.MemorySource(m))
	a, err := assert.Decode([]byte(`{"assert": "hl7-structural",
		"correlate_by": {"message_type": "ORM", "trigger_event": "O01"},
		"fields": [{"path": "OBR.4.1", "expected": "72148"}, {"path": "PID.3[*].1", "expected": "W123456789"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := a.Check(context.Background(), env)
	ev, _ := json.Marshal(res.Evidence)
	fmt.Println(res.Status, res.Score, res.Details)
	fmt.Println(string(ev))
	// A procedure the order does not hold fails.
	a, err = assert.Decode([]byte(`{"assert": "hl7-structural",
		"correlate_by": {"message_type": "ORM"}, "fields": [{"path": "OBR.4.1", "expected": "73721"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res = a.Check(context.Background(), env)
	fmt.Println(res.Status, res.Score, res.Details)
	// Output:
	// passed 1 message PA-0001 matched; 2 of 2 fields passed.
	// {"matched":"PA-0001","field_results":[{"path":"OBR.4.1","expected":"72148","actual":"72148","passed":true},{"path":"PID.3[*].1","expected":"W123456789","actual":["MRN-1","W123456789"],"passed":true}],"candidates":1,"message_index":0,"captured":1}
	// failed 0 message PA-0001 matched but only 0 of 1 fields passed (OBR.4.1: expected "73721", got "72148").
}

// Capturing what an agent sends over MLLP: the listener ACKs each message
// and is the check's source.
func ExampleListener() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	capture := &hl7.Listener{}
	done := make(chan error, 1)
	go func() { done <- capture.Serve(ctx, ln) }()

	// The agent's side: one framed message, one ACK.
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Fprintf(c, "\x0b%s\x1c\r", order)
	ack, _ := bufio.NewReader(c).ReadString(0x1c)
	c.Close()
	m, _ := hl7.ParseMessage([]byte(ack[1 : len(ack)-1]))
	fmt.Println(m.Get(hl7.MustParsePath("MSA")))

	cancel()
	<-done
	env := assert.NewEnv()
	hl7.Attach(env, capture)
	msgs, _ := capture.Messages(ctx)
	fmt.Println(len(msgs), msgs[0].ControlID())
	// Output:
	// MSA|AA|PA-0001
	// 1 PA-0001
}

// Reading every field once, with the iterators.
func ExampleSegment_Fields() {
	m, _ := hl7.ParseMessage([]byte(order))
	pid := m.Segment(1)
	for n, f := range pid.Fields() {
		for rep := range f.Repetitions() {
			fmt.Printf("%s.%d %q\n", pid.Name(), n, rep.String())
		}
	}
	// Output:
	// PID.1 "1"
	// PID.2 ""
	// PID.3 "MRN-1^^^HOSP^MR"
	// PID.3 "W123456789^^^ACME^MB"
	// PID.4 ""
	// PID.5 "DOE^JANE"
	// PID.6 ""
	// PID.7 "19800412"
	// PID.8 "F"
}

// Reading a whole file as one sequence of segments, as assay hl7 get does:
// MSH[2].10 is the second message's control id.
func ExampleBatch_Get() {
	b, _ := hl7.Parse([]byte(order + strings.Replace(order, "PA-0001", "PA-0002", 1)))
	fmt.Println(b.Len(), b.Get(hl7.MustParsePath("MSH[2].10")), b.Texts(hl7.MustParsePath("MSH[*].10")))
	// Output: 2 PA-0002 [PA-0001 PA-0002]
}

// Evidence from a snapshot folder: a file that does not parse is listed
// under "rejected", never a candidate.
func ExampleFolderSource() {
	snapshot := fstest.MapFS{
		"hl7/01.hl7": {Data: []byte(order)},
		"hl7/02.hl7": {Data: []byte("PID|1\r")},
	}
	hl7dir, _ := fs.Sub(snapshot, "hl7")
	env := assert.NewEnv()
	hl7.Attach(env, hl7.FolderSource(hl7dir, 0))
	a, _ := assert.Decode([]byte(`{"assert": "hl7-structural", "correlate_by": {"control_id": "PA-0001"}}`))
	res := assert.Run(context.Background(), a, env)
	ev, _ := json.Marshal(res.Evidence)
	fmt.Println(res.Status, res.Details)
	fmt.Println(string(ev))
	// Output:
	// passed message PA-0001 matched; no fields to check.
	// {"matched":"PA-0001","field_results":[],"candidates":1,"message_index":0,"captured":1,"rejected":[{"index":1,"from":"02.hl7","reason":"hl7: 02.hl7:1:1: segment 1: malformed segment structure: PID before the first header (MSH, BHS or FHS)"}]}
}

// Reading a few paths from a large file in one pass, without a segment
// table.
func ExampleSelect() {
	data := []byte(order + strings.Replace(order, "PA-0001", "PA-0002", 1))
	out, err := hl7.Select(data, hl7.MustParsePath("MSH[2].10"), hl7.MustParsePath("PID.3[*].1"), hl7.MustParsePath("ZZZ.1"))
	fmt.Println(out, err)
	// Output: [[PA-0002] [MRN-1 W123456789] []] <nil>
}

// Taking a message from another transport (an HTTP POST, say) by the
// listener's rules: the ACK comes back, and the message joins the ones
// received over MLLP.
func ExampleListener_Submit() {
	capture := &hl7.Listener{Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }}
	a := capture.Submit("http", []byte(order))
	fmt.Println(a.Code, a.MessageType, a.ControlID)
	fmt.Printf("%q\n", a.ACK)
	msgs, _ := capture.Messages(context.Background())
	fmt.Println(len(msgs), msgs[0].ControlID())
	// Output:
	// AA ORM PA-0001
	// "MSH|^~\\&|RIS|RAD|EHR|HOSP|20250102030405||ACK^O01^ACK|ACK1|P|2.5.1\rMSA|AA|PA-0001\r"
	// 1 PA-0001
}
