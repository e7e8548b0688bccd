package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHL7Get(t *testing.T) {
	dir := t.TempDir()
	batch := filepath.Join(dir, "batch.hl7")
	os.WriteFile(batch, []byte("BHS|^~\\&|EHR|HOSP|RIS|RAD|20250114||||BATCH-7\r\n"+
		"MSH|^~\\&|EHR|HOSP|RIS|RAD|20250114||ADT^A01|MSG-1|P|2.5.1\r\n"+
		"PID|1||MRN-1^^^HOSP&1.2.3&ISO^MR~W123^^^ACME^MB||DOE^JANE||19800412|F|||||\"\"\r\n"+
		"NTE|1||Fish \\T\\ Chips <ok>\\.br\\next\r\n"+
		"MSH|^~\\&|EHR|HOSP|RIS|RAD|20250114||ADT^A08|MSG-2|P|2.5.1\r\n"+
		"PID|1||MRN-1||DOE^JANE^Q\r\n"+
		"BTS|2\r\n"), 0o644)
	stdout, stderr, code := runAssay(t, nil, "hl7", "get", batch,
		"MSH[2].10", "MSH.10", "MSH[*].9.2", "PID.3.4", "PID.3[*].1", "PID.5.3", "PID[2].5.3", "NTE.3", "PID.13", "PID.2", "ZZZ.1", "BHS.11", "MSH.10")
	if code != exitOK || stderr != "" {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	want := `{
  "MSH[2].10": "MSG-2",
  "MSH.10": "MSG-1",
  "MSH[*].9.2": [
    "A01",
    "A08"
  ],
  "PID.3.4": "HOSP&1.2.3&ISO",
  "PID.3[*].1": [
    "MRN-1",
    "W123"
  ],
  "PID.5.3": null,
  "PID[2].5.3": "Q",
  "NTE.3": "Fish & Chips <ok>\nnext",
  "PID.13": "\"\"",
  "PID.2": "",
  "ZZZ.1": null,
  "BHS.11": "BATCH-7"
}
`
	if stdout != want {
		t.Fatalf("stdout\n%s\nwant\n%s", stdout, want)
	}
}

func TestHL7GetCorpusFile(t *testing.T) {
	file := filepath.Join("..", "hl7", "testdata", "own", "mllp_two_frames.hl7")
	stdout, _, code := runAssay(t, nil, "hl7", "get", file, "MSH[*].10", "OBX[*].5")
	want := "{\n  \"MSH[*].10\": [\n    \"FRAME-1\",\n    \"FRAME-2\"\n  ],\n  \"OBX[*].5\": [\n    \"1\",\n    \"2\",\n    \"3\"\n  ]\n}\n"
	if code != exitOK || stdout != want {
		t.Fatalf("code %d\n%s", code, stdout)
	}
}

func TestHL7GetErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hl7")
	os.WriteFile(bad, []byte("MSH|^~\\&|A\rEVN|A01\rpv1|1\r"), 0o644)
	good := filepath.Join(dir, "good.hl7")
	os.WriteFile(good, []byte("MSH|^~\\&|A\r"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unparsable file", []string{"hl7", "get", bad, "MSH.10"}, exitUsage, `bad.hl7: hl7: 3:1: segment 3: malformed segment structure: segment ID "pv1"`},
		{"missing file", []string{"hl7", "get", filepath.Join(dir, "nope.hl7"), "MSH.10"}, exitUsage, "nope.hl7"},
		{"bad path", []string{"hl7", "get", good, "MSH.10", "pid.5"}, exitUsage, `path "pid.5": 1:1: segment IDs are upper-case`},
		{"no path", []string{"hl7", "get", good}, exitUsage, "need a FILE and at least one PATH"},
		{"no subcommand", []string{"hl7"}, exitUsage, "usage: assay hl7 get FILE PATH..."},
		{"unknown subcommand", []string{"hl7", "put"}, exitUsage, `unknown subcommand "put"`},
		{"unknown flag", []string{"hl7", "get", "--frob", good, "MSH.1"}, exitUsage, "frob"},
		{"help", []string{"hl7", "--help"}, exitOK, "MSH[2].10"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runAssay(t, nil, tt.args...)
		if tt.code == exitOK {
			stderr = stdout // usage asked for with --help goes to stdout
		}
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%s: code %d, stderr %q; want %d and %q", tt.name, code, stderr, tt.code, tt.msg)
		}
		if tt.code != exitOK && stdout != "" {
			t.Errorf("%s: printed %q", tt.name, stdout)
		}
	}
}
