package x12_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assaykit/assay/x12"
)

// A 271 built segment by segment: the Writer writes the ISA, the GS/GE and
// ST/SE envelopes, the control numbers and every count.
func ExampleWriter() {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	w := x12.NewWriter(x12.Delimiters{Element: '*', Repetition: '^', Component: ':', Segment: '~'}, x12.Header{
		Sender: "ACME01", Receiver: "CLINIC", Time: at, Control: 7,
	})
	w.Group(x12.Group{Code: "HB", Sender: "ACME01", Receiver: "CLINIC", Time: at, Control: 7, Version: "005010X279A1"})
	w.Set("271", "0001")
	w.Segment("BHT", "0022", "11", "ELIG-1", "20260301", "0930")
	w.Segment("HL", "1", "", "20", "1")
	w.Segment("NM1", "PR", "2", "ACME HEALTH PLAN", "", "", "", "", "PI", "ACME01")
	w.Segment("HL", "2", "1", "21", "1")
	w.Segment("NM1", "1P", "2", "SPRINGFIELD ORTHOPEDICS", "", "", "", "", "XX", "1234567893")
	w.Segment("HL", "3", "2", "22", "0")
	w.Segment("NM1", "IL", "1", "DOE", "JANE", "", "", "", "MI", "W123456789")
	w.SegmentOf("EB", x12.Simple("1"), x12.Simple("IND"), x12.Repeated("30", "MR"), x12.Simple(""), x12.Simple("ACME GOLD HMO"))
	w.SegmentOf("EB", x12.Simple("1"), x12.Simple("IND"), x12.Simple("MR"), nil, nil, nil, nil, nil, nil, nil, x12.Simple("Y"))
	data, err := w.Bytes()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(strings.ReplaceAll(string(data), "~", "~\n"))

	// What it builds parses without findings.
	x, _ := x12.Parse(data)
	eb, _ := x.Get("2110C/EB(*)03[*]")
	fmt.Println(len(x.Findings()), eb)
	// Output:
	// ISA*00*          *00*          *ZZ*ACME01         *ZZ*CLINIC         *260301*0930*^*00501*000000007*0*P*:~
	// GS*HB*ACME01*CLINIC*20260301*0930*7*X*005010X279A1~
	// ST*271*0001*005010X279A1~
	// BHT*0022*11*ELIG-1*20260301*0930~
	// HL*1**20*1~
	// NM1*PR*2*ACME HEALTH PLAN*****PI*ACME01~
	// HL*2*1*21*1~
	// NM1*1P*2*SPRINGFIELD ORTHOPEDICS*****XX*1234567893~
	// HL*3*2*22*0~
	// NM1*IL*1*DOE*JANE****MI*W123456789~
	// EB*1*IND*30^MR**ACME GOLD HMO~
	// EB*1*IND*MR********Y~
	// SE*11*0001~
	// GE*1*7~
	// IEA*1*000000007~
	// 0 [30 MR MR]
}

// X12 has no escape: a value that holds one of the delimiters is refused,
// never changed.
func ExampleWriter_refused() {
	w := x12.NewWriter(x12.Delimiters{Element: '*', Component: ':', Segment: '~'}, x12.Header{Sender: "A", Receiver: "B", Control: 1})
	w.Group(x12.Group{Code: "HB", Sender: "A", Receiver: "B", Control: 1, Version: "005010X279A1"})
	w.Set("271", "0001")
	w.Segment("MSG", "NOTE: PRIOR AUTHORIZATION REQUIRED")
	_, err := w.Bytes()
	fmt.Println(err)
	fmt.Println(errors.Is(err, x12.ErrDelimiter))
	// Output:
	// x12: writing segment 4 (MSG01): the value holds a delimiter: "NOTE: PRIOR AUTHORIZ..."
	// true
}
