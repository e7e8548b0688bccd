// Package criterionbody reads the body of a request that sets a
// criterion's fields (a POST or a PATCH of the criteria API): an object
// whose members are checked for the type their keys take. The client reads
// an update file through it and clienttest's server a request body, so
// that both read a body alike; each words the problems its own way.
package criterionbody

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Problem says what is wrong with a member.
type Problem int

// The problems a member can have.
const (
	// OK: the value is what its key takes.
	OK Problem = iota
	// NotString: task_id or label is not a string.
	NotString
	// NotStringOrNull: input_entity_id or axis is neither a string nor
	// null.
	NotStringOrNull
	// NotObject: assertion is not an object.
	NotObject
	// NotNumber: weight is not a number.
	NotNumber
	// Assigned: id or created_at, which the API assigns.
	Assigned
	// Unknown: a key a criterion does not have.
	Unknown
)

// Field is one member of a body, in key order.
type Field struct {
	Key string
	// Problem is OK when the value is what Key takes; the fields below
	// are then set as Key says.
	Problem Problem
	// Text is the string of task_id and label, and of input_entity_id and
	// axis when they are not null.
	Text string
	// Null is true for an input_entity_id or axis that is null (cleared).
	Null bool
	// Object is the assertion's JSON text, as written.
	Object json.RawMessage
	// Number is the weight, as written.
	Number json.Number
}

// Read reads the members of a body in key order.
func Read(members map[string]json.RawMessage) []Field {
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Field, 0, len(keys))
	for _, k := range keys {
		out = append(out, read(k, bytes.TrimSpace(members[k])))
	}
	return out
}

// read reads the member key, whose value is raw.
func read(key string, raw json.RawMessage) Field {
	f := Field{Key: key}
	null := string(raw) == "null"
	text := func() bool { return !null && json.Unmarshal(raw, &f.Text) == nil }
	switch key {
	case "id", "created_at":
		f.Problem = Assigned
	case "task_id", "label":
		if !text() {
			f.Problem = NotString
		}
	case "input_entity_id", "axis":
		if f.Null = null; !null && !text() {
			f.Problem = NotStringOrNull
		}
	case "assertion":
		if len(raw) == 0 || raw[0] != '{' {
			f.Problem = NotObject
		} else {
			f.Object = raw
		}
	case "weight":
		if null || len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &f.Number) != nil {
			f.Problem = NotNumber
		}
	default:
		f.Problem = Unknown
	}
	return f
}
