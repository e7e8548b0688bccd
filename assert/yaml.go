package assert

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxYAMLNodes bounds how many nodes ConvertYAML visits, so that aliases
// pointing at aliases (the "billion laughs") cannot blow up.
const maxYAMLNodes = 1 << 20

// MaxYAMLExpansion bounds the bytes a YAML document may expand to once its
// aliases are resolved: the JSON text plus the JSON pointers of every value.
// A node count alone is not enough: a 64 KB file whose aliases repeat one
// large scalar a million times stays under any node limit and still needs
// gigabytes. 64 MiB is far beyond any real suite.
const MaxYAMLExpansion = 64 << 20

// YAMLDocument is a YAML document read for JSON Schema validation.
type YAMLDocument struct {
	// JSON is the document as JSON text, keys in document order.
	JSON json.RawMessage
	// Value is the document as encoding/json with UseNumber would decode
	// JSON: what Validator.Validate takes.
	Value any
	// Positions locates every value in the YAML text.
	Positions Positions
}

// ConvertYAML converts a YAML node to JSON and records where each value came
// from, in one walk. Mapping keys become strings; integers and floats keep
// their digits; .inf and .nan are errors (JSON cannot hold them), as are
// mappings with a duplicate key, aliases that refer to themselves and
// nesting past 1,000 levels. Errors are *YAMLError, with the line and
// column.
func ConvertYAML(node *yaml.Node) (*YAMLDocument, error) {
	c := yamlConverter{pos: Positions{}}
	v, err := c.convert(node, "")
	if err != nil {
		return nil, err
	}
	return &YAMLDocument{JSON: c.out, Value: v, Positions: c.pos}, nil
}

// yamlConverter walks a YAML tree once, building the decoded value and, in
// document order, its JSON text (a map alone would lose the key order).
type yamlConverter struct {
	pos       Positions
	nodes     int
	depth     int
	out       []byte
	ptrBytes  int                 // bytes of the pointers recorded in pos
	expanding map[*yaml.Node]bool // alias targets being expanded, to catch cycles
}

// tooLarge reports whether the expansion so far is past MaxYAMLExpansion.
func (c *yamlConverter) tooLarge(n *yaml.Node) error {
	if len(c.out)+c.ptrBytes > MaxYAMLExpansion {
		return &YAMLError{Position{n.Line, n.Column}, fmt.Sprintf("document too large: its aliases expand past %d bytes", MaxYAMLExpansion)}
	}
	return nil
}

// maxYAMLDepth bounds nesting, so a deep document cannot exhaust the stack.
const maxYAMLDepth = 1000

// YAMLError is a YAML value that cannot be read as JSON.
type YAMLError struct {
	Position
	Message string
}

func (e *YAMLError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Message) }

func (c *yamlConverter) convert(n *yaml.Node, ptr string) (any, error) {
	c.nodes++
	if c.nodes > maxYAMLNodes {
		return nil, &YAMLError{Position{n.Line, n.Column}, "document too large (aliases expand past 1,048,576 nodes)"}
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxYAMLDepth {
		return nil, &YAMLError{Position{n.Line, n.Column}, "document nested more than 1,000 levels deep"}
	}
	if _, ok := c.pos[ptr]; !ok {
		c.pos[ptr] = Position{n.Line, n.Column}
		c.ptrBytes += len(ptr)
	}
	if err := c.tooLarge(n); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out = append(c.out, "null"...)
			return nil, nil
		}
		return c.convert(n.Content[0], ptr)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &YAMLError{Position{n.Line, n.Column}, "unresolved alias"}
		}
		if c.expanding[n.Alias] {
			return nil, &YAMLError{Position{n.Line, n.Column}, fmt.Sprintf("alias *%s refers to itself", n.Value)}
		}
		if c.expanding == nil {
			c.expanding = map[*yaml.Node]bool{}
		}
		c.expanding[n.Alias] = true
		defer delete(c.expanding, n.Alias)
		return c.convert(n.Alias, ptr)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		c.out = append(c.out, '[')
		defer func() { c.out = append(c.out, ']') }()
		for i, item := range n.Content {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			v, err := c.convert(item, IndexPointer(ptr, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		c.out = append(c.out, '{')
		defer func() { c.out = append(c.out, '}') }()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				return nil, &YAMLError{Position{k.Line, k.Column}, "merge keys (<<) are not supported"}
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &YAMLError{Position{k.Line, k.Column}, "mapping key is not a scalar"}
			}
			if _, dup := out[k.Value]; dup {
				return nil, &YAMLError{Position{k.Line, k.Column}, fmt.Sprintf("duplicate key %q", k.Value)}
			}
			if i > 0 {
				c.out = append(c.out, ',')
			}
			c.out = appendJSONString(c.out, k.Value)
			c.out = append(c.out, ':')
			child := ptr + "/" + EscapePointer(k.Value)
			c.pos[child] = Position{k.Line, k.Column}
			c.ptrBytes += len(child)
			val, err := c.convert(v, child)
			if err != nil {
				return nil, err
			}
			out[k.Value] = val
		}
		return out, nil
	case yaml.ScalarNode:
		v, err := scalarValue(n)
		if err != nil {
			return nil, err
		}
		switch t := v.(type) {
		case nil:
			c.out = append(c.out, "null"...)
		case bool:
			c.out = strconv.AppendBool(c.out, t)
		case json.Number:
			c.out = append(c.out, t...)
		case string:
			c.out = appendJSONString(c.out, t)
		}
		if err := c.tooLarge(n); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, &YAMLError{Position{n.Line, n.Column}, "unsupported YAML node"}
}

func scalarValue(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &YAMLError{Position{n.Line, n.Column}, err.Error()}
		}
		return b, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, &YAMLError{Position{n.Line, n.Column}, "integer out of range: " + n.Value}
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, &YAMLError{Position{n.Line, n.Column}, err.Error()}
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, &YAMLError{Position{n.Line, n.Column}, fmt.Sprintf("%s is not a JSON number", strings.TrimSpace(n.Value))}
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	default:
		return n.Value, nil
	}
}

// appendJSONString appends s as a JSON string, escaping only what JSON
// requires (no HTML escaping of <, > and &).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		case r == utf8.RuneError:
			dst = append(dst, "\\ufffd"...)
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
