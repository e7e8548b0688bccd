package check

import "strings"

// FieldSchema is the JSON Schema (draft 2020-12) of one field assertion,
// {"path", "expected"}, for kinds to embed in their own schemas.
const FieldSchema = `{
  "type": "object",
  "required": ["path", "expected"],
  "additionalProperties": false,
  "properties": {
    "path": {"type": "string", "minLength": 1},
    "expected": {"type": ["string", "number", "boolean", "null"]}
  }
}`

// FieldsSchema is the JSON Schema of a list of field assertions.
const FieldsSchema = `{"type": "array", "items": ` + FieldSchema + `}`

// CorrelateBySchema is the JSON Schema of a correlate_by object, for kinds
// to embed in their own: each value is what its key names must hold,
// compared as an expected value is.
const CorrelateBySchema = `{"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}`

// LiteralKey returns the gjson path that selects the top-level member named
// key, whatever characters it holds (dots, wildcards, '#', '|', '@').
func LiteralKey(key string) string {
	if !strings.ContainsAny(key, `.*?#|@\!=<>%()[]{}",:`) {
		return key
	}
	var b strings.Builder
	for _, r := range key {
		switch r {
		case '.', '*', '?', '#', '|', '@', '\\', '!', '=', '<', '>', '%', '(', ')', '[', ']', '{', '}', '"', ',', ':':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
