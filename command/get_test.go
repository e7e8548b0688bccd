//go:build unix

package command

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hl7 get and x12 get read a regular file of any size and refuse anything
// else as bad input (exit 2), without blocking on a FIFO (DESIGN 11, 12.2).
func TestGetInputs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.x12")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	empty := filepath.Join(dir, "empty.x12")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"x12 FIFO", []string{"x12", "get", fifo, "ST02"}, exitUsage, "not a regular file (a FIFO)"},
		{"hl7 FIFO", []string{"hl7", "get", fifo, "MSH.10"}, exitUsage, "not a regular file (a FIFO)"},
		{"x12 folder", []string{"x12", "get", dir, "ST02"}, exitUsage, "not a regular file (a folder)"},
		{"hl7 folder", []string{"hl7", "get", dir, "MSH.10"}, exitUsage, "not a regular file (a folder)"},
		{"x12 empty file", []string{"x12", "get", empty, "ST02"}, exitUsage, "no ISA segment"},
		// A file named on the command line is opened without blocking
		// and its type checked through the open file.
		{"criteria FIFO", []string{"eval", "--criteria", fifo, "--sandbox", dir}, exitUsage, "not a regular file (it is a FIFO)"},
		{"criteria folder", []string{"eval", "--criteria", dir, "--sandbox", dir}, exitUsage, "not a regular file (it is a folder)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runAssay(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

// A large interchange reads whole; a loop path in
// a transaction set without a guide reads null and warns.
func TestGetLargeAndWarnings(t *testing.T) {
	const isa = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261120*0930*^*00501*000000001*0*P*:~\n"
	var b strings.Builder
	b.WriteString(isa + "GS*HC*S*R*20261120*0930*7*X*005010X222A1~\n")
	const n = 20000
	for i := 1; i <= n; i++ {
		b.WriteString("ST*837*" + getItoa(i) + "*005010X222A1~\nBHT*0019*00*X*20261120*0930*CH~\nCLM*C" + getItoa(i) + "*100~\nSE*4*" + getItoa(i) + "~\n")
	}
	b.WriteString("GE*" + getItoa(n) + "*7~\nIEA*1*000000001~\n")
	file := filepath.Join(t.TempDir(), "big.x12")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runAssay(t, nil, "x12", "get", file, "ST("+getItoa(n)+")02", "CLM(*)01", "2300/CLM01", "2300/CLM01")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `"ST(20000)02": "20000"`) || !strings.Contains(stdout, `"C19999"`) || !strings.Contains(stdout, `"2300/CLM01": null`) {
		t.Errorf("stdout %.300s", stdout)
	}
	if strings.Count(stderr, "warning") != 1 || !strings.Contains(stderr, `transaction set 837 "1" (005010X222A1)`) {
		t.Errorf("stderr %q, want one warning about 2300/CLM01", stderr)
	}
}

func getItoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}
