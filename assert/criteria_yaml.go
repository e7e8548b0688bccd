package assert

import (
	"bytes"
	"errors"
	"io"

	"github.com/assaykit/assay/internal/yamlline"
	"gopkg.in/yaml.v3"
)

// IsYAMLCriteria reports whether a criteria file's bytes are to be read as
// YAML: its name ends in .yaml or .yml, or its content does not begin
// (after white space and YAML comments) with '[' or '{', as JSON does.
func IsYAMLCriteria(name string, data []byte) bool {
	if n := len(name); (n > 5 && name[n-5:] == ".yaml") || (n > 4 && name[n-4:] == ".yml") {
		return true
	}
	if n := len(name); n > 5 && name[n-5:] == ".json" {
		return false
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return line[0] != '[' && line[0] != '{'
	}
	return false
}

// CriteriaYAML converts a criteria file written in YAML to the JSON that
// ParseCriteria reads, keys in document order and numbers as written, with
// the place in the YAML text of every value. A document that is not YAML,
// holds more than one document, or cannot be JSON (.inf, a mapping key that
// repeats, aliases that expand past MaxYAMLExpansion) is a *CriteriaError
// with its line and column.
func CriteriaYAML(data []byte) ([]byte, Positions, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, &CriteriaError{Message: "not YAML: the file is empty"}
		}
		return nil, nil, yamlSyntaxError(data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, nil, &CriteriaError{Position: Position{extra.Line, extra.Column}, Message: "the file holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, yamlSyntaxError(data, err)
	}
	doc, err := ConvertYAML(&root)
	if err != nil {
		ce := &CriteriaError{Message: err.Error(), Err: err}
		var ye *YAMLError
		if errors.As(err, &ye) {
			ce.Position, ce.Message = ye.Position, ye.Message
		}
		return nil, nil, ce
	}
	return doc.JSON, doc.Positions, nil
}

// yamlSyntaxError words yaml.v3's parse error at the line to fix (see
// internal/yamlline: yaml.v3's own line for an under-indented key is where
// the enclosing block began, often lines above).
func yamlSyntaxError(data []byte, err error) *CriteriaError {
	line, msg := yamlline.Locate(data, err)
	return &CriteriaError{Position: Position{Line: line}, Message: "not YAML: " + msg, Err: err}
}

// locate gives every problem the YAML position of its pointer.
func locate(problems CriteriaErrors, pos Positions) CriteriaErrors {
	for _, ce := range problems {
		if ce.Line == 0 {
			if p, ok := pos.find(ce.Pointer); ok {
				ce.Position = p
			}
		}
	}
	return problems
}

// ParseCriteriaYAML reads a criteria file written in YAML (a list of
// criteria, or a mapping with data), as ParseCriteria reads JSON: every
// problem at once, each with its line and column as well as its pointer.
func ParseCriteriaYAML(data []byte) ([]Criterion, error) {
	js, pos, err := CriteriaYAML(data)
	if err != nil {
		return nil, CriteriaErrors{err.(*CriteriaError)}
	}
	out, _, problems := parseCriteria(js, nil)
	if len(problems) > 0 {
		return nil, locate(problems, pos)
	}
	return out, nil
}

// ValidateCriteriaYAML is ValidateCriteria for a criteria file written in
// YAML: every problem has its line and column.
func (r *Registry) ValidateCriteriaYAML(data []byte) CriteriaErrors {
	js, pos, err := CriteriaYAML(data)
	if err != nil {
		return CriteriaErrors{err.(*CriteriaError)}
	}
	return locate(r.ValidateCriteria(js), pos)
}
