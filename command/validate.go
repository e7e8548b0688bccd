package command

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/tidwall/gjson"
)

func init() {
	register("validate", subcommand{summary: "validate suite, task and criteria files (every problem at once)", usage: "assay validate FILE...", run: runValidate})
}

// problem is one thing wrong with a file, located by line:column (YAML) or
// JSON pointer.
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
	if p.warning {
		return fmt.Sprintf("%s: warning: %s", p.file, p.message)
	}
	switch {
	case p.line > 0 && p.column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", p.file, p.line, p.column, p.message)
	case p.line > 0:
		return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.message)
	case p.pointer != "":
		return fmt.Sprintf("%s: %s: %s", p.file, p.pointer, p.message)
	}
	return fmt.Sprintf("%s: %s", p.file, p.message)
}

// yamlValidator validates YAML documents: suite files (a mapping with
// tasks) and task files (a list of tasks). The cli-bench file contributes it.
var yamlValidator func(path string, data []byte) []problem

func runValidate(_ context.Context, c *cli, args []string) int {
	fs := newFlags("validate", c)
	maxFileSize := fs.Int64("max-file-size", check.DefaultMaxFileSize, "the most `BYTES` read from one file")
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
		for _, p := range validateFile(f, *maxFileSize) {
			fmt.Fprintln(c.stderr, p)
			valid = valid && p.warning
		}
		if valid {
			fmt.Fprintf(c.stdout, "%s: valid\n", f)
			continue
		}
		code = exitUsage
	}
	return code
}

// validateFile reads a file as eval reads its inputs (a regular file, at
// most limit bytes: a FIFO or device is a problem, never a hang) and
// reports every problem in it.
func validateFile(path string, limit int64) []problem {
	data, err := readInputFile(path, limit)
	if err != nil {
		return []problem{{file: path, message: err.Error()}}
	}
	ext := strings.ToLower(filepath.Ext(path))
	trimmed := bytes.TrimSpace(data)
	isJSON := ext == ".json" || (ext != ".yaml" && ext != ".yml" && len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{'))
	if isJSON && isCriteriaDocument(trimmed) {
		return validateCriteria(path, data)
	}
	if yamlValidator == nil {
		return []problem{{file: path, message: "cli-bench suite validation is not built into this assay"}}
	}
	return yamlValidator(path, data)
}

// isCriteriaDocument classifies JSON by content: a mapping with "data" (a
// list response) or "assertion" (one criterion, as criteria create --file
// takes), or a list whose first item has "assertion". Anything else is
// read as a suite or task file (JSON is YAML), which reports what it lacks.
func isCriteriaDocument(data []byte) bool {
	v := gjson.ParseBytes(data)
	switch {
	case !gjson.ValidBytes(data):
		return true // ValidateCriteria says where the syntax breaks
	case v.IsObject():
		return v.Get("data").Exists() || v.Get("assertion").Exists() || !v.Get("tasks").Exists()
	case v.IsArray():
		return v.Get("0.assertion").Exists()
	}
	return true
}

// validateCriteria reports every problem of a criteria file at once: its
// structure (unknown criterion keys, wrong types, JSON syntax with line and
// column) and each assertion's schema violations, each with the JSON
// pointer of the offending value in the file. A single criterion object is
// validated as a one-item list whose pointers start at the root.
func validateCriteria(path string, data []byte) []problem {
	single := false
	if v := gjson.ParseBytes(data); v.IsObject() && !v.Get("data").Exists() && v.Get("assertion").Exists() {
		single = true
		data = append(append([]byte{'['}, data...), ']')
	}
	var problems []problem
	for _, ce := range assert.DefaultRegistry().ValidateCriteria(data) {
		ptr := ce.Pointer
		if single {
			ptr = strings.TrimPrefix(ptr, "/0")
		}
		problems = append(problems, problem{file: path, pointer: orRoot(ptr), message: ce.Message})
	}
	return problems
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
