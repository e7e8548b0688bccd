// Command gen writes the large inputs of the whole-process benchmark
// (bench/run.sh): an HL7 v2 batch or an X12 interchange of about the size
// asked for, built by repeating a small real-shaped sample with fresh
// control numbers, so that every message or transaction set is distinct.
//
//	go run ./bench/gen -kind x12 -size 67108864 -o /tmp/big.x12
//	go run ./bench/gen -kind hl7 -size 67108864 -o /tmp/big.hl7
//
// It prints the number of messages or transaction sets written, which
// run.sh uses to pick the last one (MSH[N].10, ST(N)02).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

// x12Head, x12Tx and hl7Msg are the samples: the 271 of
// x12/testdata/own/janedoe_271.x12 and the ADT^A01 of
// hl7/testdata/own/adt_a01_crlf.hl7, shortened.
const (
	x12Head = "ISA*00*          *00*          *ZZ*PAYERUMO       *ZZ*CLINICSUBMIT   *261119*1401*^*00501*000009700*0*P*:~\n" +
		"GS*HB*CLINICSUBMIT*PAYERUMO*20261120*0930*9700*X*005010X279A1~\n"
	x12Tx = "ST*271*%09d*005010X279A1~\n" +
		"BHT*0022*11*ELIG-0417*20261119*1401~\n" +
		"HL*1**20*1~\n" +
		"NM1*PR*2*ACME HEALTH PLAN*****PI*60054~\n" +
		"HL*2*1*21*1~\n" +
		"NM1*1P*2*SPRINGFIELD SPINE CLINIC*****XX*1234567893~\n" +
		"HL*3*2*22*0~\n" +
		"TRN*2*ELIG-0417*9123456789~\n" +
		"NM1*IL*1*DOE*JANE****MI*W123456789~\n" +
		"DMG*D8*19840312*F~\n" +
		"DTP*346*D8*20260101~\n" +
		"EB*1*IND*30^4^73*HM*ACME GOLD HMO~\n" +
		"EB*C*IND*4*HM**23*500.00~\n" +
		"EB*A*IND*4*HM**27**0.20~\n" +
		"EB*1*IND*4*HM*ACME GOLD HMO******Y*Y~\n" +
		"MSG*PRIOR AUTHORIZATION REQUIRED FOR MRI~\n" +
		"SE*17*%09d~\n"
	hl7Msg = "MSH|^~\\&|ASSAYEHR|ASSAYHOSP|ADTRCV|ASSAYHOSP|20250114080000||ADT^A01^ADT_A01|ADT-%09d|P|2.5\r" +
		"EVN|A01|20250114080000\r" +
		"PID|1||MRN-000123^^^ASSAYHOSP^MR||DOE^JANE^Q||19800412|F||2106-3^White^HL70005|12 MAIN ST^^SPRINGFIELD^IL^62701^USA||(217)555-0100^PRN^PH~^NET^Internet^jane.doe@example.com\r" +
		"PV1|1|I|4W^401^A^ASSAYHOSP||||1234567890^SMITH^ROBERT|||MED||||1|||1234567890^SMITH^ROBERT|IP|VN-1001\r" +
		"OBX|1|NM|8867-4^Heart rate^LN||72|/min|60-100|N|||F\r"
)

func main() {
	kind := flag.String("kind", "x12", "x12 or hl7")
	size := flag.Int64("size", 64<<20, "approximate size in bytes")
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" || (*kind != "x12" && *kind != "hl7") {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	var written int64
	switch *kind {
	case "x12":
		w.WriteString(x12Head)
		written = int64(len(x12Head))
		tail := len("GE*000000000*9700~\nIEA*1*000009700~\n")
		for written+int64(len(x12Tx))+int64(tail) <= *size {
			n++
			k, _ := fmt.Fprintf(w, x12Tx, n, n)
			written += int64(k)
		}
		fmt.Fprintf(w, "GE*%d*9700~\nIEA*1*000009700~\n", n)
	case "hl7":
		for written+int64(len(hl7Msg)) <= *size {
			n++
			k, _ := fmt.Fprintf(w, hl7Msg, n)
			written += int64(k)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(n)
}
