package command

import (
	"context"
	"fmt"
	"runtime/debug"
)

func init() {
	register("version", subcommand{summary: "print the module version and build information", usage: "assay version", run: runVersion})
}

// runVersion prints the module's version (from the build information Go
// records: a tag when installed with go install ...@vX, "(devel)" in a
// checkout), the Go version, and the VCS revision when known.
func runVersion(_ context.Context, c *cli, args []string) int {
	fs := newFlags("version", c)
	rest, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	if len(rest) > 0 {
		return c.badInput("version: unexpected arguments %s", quoteList(rest))
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintf(c.stdout, "%s (no build information)\n", c.progName())
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s %s\n", c.progName(), info.Main.Version)
	fmt.Fprintf(c.stdout, "module %s\n", info.Main.Path)
	fmt.Fprintf(c.stdout, "go %s\n", info.GoVersion)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified", "GOOS", "GOARCH":
			fmt.Fprintf(c.stdout, "%s %s\n", s.Key, s.Value)
		}
	}
	return exitOK
}
