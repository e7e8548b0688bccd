package command

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/strictjson"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/report"
	"github.com/assaykit/assay/serve"
	"github.com/tidwall/gjson"
)

func init() {
	register("validate", subcommand{summary: "validate criteria (JSON or YAML), suite and task files, payer policies and phone lines (every problem at once)", usage: "assay validate FILE...", run: runValidate})
}

// problem is one thing wrong with a file, located by line:column (YAML) and
// JSON pointer, printed "file:line:col: [warning: ]/pointer: message".
type problem struct {
	file    string
	line    int
	column  int
	pointer string
	message string
	// warning marks something valid but suspect: printed, not failing.
	warning bool
}

func (p problem) String() string {
	var b strings.Builder
	b.WriteString(p.file)
	if p.line > 0 {
		fmt.Fprintf(&b, ":%d", p.line)
		if p.column > 0 {
			fmt.Fprintf(&b, ":%d", p.column)
		}
	}
	b.WriteString(": ")
	if p.warning {
		b.WriteString("warning: ")
	}
	if p.pointer != "" {
		b.WriteString(p.pointer)
		b.WriteString(": ")
	}
	b.WriteString(p.message)
	return b.String()
}

// yamlValidator validates YAML documents: suite files (a mapping with
// tasks) and task files (a list of tasks). The cli-bench file contributes it.
var yamlValidator func(path string, data []byte, lim readLimits) []problem

// readLimits are what validate reads: each file named or included at most
// maxFile bytes, a suite's includes at most maxTotal bytes in all.
type readLimits struct{ maxFile, maxTotal int64 }

func runValidate(_ context.Context, c *cli, args []string) int {
	fs := newFlags("validate", c)
	var lim readLimits
	fs.Int64Var(&lim.maxFile, "max-file-size", check.DefaultMaxFileSize, "the most `BYTES` read from one file (one named, or one a suite includes)")
	fs.Int64Var(&lim.maxTotal, "max-total-size", check.DefaultMaxTotalSize, "the most `BYTES` read from a suite's included task files in all")
	files, ok := parseFlags(fs, c, args)
	if !ok {
		return exitUsage
	}
	if len(files) == 0 {
		return c.badInput("validate: name at least one file")
	}
	code := exitOK
	for _, f := range files {
		valid := true
		for _, p := range validateFile(f, lim) {
			c.eline(p.String())
			valid = valid && p.warning
		}
		if valid {
			fmt.Fprintf(c.stdout, "%s: valid\n", report.Escape(f))
			continue
		}
		code = exitUsage
	}
	return code
}

// validateFile reads a file as eval reads its inputs (a regular file, at
// most lim.maxFile bytes: a FIFO or device is a problem, never a hang) and
// reports every problem in it. What a file is, is told by its content
// (rule 13), whether it is written in JSON or YAML.
func validateFile(path string, lim readLimits) []problem {
	data, err := readInputFile(path, lim.maxFile)
	if err != nil {
		return []problem{{file: path, message: err.Error()}}
	}
	yamlText := assert.IsYAMLCriteria(path, data)
	js := data
	var pos assert.Positions
	if yamlText {
		var err error
		if js, pos, err = assert.CriteriaYAML(data); err != nil {
			return criteriaProblems(path, assert.CriteriaErrors{err.(*assert.CriteriaError)})
		}
	} else if !jsonvalue.Valid(data) {
		return validateCriteria(path, data) // it says where the JSON breaks
	}
	v := gjson.ParseBytes(js)
	switch {
	case v.IsObject() && v.Get("tasks").Exists(), v.IsArray() && !v.Get("0.assertion").Exists():
		return validateYAML(path, data, lim)
	case v.IsObject() && v.Get("data").Exists(), v.IsArray():
		return validateCriteriaJSON(path, js, pos, false)
	case v.IsObject() && v.Get("assertion").Exists():
		return validateCriteriaJSON(path, js, pos, true)
	case v.IsObject() && v.Get("members").Exists():
		return foreignProblems(path, "a payer policy", func(b []byte) error { _, err := payer.Parse(b); return err }, js)
	case v.IsObject() && v.Get("nodes").Exists():
		return foreignProblems(path, "a phone line", serve.ParsePhoneLine, js)
	}
	return []problem{{file: path, message: "not a file assay reads: a suite is a mapping with tasks, a task file a list of tasks, " +
		"a criteria file a list of criteria (or a mapping with data), a payer policy a mapping with members, a phone line a mapping with nodes"}}
}

