package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonenc"
	"github.com/tidwall/gjson"
)

// Format is an output format.
type Format string

// The formats (and HTML, in html.go). JSONL applies to benchmarks only.
const (
	Text  Format = "text"
	JSON  Format = "json"
	JUnit Format = "junit"
	JSONL Format = "jsonl"
)

// ParseFormat reads a --format value; allowed lists the formats the caller
// accepts (all five when empty).
func ParseFormat(s string, allowed ...Format) (Format, error) {
	if len(allowed) == 0 {
		allowed = []Format{Text, JSON, JUnit, JSONL, HTML}
	}
	for _, f := range allowed {
		if Format(s) == f {
			return f, nil
		}
	}
	names := make([]string, len(allowed))
	for i, f := range allowed {
		names[i] = string(f)
	}
	return "", fmt.Errorf("format must be %s, not %q", orList(names), s)
}

func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Options tune the output.
type Options struct {
	// Color marks statuses with ANSI colours (text only).
	Color bool
	// Summary writes only a benchmark's summary, without its runs (text,
	// JSON, HTML).
	Summary bool
	// Shard ("K/N") is written on every JSON line of a benchmark judged as
	// shard K of N, its benchmark line included.
	Shard string
	// Evidence adds each assertion's evidence to a cli-bench report's JSON
	// (assay check --evidence).
	Evidence bool
}

// ColorFor reports whether text written to w should be coloured: w is a
// terminal, NO_COLOR is unset or empty, and noColor (a --no-color flag) is
// false. getenv is os.Getenv or a test's stand-in.
func ColorFor(w io.Writer, noColor bool, getenv func(string) string) bool {
	if noColor || getenv("NO_COLOR") != "" {
		return false
	}
	return IsTerminal(w)
}

// IsTerminal reports whether w is a character device, such as a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// writeJSON prints v as indented JSON without HTML escaping.
func writeJSON(w io.Writer, v any) error { return jsonenc.Write(w, v, true) }

// writeJSONLine prints v as one line of JSON without HTML escaping.
func writeJSONLine(w io.Writer, v any) error { return jsonenc.Write(w, v, false) }

// FieldDiff is one failing part of a check's evidence.
type FieldDiff = check.FieldDiff

// FieldDiffs reads the failing fields of a check's evidence: the entries
// of its field_results, assertion_results or phrase_results whose passed
// is false. Evidence of other shapes has none.
func FieldDiffs(evidence any) []FieldDiff {
	if evidence == nil {
		return nil
	}
	// The evidence most kinds return is read directly: marshalling it
	// whole (a matched FHIR resource, a portal row) to find its failing
	// fields was a fifth of a one-shot assay eval's report.
	switch ev := evidence.(type) {
	case *check.Evidence:
		if ev != nil {
			return ev.FieldDiffs()
		}
	case check.Differ:
		return ev.FieldDiffs()
	}
	data, err := json.Marshal(evidence)
	if err != nil {
		return nil
	}
	doc := gjson.ParseBytes(data)
	var out []FieldDiff
	for _, key := range []string{"field_results", "assertion_results", "phrase_results"} {
		doc.Get(key).ForEach(func(_, fr gjson.Result) bool {
			if fr.Get("passed").Type != gjson.False {
				return true
			}
			d := FieldDiff{Reason: fr.Get("reason").String()}
			switch {
			case fr.Get("phrase").Exists():
				d.Name = "phrase " + fr.Get("phrase").Raw
				d.Expected = fr.Get("expected").String()
				d.Actual = "absent"
				if fr.Get("found").Bool() {
					d.Actual = "present"
					if q := fr.Get("quote"); q.Type == gjson.String && q.Str != "" {
						d.Actual += " (" + q.Raw + ")"
					}
				}
			case fr.Get("key").Exists():
				d.Name = "key " + fr.Get("key").Raw
				d.Expected, d.Actual = rawOrNull(fr.Get("expected")), rawOrNull(fr.Get("actual"))
			default:
				d.Name = fr.Get("path").String()
				d.Expected, d.Actual = rawOrNull(fr.Get("expected")), rawOrNull(fr.Get("actual"))
			}
			out = append(out, d)
			return true
		})
	}
	return out
}

func rawOrNull(v gjson.Result) string {
	if !v.Exists() {
		return "null"
	}
	return v.Raw
}

// Decimal renders seconds as a decimal number, never with an exponent.
func Decimal(seconds float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", max(seconds, 0)), "0"), ".")
	if s == "" {
		return "0"
	}
	return s
}
