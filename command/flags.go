package command

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(name string, c *cli) *flag.FlagSet {
	fs := flag.NewFlagSet("assay "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, and
// returns the positional ones. A parse error is printed with the flag set's
// usage to stderr; -h or --help prints the usage to stdout and marks the
// run as helped (exit 0). ok is false in both cases.
func parseFlags(fs *flag.FlagSet, c *cli, args []string) (positional []string, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.helped = true
				printUsage(c.usageOut(c.stdout), fs)
				return nil, false
			}
			c.eline(c.prog() + strings.TrimPrefix(fs.Name(), "assay") + ": " + err.Error())
			printUsage(c.usageOut(c.stderr), fs)
			return nil, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, true
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// printUsage prints a subcommand's synopsis and its flags, written with two
// dashes as the README writes them.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	name := strings.TrimPrefix(fs.Name(), "assay ")
	if cmd, ok := commands[strings.Fields(name)[0]]; ok {
		if cmd.usage != "" {
			fmt.Fprintf(w, "usage: %s\n", cmd.usage)
		} else {
			fmt.Fprintf(w, "usage: assay %s [flags]\n", name)
		}
		if cmd.summary != "" {
			fmt.Fprintf(w, "\n%s\n", cmd.summary)
		}
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprintln(w, "\nflags:")
			first = false
		}
		arg, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" {
			text += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, text)
	})
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 failing result, 2 bad usage or input")
}

// quoteList renders names for messages.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
