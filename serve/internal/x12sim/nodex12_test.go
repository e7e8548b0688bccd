package x12sim_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/x12"
)

// nodeX12 reads interchanges with node-x12's strict parser
// (testdata/nodex12/read.js), an X12 parser independent of assay's. It
// skips when node or the npm package is missing.
func nodeX12(t *testing.T, interchanges []string) []nodeReading {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the comparison with node-x12")
	}
	dir, _ := filepath.Abs(filepath.Join("testdata", "nodex12"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "node-x12")); err != nil {
		t.Skip("testdata/nodex12/node_modules is missing (run `npm ci` there): skipping the comparison with node-x12")
	}
	in, _ := json.Marshal(interchanges)
	cmd := exec.Command(node, "read.js")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill(); close(done) })
	out, err := cmd.Output()
	if !timer.Stop() {
		<-done
	}
	if err != nil {
		t.Fatalf("node read.js: %v: %s", err, stderr.String())
	}
	var readings []nodeReading
	if err := json.Unmarshal(out, &readings); err != nil {
		t.Fatalf("node read.js printed %q: %v", out, err)
	}
	return readings
}

type nodeReading struct {
	Error  string     `json:"error"`
	ISA    []string   `json:"isa"`
	IEA    []string   `json:"iea"`
	Groups []struct { // functional groups
		GS   []string `json:"gs"`
		GE   []string `json:"ge"`
		Sets []struct {
			ST       []string   `json:"st"`
			Segments [][]string `json:"segments"`
			SE       []string   `json:"se"`
		} `json:"sets"`
	} `json:"groups"`
}

// elements reads segment s as [ID, element values...].
func elements(s x12.Segment) []string {
	out := []string{s.ID()}
	for n := 1; ; n++ {
		v, ok := s.Element(n)
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

// TestNodeX12: node-x12's strict parser reads every kind of answer (271,
// 277, 278, 999, TA1; standard and echoed delimiters) without error, and
// segment by segment as assay's parser does.
func TestNodeX12(t *testing.T) {
	f := newFrame(t, nil)
	tr := f.newRun("node")
	var answers []string
	for _, req := range []string{
		req270(t, "", "TRN*1*T-1*9CLINIC001", "NM1*IL*1*DOE*JANE****MI*W123456789", "DMG*D8*19840312*F", "EQ*30^MR"),
		req270(t, "NM1*1P*2*CLINIC*****XX*1"),
		req270(t, "", "TRN*1*T-2*9CLINIC001", "NM1*IL*1*DOE*JOHN****MI*NOBODY"),
		rewrite(req270(t, ""), '|', '!', '>', '\n'),
		req276(t, "TRN*1*PCN-1", "TRN*1*PCN-404"),
		req278(t, "", "", "SV1*HC:73721*900*UN*2", "SV1*HC:00000*10", "SV2*0450*HC:72148*100*UN*1"),
		strings.Replace(req270(t, ""), "~SE*12*0001", "~SE*13*0001", 1),
		interchange(t, "HC", "837", "005010X222A1", "BHT*0019*00*X"),
	} {
		r := tr.post(req)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		answers = append(answers, string(r.body))
	}
	readings := nodeX12(t, answers)
	for i, ans := range answers {
		rd := readings[i]
		if rd.Error != "" {
			t.Errorf("node-x12 refuses answer %d: %s\n%s", i, rd.Error, ans)
			continue
		}
		x, err := x12.Parse([]byte(ans), x12.Strict())
		if err != nil {
			t.Fatal(err)
		}
		var theirs [][]string
		for _, g := range rd.Groups {
			theirs = append(theirs, g.GS)
			for _, s := range g.Sets {
				theirs = append(theirs, s.ST)
				theirs = append(theirs, s.Segments...)
				theirs = append(theirs, s.SE)
			}
			theirs = append(theirs, g.GE)
		}
		var ours [][]string
		for k := 1; k < x.Len()-1; k++ { // between ISA and IEA
			if s := x.Segment(k); s.ID() != "TA1" {
				ours = append(ours, elements(s))
			}
		}
		if !slices.EqualFunc(ours, theirs, slices.Equal) {
			t.Errorf("answer %d reads differently:\nassay    %q\nnode-x12 %q", i, ours, theirs)
		}
		if len(rd.ISA) != 17 || rd.ISA[6] != get(t, x, "ISA06") || rd.ISA[16] != get(t, x, "ISA16") {
			t.Errorf("answer %d: node-x12's ISA %q", i, rd.ISA)
		}
	}
}

// TestNodeX12TA1 pins where node-x12 departs from X12: it refuses a TA1
// between the ISA and the first functional group, where X12 puts it (an
// interchange acknowledgment answers the interchange, not a group). If
// node-x12 ever reads it, this test says so and the pin should go.
func TestNodeX12TA1(t *testing.T) {
	tr := newFrame(t, nil).newRun("nodeta1")
	r := tr.post("not X12")
	rd := nodeX12(t, []string{string(r.body)})[0]
	if !strings.Contains(rd.Error, "TA1 segment cannot appear outside of a functional group") {
		t.Errorf("node-x12 now reads a TA1 (%+v): drop the pin", rd)
	}
	if _, err := x12.Parse(r.body, x12.Strict()); err != nil {
		t.Errorf("assay reads the TA1 with findings: %v", err)
	}
}
