// Command assay evaluates assertions against the evidence an AI agent's run
// left behind: criteria against a sandbox snapshot (eval), cli-bench tasks
// against recorded traces (check), and the files both are written in
// (validate, schema); it also reads HL7 and X12 paths and calls the criteria
// API. Run "assay --help" for the subcommands, or see package command, which
// this program wraps.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/command"
)

func main() {
	// verify runs arbitrary commands: as a child subreaper the command
	// adopts their orphans (setsid included) and ends them before a
	// result is returned, instead of signalling group numbers that may
	// have been reused.
	if err := clitask.BecomeSubreaper(); err != nil && runtime.GOOS == "linux" {
		fmt.Fprintf(os.Stderr, "assay: warning: %v\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := command.Main(ctx, os.Args[1:], command.Config{})
	stop()
	os.Exit(code)
}
