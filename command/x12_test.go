package command

import (
	"strings"
	"testing"
)

func TestX12Get(t *testing.T) {
	const dir = "../x12/testdata/"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // a substring of stderr; "" means stderr must be empty
	}{
		{
			name: "values in the order given",
			args: []string{"x12", "get", dir + "own/janedoe_271.x12", "NM1[IL]09", "BHT03", "EB03[*]", "EB03[4]", "ISA06", "2110C/EB(*)11", "NM1[IL]09"},
			code: exitOK,
			stdout: `{
  "NM1[IL]09": "W123456789",
  "BHT03": "ELIG-0417",
  "EB03[*]": [
    "30",
    "4",
    "73"
  ],
  "EB03[4]": null,
  "ISA06": "PAYERUMO       ",
  "2110C/EB(*)11": "Y"
}
`,
		},
		{
			name:   "every transaction set of the file",
			args:   []string{"x12", "get", dir + "own/multi_group_crlf.x12", "ST(*)01", "GS(2)08"},
			code:   exitOK,
			stdout: "{\n  \"ST(*)01\": [\n    \"271\",\n    \"271\",\n    \"277\"\n  ],\n  \"GS(2)08\": \"005010X212\"\n}\n",
		},
		{
			name:   "envelope findings are warnings",
			args:   []string{"x12", "get", dir + "corpus/lfh_270_bad_se_segment_count.x12", "SE01"},
			code:   exitOK,
			stdout: "{\n  \"SE01\": \"27\"\n}\n",
			stderr: `assay: warning: ../x12/testdata/corpus/lfh_270_bad_se_segment_count.x12: 19:1: segment 19: SE: SE01 counts "27" segments`,
		},
		{
			name:   "not X12",
			args:   []string{"x12", "get", dir + "corpus/imsweb_837p_bad_missing_isa.x12", "ST01"},
			code:   exitUsage,
			stderr: "imsweb_837p_bad_missing_isa.x12: x12: at byte 0: 1:1: no ISA segment",
		},
		{
			name:   "ISA of the wrong length",
			args:   []string{"x12", "get", dir + "corpus/imsweb_837p_bad_isa_line.x12", "ST01"},
			code:   exitUsage,
			stderr: "ISA02 is 9 characters, not 10",
		},
		{name: "bad path", args: []string{"x12", "get", dir + "own/janedoe_271.x12", "nm109"}, code: exitUsage, stderr: `x12 path "nm109": 1:1: segment IDs are written in capitals`},
		{name: "missing file", args: []string{"x12", "get", dir + "nope.x12", "ST01"}, code: exitUsage, stderr: "nope.x12"},
		{name: "no path", args: []string{"x12", "get", dir + "own/janedoe_271.x12"}, code: exitUsage, stderr: "need a FILE and at least one PATH"},
		{name: "no subcommand", args: []string{"x12"}, code: exitUsage, stderr: "usage: assay x12 get FILE PATH..."},
		{name: "unknown subcommand", args: []string{"x12", "put"}, code: exitUsage, stderr: `unknown subcommand "put"`},
		{name: "help", args: []string{"x12", "--help"}, code: exitOK, stdout: x12Usage},
		{name: "unknown flag", args: []string{"x12", "get", "--strict", dir + "own/janedoe_271.x12", "ST01"}, code: exitUsage, stderr: "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runAssay(t, nil, tt.args...)
			if tt.stdout == x12Usage {
				// --help prints the usage to stdout; its words are pinned
				// loosely.
				if !strings.HasPrefix(stdout, "usage: assay x12 get FILE PATH...") {
					t.Errorf("--help stdout %q", stdout)
				}
				stdout = x12Usage
			}
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr)
			}
			if stdout != tt.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", stdout, tt.stdout)
			}
			if tt.stderr == "" && stderr != "" || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", stderr, tt.stderr)
			}
		})
	}
}

// x12Usage stands for "the usage text" in the table above.
const x12Usage = "(usage)"
