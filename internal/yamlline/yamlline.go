// Package yamlline locates a yaml.v3 syntax error at the line a person has
// to fix.
//
// yaml.v3 reports the line of libyaml's context mark: for an indentation
// mistake ("did not find expected key", "did not find expected '-'
// indicator") that is the line where the enclosing block began, often
// lines above the mistake (an under-indented key deep in a list is
// reported at the list's first item). The line a person has to fix is the
// first at which the document stops parsing: the shortest prefix of whole
// lines that fails with the same message, found by bisection. When no
// prefix reproduces the message, or the document is over MaxSearch bytes
// (each step of the bisection parses a prefix again: about 20 parses of a
// file written by hand cost nothing, of a generated file of megabytes
// seconds), yaml.v3's own line stands.
package yamlline

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// lineRE reads the line yaml.v3 puts in its error messages; compiled on
// first use, not at every program's start-up.
var lineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (?:line (\d+): )?`) })

// split returns yaml.v3's line (0 when it names none) and the message
// without its "yaml: line N: " prefix.
func split(msg string) (int, string) {
	line := 0
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	return line, strings.TrimSpace(msg)
}

// MaxSearch is the size of the largest document whose error Locate moves to
// the first line that fails.
const MaxSearch = 256 << 10

// Locate returns the line of data at which err, the error yaml.v3 gave
// decoding data, is to be fixed (0 when unknown), and err's message without
// yaml.v3's "yaml: line N: " prefix. A message yaml.v3 gives for a line
// indented wrongly says so when that line's indentation differs from the
// line above it: "(check the indentation of line 4 against line 3 above
// it)".
func Locate(data []byte, err error) (line int, message string) {
	line, message = split(err.Error())
	if len(data) <= MaxSearch {
		if first := firstFailingLine(data, message); first > line {
			line = first
		}
	}
	if line > 0 && isIndentation(message) {
		lines := bytes.Split(data, []byte("\n"))
		if prev := previousContentLine(lines, line); prev > 0 && line <= len(lines) && indentOf(lines[prev-1]) != indentOf(lines[line-1]) {
			message += fmt.Sprintf(" (check the indentation of line %d against line %d above it)", line, prev)
		}
	}
	return line, message
}

func indentOf(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " \t")) }

// previousContentLine is the last line before n (1-based) that holds more
// than white space or a comment, or 0.
func previousContentLine(lines [][]byte, n int) int {
	for i := min(n-1, len(lines)); i >= 1; i-- {
		l := bytes.TrimSpace(lines[i-1])
		if len(l) > 0 && l[0] != '#' {
			return i
		}
	}
	return 0
}

// firstFailingLine returns the smallest n such that the first n lines of
// data fail to parse with message msg, or 0.
func firstFailingLine(data []byte, msg string) int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	fails := func(n int) bool {
		var root yaml.Node
		dec := yaml.NewDecoder(bytes.NewReader(data[:ends[n-1]]))
		for {
			err := dec.Decode(&root)
			if err == nil {
				continue // a later document of the prefix may fail
			}
			_, m := split(err.Error())
			return m == msg
		}
	}
	if !fails(len(ends)) {
		return 0
	}
	lo, hi := 1, len(ends) // fails(hi) holds
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// isIndentation reports whether message is one yaml.v3 gives for a line
// indented wrongly.
func isIndentation(message string) bool {
	switch message {
	case "did not find expected key", "did not find expected '-' indicator", "mapping values are not allowed in this context":
		return true
	}
	return false
}
