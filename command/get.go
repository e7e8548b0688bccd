package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/assaykit/assay/internal/mmap"
)

// pathFormat is what "assay hl7" and "assay x12" need to know about a text
// format to read paths out of a file: how to parse a path and a file, and
// how a parsed path selects values.
type pathFormat[Doc, Path any] struct {
	name      string // "hl7"
	usage     string // lines printed after "usage: assay NAME get FILE PATH..."
	parsePath func(string) (Path, error)
	parse     func([]byte) (Doc, error)
	values    func(Doc, Path) []string
	warnings  func(Doc) []string // envelope findings and the like; may be nil
	// selectAll, when set, reads every path from the input in one pass
	// without building a document (parse and values are then unused): what
	// keeps a read of a 64 MiB HL7 batch near a raw scan.
	selectAll func(data []byte, paths []Path) ([][]string, error)
}

// pathWarner is a document that can say why a path may read nothing in it
// although the file holds what the path names; "" when there is no reason.
type pathWarner[Path any] interface {
	PathWarning(Path) string
}

// registerPathFormat registers the command "assay NAME get FILE PATH...".
func registerPathFormat[Doc, Path any](f pathFormat[Doc, Path], summary string) {
	register(f.name, subcommand{summary: summary, usage: "assay " + f.name + " get FILE PATH...", run: func(_ context.Context, c *cli, args []string) int {
		if len(args) == 0 {
			f.printUsage(c.stderr)
			return exitUsage
		}
		switch args[0] {
		case "get":
			return f.get(c, args[1:])
		case "-h", "--help", "help":
			f.printUsage(c.stdout)
			return exitOK
		}
		fmt.Fprintf(c.stderr, "assay %s: unknown subcommand %q\n", f.name, args[0])
		f.printUsage(c.stderr)
		return exitUsage
	}})
}

func (f pathFormat[Doc, Path]) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: assay %s get FILE PATH...\n\n", f.name)
	fmt.Fprintln(w, "prints a JSON object mapping each path to its value: a string, an array when")
	fmt.Fprintln(w, "the path selects two or more values, null when it selects none.")
	fmt.Fprintln(w, f.usage)
}

// get prints the values of the paths, in the order given. It exits 0 when
// the file parsed, whatever the paths selected, and 2 when a path or the
// file cannot be parsed.
func (f pathFormat[Doc, Path]) get(c *cli, args []string) int {
	fs := newFlags(f.name+" get", c)
	pos, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	if len(pos) < 2 {
		return c.badInput("%s get: need a FILE and at least one PATH (usage: assay %s get FILE PATH...)", f.name, f.name)
	}
	file, raw := pos[0], pos[1:]
	paths := make([]Path, len(raw))
	for i, s := range raw {
		p, err := f.parsePath(s)
		if err != nil {
			return c.badInput("%s get: %v", f.name, err)
		}
		paths[i] = p
	}
	// A regular file of any size, mapped read-only where the platform can
	// (no copy, no zero-filled buffer), else read once into a buffer of its
	// size; anything else is bad input. The parsers read values out of the
	// mapping, so it stays open until the output is written.
	in, err := mmap.Open(file)
	if err != nil {
		return c.badInput("%s get: %v", f.name, err)
	}
	defer in.Close()
	if f.selectAll != nil {
		values, err := f.selectAll(in.Bytes(), paths)
		if err != nil {
			return c.badInput("%s get: %s: %v", f.name, file, err)
		}
		return c.printPaths(f.name, raw, func(i int) []string { return values[i] })
	}
	doc, err := f.parse(in.Bytes())
	if err != nil {
		return c.badInput("%s get: %s: %v", f.name, file, err)
	}
	if f.warnings != nil {
		for _, w := range f.warnings(doc) {
			fmt.Fprintf(c.stderr, "assay: warning: %s: %s\n", file, w)
		}
	}
	// A format whose documents can say why a path reads nothing (an X12
	// loop path in a transaction set without a guide) warns about it.
	pw, _ := any(doc).(pathWarner[Path])
	return c.printPaths(f.name, raw, func(i int) []string {
		if pw != nil {
			if w := pw.PathWarning(paths[i]); w != "" {
				fmt.Fprintf(c.stderr, "assay: warning: %s: %s\n", file, w)
			}
		}
		return f.values(doc, paths[i])
	})
}

// printPaths prints each path (the first time it is given) with the values
// values(i) reads for it, as one JSON object in the order given.
func (c *cli) printPaths(name string, raw []string, values func(i int) []string) int {
	out := make(pathValues, 0, len(raw))
	seen := map[string]bool{}
	for i, path := range raw {
		if !seen[path] {
			seen[path] = true
			out = append(out, pathValue{path: path, values: values(i)})
		}
	}
	if err := writeJSON(c.stdout, out); err != nil {
		return c.badInput("%s get: %v", name, err)
	}
	return exitOK
}

// pathValue is one path's result: null for no value, a string for one, an
// array for several.
type pathValue struct {
	path   string
	values []string
}

// pathValues marshals as a JSON object whose members keep the order the
// paths were given in, without HTML escaping (HL7 and X12 text is full of
// &, < and >).
type pathValues []pathValue

func (vs pathValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		var val any
		switch len(v.values) {
		case 0:
		case 1:
			val = v.values[0]
		default:
			val = v.values
		}
		for _, x := range []any{v.path, val} {
			if err := enc.Encode(x); err != nil {
				return nil, err
			}
			b.Truncate(b.Len() - 1) // Encode's newline
			b.WriteByte(':')
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