// validateYAML validates a suite or task file through the cli-bench
// validator.
func validateYAML(path string, data []byte, lim readLimits) []problem {
	if yamlValidator == nil {
		return []problem{{file: path, message: "cli-bench suite validation is not built into this assay"}}
	}
	return yamlValidator(path, data, lim)
}

// foreignProblems validates a file with its own parser (a payer policy, a
// phone line): each problem it reports, located.
func foreignProblems(path, what string, parse func([]byte) error, data []byte) []problem {
	err := parse(data)
	if err == nil {
		return nil
	}
	var list strictjson.Errors
	if errors.As(err, &list) {
		out := make([]problem, len(list))
		for i, e := range list {
			out[i] = problem{file: path, line: e.Line, column: e.Column, pointer: e.Pointer, message: e.Message}
		}
		return out
	}
	return []problem{{file: path, message: what + ": " + err.Error()}}
}

// validateCriteria reports every problem of a JSON criteria file.
func validateCriteria(path string, data []byte) []problem {
	return validateCriteriaJSON(path, data, nil, false)
}

// validateCriteriaJSON reports every problem of a criteria file (its JSON,
// and pos when it was written in YAML) at once: its structure (unknown
// criterion keys, wrong types, syntax with line and column), each
// assertion's schema violations, and what a schema cannot see (lint.go).
// A single criterion object is validated as a one-item list whose pointers
// start at the root.
func validateCriteriaJSON(path string, data []byte, pos assert.Positions, single bool) []problem {
	if single {
		data = append(append([]byte{'['}, data...), ']')
	}
	problems := assert.DefaultRegistry().ValidateCriteria(data)
	seen := map[string]bool{}
	for _, ce := range problems {
		seen[ce.Pointer] = true
	}
	lintProblems, warnings := lintCriteria(data)
	for _, ce := range lintProblems {
		if !seen[ce.Pointer] { // the decoder may have said it already
			problems = append(problems, ce)
		}
	}
	slices.SortStableFunc(problems, func(a, b *assert.CriteriaError) int { return comparePointers(a.Pointer, b.Pointer) })
	nProblems := len(problems)
	problems = append(problems, warnings...)
	for _, ce := range problems {
		if single {
			ce.Pointer = strings.TrimPrefix(ce.Pointer, "/0")
		}
		if pos != nil && ce.Line == 0 {
			if p, ok := locateIn(pos, ce.Pointer); ok {
				ce.Position = p
			}
		}
	}
	out := criteriaProblems(path, problems)
	for i := nProblems; i < len(out); i++ {
		out[i].warning = true
	}
	return out
}

// locateIn finds the position of ptr, or of its nearest ancestor.
func locateIn(pos assert.Positions, ptr string) (assert.Position, bool) {
	for {
		if p, ok := pos[ptr]; ok {
			return p, true
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return assert.Position{}, false
		}
		ptr = ptr[:i]
	}
}

func criteriaProblems(path string, errs assert.CriteriaErrors) []problem {
	out := make([]problem, len(errs))
	for i, ce := range errs {
		out[i] = problem{file: path, line: ce.Line, column: ce.Column, pointer: ce.Pointer, message: ce.Message}
		if ce.Line == 0 {
			out[i].pointer = orRoot(ce.Pointer) // without a line, the pointer is the place
		}
	}
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// comparePointers orders JSON pointers as document order does: by each
// token, indexes numerically.
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, errA := strconv.Atoi(ta[i])
		nb, errB := strconv.Atoi(tb[i])
		if errA == nil && errB == nil {
			return na - nb
		}
		return 0 // keys: keep the order found
	}
	return len(ta) - len(tb)
}
