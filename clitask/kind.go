package clitask

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/specjson"
)

// The ten cli-bench kinds.
const (
	KindExitCode       = "exit_code"
	KindOutputContains = "output_contains"
	KindOutputEquals   = "output_equals"
	KindErrorContains  = "error_contains"
	KindFileExists     = "file_exists"
	KindFileContains   = "file_contains"
	KindRan            = "ran"
	KindNotRan         = "not_ran"
	KindRunCount       = "run_count"
	KindVerify         = "verify"
)

// kinds lists the ten kinds in Kinds' order, each with the JSON Schema of
// its value (the VALUE of {KIND: VALUE}; the suite schema embeds the same
// text) and its decoder. Constants and functions that capture nothing are
// data in the binary: the two maps this table replaced were built by code
// at the start of every program that imports the package.
//
// The decoders read specs that passed their kind's schema, so every member
// has its type; specjson reads them without decoding the whole spec, a
// repeated key as its last occurrence, as the schema check read it.
var kinds = [...]struct {
	kind, value string
	decode      assert.DecodeFunc
}{
	{KindErrorContains, `{"type": "string", "description": "the last command's stderr contains this text (case-sensitive)"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindErrorContains).String()
		return errorContainsCheck{text: t}, nil
	}},
	{KindExitCode, `{"type": "integer", "description": "the last command exited with this code"}`, func(s assert.Spec) (assert.Assertion, error) {
		code, err := int32At(s, KindExitCode)
		if err != nil {
			return nil, err
		}
		return exitCodeCheck{want: code}, nil
	}},
	{KindFileContains, `{"type": "object", "required": ["path", "text"], "additionalProperties": false, "properties": {"path": {"type": "string", "minLength": 1}, "text": {"type": "string"}}, "description": "the file exists and contains text (case-sensitive)"}`, func(s assert.Spec) (assert.Assertion, error) {
		return fileContainsCheck{path: specjson.At(s, KindFileContains, "path").String(), text: specjson.At(s, KindFileContains, "text").String()}, nil
	}},
	{KindFileExists, `{"type": "string", "minLength": 1, "description": "this path exists (file or directory); relative paths resolve against the working directory"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindFileExists).String()
		return fileExistsCheck{path: t}, nil
	}},
	{KindNotRan, `{"type": "string", "minLength": 1, "description": "no command matches this JavaScript regular expression (unanchored; an invalid one is matched as plain text)"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindNotRan).String()
		return ranCheck{pattern: CompilePattern(t), forbidden: true}, nil
	}},
	{KindOutputContains, `{"type": "string", "description": "the last command's stdout contains this text (case-sensitive)"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindOutputContains).String()
		return outputContainsCheck{text: t}, nil
	}},
	{KindOutputEquals, `{"type": "string", "description": "the last command's stdout equals this text, both trimmed of leading and trailing whitespace"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindOutputEquals).String()
		return outputEqualsCheck{text: t}, nil
	}},
	{KindRan, `{"type": "string", "minLength": 1, "description": "some command matches this JavaScript regular expression (unanchored; an invalid one is matched as plain text)"}`, func(s assert.Spec) (assert.Assertion, error) {
		t := specjson.At(s, KindRan).String()
		return ranCheck{pattern: CompilePattern(t)}, nil
	}},
	{KindRunCount, `{"type": "object", "required": ["pattern"], "additionalProperties": false, "properties": {"pattern": {"type": "string", "minLength": 1}, "min": {"type": "integer", "minimum": 0}, "max": {"type": "integer", "minimum": 0}}, "description": "the number of commands matching pattern is within [min, max] (inclusive; at least one bound, min <= max)"}`, func(s assert.Spec) (assert.Assertion, error) {
		c := runCountCheck{pattern: CompilePattern(specjson.At(s, KindRunCount, "pattern").String()), min: -1, max: -1}
		for _, b := range []struct {
			name string
			dst  *int
		}{{"min", &c.min}, {"max", &c.max}} {
			if !specjson.At(s, KindRunCount, b.name).Exists() {
				continue
			}
			n, err := int32At(s, KindRunCount, b.name)
			if err != nil {
				return nil, err
			}
			*b.dst = n
		}
		if c.min < 0 && c.max < 0 {
			return nil, violation("/run_count", "needs at least one bound: min or max")
		}
		if c.min >= 0 && c.max >= 0 && c.min > c.max {
			return nil, violation("/run_count/max", "max %d is less than min %d", c.max, c.min)
		}
		return c, nil
	}},
	{KindVerify, `{"type": "object", "required": ["run"], "additionalProperties": false, "properties": {"run": {"type": "string", "minLength": 1}, "output_contains": {"type": "string"}, "output_equals": {"type": "string"}}, "description": "run, executed by sh -c in the working directory after the task, exits 0 and its stdout passes the optional checks"}`, func(s assert.Spec) (assert.Assertion, error) {
		c := verifyCheck{run: specjson.At(s, KindVerify, "run").String()}
		if v := specjson.At(s, KindVerify, "output_contains"); v.Exists() {
			c.contains = &v.Str
		}
		if v := specjson.At(s, KindVerify, "output_equals"); v.Exists() {
			c.equals = &v.Str
		}
		return c, nil
	}},
}

// Kinds returns the ten cli-bench kinds, sorted.
func Kinds() []string {
	return []string{KindErrorContains, KindExitCode, KindFileContains, KindFileExists, KindNotRan,
		KindOutputContains, KindOutputEquals, KindRan, KindRunCount, KindVerify}
}

// kindSchema is the schema of the whole spec {"assert": KIND, KIND: VALUE}.
// It is concatenated, not formatted: it runs in init, and fmt's first use
// was most of this package's share of the command's start-up.
func kindSchema(kind, value string) []byte {
	q := strconv.Quote(kind)
	return []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": ` + q + `,
  "type": "object",
  "required": ["assert", ` + q + `],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": ` + q + `},
    ` + q + `: ` + value + `
  }
}`)
}

