// Command assay evaluates assertions against recorded evidence.
//
// Usage:
//
//	assay eval --criteria FILE --sandbox DIR [--format text|json|junit]
//	assay check --suite FILE --trace FILE [--task ID] [--format text|json|junit]
//	assay validate FILE...
//	assay schema [KIND|suite|criterion]
//	assay hl7 get FILE PATH...
//	assay x12 get FILE PATH...
//	assay criteria list|get|create|update|delete ...
//
// Exit codes: 0 success (eval: verdict pass; check: every task passed), 1 a
// failing result (or an API error), 2 bad usage or bad input. assay never
// panics: a bug is reported as a message and exit code 2.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// cli carries a command's standard streams and environment, so tests can run
// commands in-process.
type cli struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
	// registry decodes every spec; the default registry unless a program
	// embedding the command gives its own.
	registry *assert.Registry
	// helped is set when a subcommand printed its usage for -h/--help:
	// that is a success, whatever the subcommand returned.
	helped bool
}

// command is one subcommand. Each lives in its own file and adds itself to
// commands from init.
type command struct {
	summary string
	// usage is the synopsis printed by -h, e.g. "assay eval --criteria FILE ...".
	usage string
	run   func(ctx context.Context, c *cli, args []string) int
}

var commands = map[string]command{}

func register(name string, cmd command) {
	if _, dup := commands[name]; dup {
		panic("assay: two commands named " + name)
	}
	commands[name] = cmd
}

func main() {
	// verify runs arbitrary commands: as a child subreaper the command
	// adopts their orphans (setsid included) and ends them before a
	// result is returned, instead of signalling group numbers that may
	// have been reused.
	if err := clitask.BecomeSubreaper(); err != nil && runtime.GOOS == "linux" {
		fmt.Fprintf(os.Stderr, "assay: warning: %v\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, &cli{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand. A panic anywhere below is turned into a
// message and exit code 2: the command's contract is never a stack trace.
func run(ctx context.Context, c *cli, args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(c.stderr, "assay: internal error: %v\n", p)
			code = exitUsage
		}
	}()
	if len(args) == 0 {
		usage(c.stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(c.stdout)
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(c.stderr, "assay: unknown command %q\n", args[0])
		usage(c.stderr)
		return exitUsage
	}
	if c.registry == nil {
		c.registry = assert.DefaultRegistry()
	}
	code = cmd.run(ctx, c, args[1:])
	if c.helped {
		return exitOK
	}
	return code
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: assay COMMAND [flags]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 failing result, 2 bad usage or input")
}

// badInput prints a message to stderr and returns exit code 2.
func (c *cli) badInput(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(c.stderr, "assay: "+strings.TrimRight(msg, "\n"))
	return exitUsage
}
