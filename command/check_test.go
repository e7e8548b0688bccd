package command

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestCheckScripts runs the testscripts in testdata/check. Their assay
// command runs in-process (relative --suite and --trace paths, and the
// files of validate, resolve in $WORK); exitcode N checks the last assay's
// exit code.
func TestCheckScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/check",
		UpdateScripts: *update,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"assay":    scriptAssay,
			"exitcode": scriptExitCode,
		},
	})
}

func scriptAssay(ts *testscript.TestScript, neg bool, args []string) {
	args = append([]string(nil), args...)
	for i, a := range args {
		if len(args) > 0 && args[0] == "validate" && i > 0 && !strings.HasPrefix(a, "-") {
			args[i] = ts.MkAbs(a)
		}
		for _, flag := range []string{"--suite", "--trace", "-suite", "-trace"} {
			if a == flag && i+1 < len(args) {
				args[i+1] = ts.MkAbs(args[i+1])
			} else if v, ok := strings.CutPrefix(a, flag+"="); ok {
				args[i] = flag + "=" + ts.MkAbs(v)
			}
		}
	}
	c := &cli{stdout: ts.Stdout(), stderr: ts.Stderr(), stdin: strings.NewReader(""), getenv: ts.Getenv}
	code := run(context.Background(), c, args)
	ts.Setenv("EXIT", strconv.Itoa(code))
	if code != 0 && !neg {
		ts.Fatalf("assay exited %d", code)
	}
	if code == 0 && neg {
		ts.Fatalf("assay exited 0, expected a failure")
	}
}

func scriptExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: exitcode N")
	}
	if got := ts.Getenv("EXIT"); got != args[0] {
		ts.Fatalf("assay exited %s, want %s", got, args[0])
	}
}

// The example in examples/clibench checks as its README says: one model
// is below its informational threshold, so a warning and exit 0.
func TestCheckExample(t *testing.T) {
	stdout, stderr, code := runAssay(t, nil, "check", "--suite", "../examples/clibench/cli-bench.yaml",
		"--trace", "../examples/clibench/trace.json", "--format", "json")
	if code != exitOK || !strings.Contains(stderr, "warning: model openai/gpt-4.1 passed 60% of its runs, below the minimum 65%") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	var rep clitask.Report
	dec := json.NewDecoder(bytes.NewReader([]byte(stdout)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 10 || rep.PassRates["anthropic/claude-sonnet-4"].Passed != 5 || rep.PassRates["openai/gpt-4.1"].Passed != 3 {
		t.Errorf("report %+v", rep)
	}
	// The text format says the same.
	text, _, code := runAssay(t, nil, "check", "--suite", "../examples/clibench/cli-bench.yaml",
		"--trace", "../examples/clibench/trace.json", "--task", "total-amount")
	if code != exitFail || !strings.Contains(text, "FAIL  total-amount [openai/gpt-4.1] #1") || strings.Contains(text, "active-names") {
		t.Errorf("--task total-amount: code %d\n%s", code, text)
	}
}
