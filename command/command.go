package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/report"
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
	// name is the program's name in usage ("assay" when empty).
	name string
	// ownsProcess is set when Main runs with the process's own streams
	// and environment (a zero Config but for Name and Registry): only
	// then may assay run re-execute the program to hide its key.
	ownsProcess bool
}

// usageOut returns w writing usage text under the program's name: a
// command built with Main names itself, not assay.
func (c *cli) usageOut(w io.Writer) io.Writer {
	if c.name == "" || c.name == "assay" {
		return w
	}
	return renamer{w: w, name: c.name}
}

// renamer rewrites "assay " as the program's name in what it writes.
type renamer struct {
	w    io.Writer
	name string
}

func (r renamer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, strings.ReplaceAll(string(p), "assay ", r.name+" ")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// progName is the program's name: "assay", or the name Config gave.
func (c *cli) progName() string {
	if c.name == "" {
		return "assay"
	}
	return c.name
}

// subcommand is one subcommand. Each lives in its own file and adds itself
// to commands from init.
type subcommand struct {
	summary string
	// usage is the synopsis printed by -h, e.g. "assay eval --criteria FILE ...".
	usage string
	run   func(ctx context.Context, c *cli, args []string) int
}

var commands = map[string]subcommand{}

func register(name string, cmd subcommand) {
	if _, dup := commands[name]; dup {
		panic("assay: two commands named " + name)
	}
	commands[name] = cmd
}

// Config is what Main runs with. Its zero value is the process's: standard
// streams, os.Getenv and assert's default registry.
type Config struct {
	// Stdin, Stdout and Stderr default to the process's.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (ASSAY_BASE_URL, ASSAY_API_KEY,
	// ASSAY_JUDGE_*, NO_COLOR); nil means os.Getenv.
	Getenv func(string) string
	// Name is the program's name, shown in usage, in version and in every
	// message on stderr in place of "assay"; "" means the base name of
	// os.Args[0].
	Name string
	// Registry decodes every spec; nil means assert.DefaultRegistry(),
	// which every imported domain package (and sandbox, which imports them
	// all) has filled. A registry of your own must hold every kind your
	// files use.
	Registry *assert.Registry
}

// Main runs the assay command with args (without the program name) and
// returns its exit code. ctx ends the run early (Ctrl-C, say): checks not
// yet run report status error.
func Main(ctx context.Context, args []string, cfg Config) int {
	c := &cli{stdout: cfg.Stdout, stderr: cfg.Stderr, stdin: cfg.Stdin, getenv: cfg.Getenv, registry: cfg.Registry, name: cfg.Name,
		ownsProcess: cfg.Stdout == nil && cfg.Stderr == nil && cfg.Stdin == nil && cfg.Getenv == nil}
	if c.name == "" && len(os.Args) > 0 {
		c.name = filepath.Base(os.Args[0])
	}
	if c.stdout == nil {
		c.stdout = os.Stdout
	}
	if c.stderr == nil {
		c.stderr = os.Stderr
	}
	if c.stdin == nil {
		c.stdin = os.Stdin
	}
	if c.getenv == nil {
		c.getenv = os.Getenv
	}
	return run(ctx, c, args)
}

// run dispatches to a subcommand. A panic anywhere below is turned into a
// message and exit code 2: the command's contract is never a stack trace.
func run(ctx context.Context, c *cli, args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			c.eprintf("internal error: %v", p)
			code = exitUsage
		}
	}()
	if len(args) == 0 {
		usage(c.usageOut(c.stderr))
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(c.usageOut(c.stdout))
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		c.eprintf("unknown command %q", args[0])
		usage(c.usageOut(c.stderr))
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
	c.eprintf(format, args...)
	return exitUsage
}

// eprintf prints a message to stderr: the program's name, a colon, and
// the message, as one line escaped as text reports are (rule 23,
// report.Escape): the messages name run folders, models, files and
// errors that quote inputs, agents and servers, and none of them may
// recolour the terminal or forge a second line. A message is one line by
// design, so a newline in it is written as \n.
func (c *cli) eprintf(format string, args ...any) {
	c.eline(c.prog() + ": " + fmt.Sprintf(format, args...))
}

// eline prints one line to stderr as it is given, escaped as eprintf's: a
// problem that names its own place (FILE:LINE:COL: ...), or the
// continuation of a message.
func (c *cli) eline(line string) {
	fmt.Fprintln(c.stderr, report.Escape(strings.TrimRight(line, "\n")))
}

// prog returns the program's name as messages begin with it: Config.Name,
// or assay.
func (c *cli) prog() string {
	if c.name == "" {
		return "assay"
	}
	return c.name
}
