package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/assaykit/assay/internal/filekind"
)

// pathFormat is what "assay hl7" and "assay x12" need to know about a text
// format to read paths out of a file: how to parse a path, and either how
// to parse a file and have a parsed path select values in it, or how to
// read every path from the file's bytes at once.
type pathFormat[Doc, Path any] struct {
	name      string // "hl7"
	usage     string // lines printed after "usage: assay NAME get FILE PATH..."
	parsePath func(string) (Path, error)
	// parse, values and warnings read a document held in a string (the file
	// is read straight into one, so that a parser that hands out
	// substrings needs no second copy).
	parse    func(string) (Doc, error)
	values   func(Doc, Path) []string
	warnings func(Doc) []string // envelope findings and the like; may be nil
	// selectAll, when set instead of parse, reads every path from the
	// file's bytes in one pass without building a document: what keeps a
	// read of a 64 MiB HL7 batch near a raw scan.
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
			f.printUsage(c.usageOut(c.stderr))
			return exitUsage
		}
		switch args[0] {
		case "get":
			return f.get(c, args[1:])
		case "-h", "--help", "help":
			f.printUsage(c.usageOut(c.stdout))
			return exitOK
		}
		c.eprintf("%s: unknown subcommand %q", f.name, args[0])
		f.printUsage(c.usageOut(c.stderr))
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
	if f.selectAll != nil {
		var data fileBytes
		if err := readRegular(file, &data); err != nil {
			return c.badInput("%s get: %v", f.name, err)
		}
		values, err := f.selectAll(data.b, paths)
		if err != nil {
			return c.badInput("%s get: %s: %v", f.name, file, err)
		}
		return c.printPaths(f.name, raw, func(i int) []string { return values[i] })
	}
	var text strings.Builder
	if err := readRegular(file, &text); err != nil {
		return c.badInput("%s get: %v", f.name, err)
	}
	doc, err := f.parse(text.String())
	if err != nil {
		return c.badInput("%s get: %s: %v", f.name, file, err)
	}
	if f.warnings != nil {
		for _, w := range f.warnings(doc) {
			c.eprintf("warning: %s: %s", file, w)
		}
	}
	// A format whose documents can say why a path reads nothing (an X12
	// loop path in a transaction set without a guide) warns about it.
	pw, _ := any(doc).(pathWarner[Path])
	return c.printPaths(f.name, raw, func(i int) []string {
		if pw != nil {
			if w := pw.PathWarning(paths[i]); w != "" {
				c.eprintf("warning: %s: %s", file, w)
			}
		}
		return f.values(doc, paths[i])
	})
}

// maxGetSize is the largest file get reads: the HL7 and X12 parsers keep
// offsets as int32, and refuse 2 GiB or more.
const maxGetSize = math.MaxInt32 - 1

// readRegular reads the file name whole into dst (a bytes.Buffer or a
// strings.Builder), grown once to the file's size as os.ReadFile sizes its
// buffer. Anything but a regular file (a FIFO, a device, a folder) is
// refused before it is read, through the open file, which opens without
// waiting for a FIFO's writer; so is a file the parsers could not address.
func readRegular(name string, dst interface {
	io.Writer
	Grow(int)
}) error {
	f, err := os.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("not a regular file (%s)", filekind.Of(fi.Mode()))}
	}
	if fi.Size() > maxGetSize {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%d bytes: files of 2 GiB or more cannot be read", fi.Size())}
	}
	// bytes.Buffer reads into at least bytes.MinRead free bytes: room for
	// them too, so that seeing the end of the file does not grow it.
	dst.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := io.Copy(dst, f); err != nil {
		return &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return nil
}

// fileBytes holds a file read into bytes: allocated once by Grow and
// filled by small writes. (A bytes.Buffer grown to 64 MiB and filled
// through its ReadFrom kept the collection its allocation starts from
// finishing until the read was over, and its signals to stop the goroutine
// doubled the time a 64 MiB read took.)
type fileBytes struct{ b []byte }

func (f *fileBytes) Grow(n int) { f.b = make([]byte, 0, n) }

func (f *fileBytes) Write(p []byte) (int, error) {
	f.b = append(f.b, p...)
	return len(p), nil
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