// Register adds the ten cli-bench kinds to r, saying where they come from
// and what they read (the cli/ folder of a snapshot).
func Register(r *assert.Registry) {
	for i := range kinds {
		k := &kinds[i]
		r.Register(k.kind, kindSchema(k.kind, k.value), k.decode, assert.From("github.com/assaykit/assay/clitask"),
			assert.Reads[Source](assert.Evidence{Name: "clitask", Folder: "cli", Attach: "clitask.Attach"}),
			assert.Reports(evidenceKeys(k.kind)...))
	}
}

// evidenceKeys are the members the evidence of kind always holds (the
// fields of its evidence type that are never omitted).
func evidenceKeys(kind string) []string {
	switch kind {
	case KindFileExists, KindFileContains:
		return []string{"path", "resolved", "exists", "is_dir"} // FileEvidence
	case KindRan, KindNotRan, KindRunCount:
		return []string{"pattern", "mode", "commands", "matches"} // PatternEvidence
	case KindVerify:
		return []string{"run", "exit_code", "stdout", "stderr", "duration_ms"} // VerifyEvidence
	}
	return []string{"commands", "command", "expected", "actual"} // LastEvidence
}

func init() { Register(assert.DefaultRegistry()) }

// suiteRegistry decodes the assert items of suites: only the CLI kinds, so
// an unknown key names these ten.
var suiteRegistry = sync.OnceValue(func() *assert.Registry {
	r := assert.NewRegistry()
	Register(r)
	return r
})

// int32At reads the integer at keys of a schema-valid spec; one that does
// not fit 32 bits is a violation.
func int32At(s assert.Spec, keys ...string) (int, error) {
	raw := specjson.At(s, keys...).Raw
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil {
		// The schema says integer, which admits 2.0 and 1e3.
		f, ferr := strconv.ParseFloat(raw, 64)
		if ferr != nil || f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0, violation("/"+strings.Join(keys, "/"), "%s %s is not a 32-bit integer", keys[len(keys)-1], raw)
		}
		n = int64(f)
	}
	return int(n), nil
}

func violation(ptr, format string, args ...any) error {
	return &assert.SpecError{Violations: []assert.Violation{{Pointer: ptr, Message: fmt.Sprintf(format, args...)}}}
}
