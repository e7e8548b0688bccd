package assert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/assaykit/assay/internal/suggest"
	"github.com/tidwall/gjson"
)

// Criterion is a weighted assertion, as the criteria API and criteria files
// hold it. It is the one definition of these fields for assert, client and
// the JSON formats.
type Criterion struct {
	// ID identifies the criterion; results fall back to "#N", its 0-based
	// position, when it is empty.
	ID string `json:"id,omitempty"`
	// TaskID is the task the criterion belongs to.
	TaskID string `json:"task_id,omitempty"`
	// InputEntityID optionally ties the criterion to one input of the task;
	// JSON null and "" are the same.
	InputEntityID string `json:"input_entity_id,omitempty"`
	// Label names the criterion for people.
	Label string `json:"label"`
	// Assertion is the spec, passed through exactly as written.
	Assertion Spec `json:"assertion"`
	// Weight is the criterion's share of the task score. Nil means 1; it
	// must be finite and >= 0 (0 means: reported, not scored).
	Weight *float64 `json:"weight,omitempty"`
	// Axis groups criteria into per-axis scores; "" (or JSON null) is the
	// bucket DefaultAxis.
	Axis string `json:"axis,omitempty"`
	// CreatedAt is when the API created the criterion.
	CreatedAt time.Time `json:"created_at,omitzero"`
}

// Weight returns a pointer to w, for Criterion.Weight.
func Weight(w float64) *float64 { return &w }

// EffectiveWeight is the weight scoring uses: 1 when Weight is nil.
func (c Criterion) EffectiveWeight() float64 {
	if c.Weight == nil {
		return 1
	}
	return *c.Weight
}

// ErrInvalidWeight is wrapped by errors about a negative or non-finite
// weight.
var ErrInvalidWeight = errors.New("weight must be a finite number >= 0")

func (c Criterion) checkWeight() error {
	w := c.EffectiveWeight()
	if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
		return fmt.Errorf("weight %v: %w", w, ErrInvalidWeight)
	}
	return nil
}

// CriteriaError reports a problem of a criteria document. Its Pointer says
// where (a JSON pointer into the document) and, for a document read from
// YAML, Position gives the line and column.
type CriteriaError struct {
	Pointer string
	Position
	Message string
	Err     error
}

func (e *CriteriaError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%d:%d: %s: %s", e.Line, e.Column, p, e.Message)
	case e.Line > 0:
		return fmt.Sprintf("%d: %s", e.Line, e.Message)
	}
	return p + ": " + e.Message
}

// Unwrap returns the underlying cause.
func (e *CriteriaError) Unwrap() error { return e.Err }

// CriteriaErrors lists every problem ParseCriteria found, in document
// order. errors.As finds the first *CriteriaError in it.
type CriteriaErrors []*CriteriaError

func (e CriteriaErrors) Error() string {
	parts := make([]string, len(e))
	for i, ce := range e {
		parts[i] = ce.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (e CriteriaErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, ce := range e {
		out[i] = ce
	}
	return out
}

// CriterionKeys are the keys a criterion object has, in the API's order. A
// criteria file may hold no other (ParseCriteria rejects a typo such as
// "wieght", which would otherwise weigh 1).
var CriterionKeys = []string{"id", "task_id", "input_entity_id", "label", "assertion", "weight", "axis", "created_at"}

// ParseCriteria reads a criteria file: a JSON array of criterion objects,
// or a list response {"data": [...]} (its keys other than "data" are
// ignored). It is strict, as a file a person wrote must be: it rejects a
// document that is not JSON or neither shape, and, for each item, one that
// is not an object, lacks "assertion" or has one that is not an object, has
// a key other than CriterionKeys, a field of the wrong type, or a weight
// that is negative or not a finite number (null means 1). Every problem is
// reported at once, as CriteriaErrors of *CriteriaError, each with its JSON
// pointer. It does not decode the assertions: an unknown kind or an invalid
// spec fails only its own criterion when evaluated (assay validate reports
// them). Criteria read from the API are read leniently instead
// (Criterion.UnmarshalJSON ignores keys it does not know).
func ParseCriteria(data []byte) ([]Criterion, error) {
	out, _, problems := parseCriteria(data, nil)
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

// ValidateCriteria reads a criteria file as ParseCriteria does and also
// decodes every assertion through r, returning every problem at once in
// document order: the file's own (unknown keys, wrong types) and each
// assertion's schema violations, with pointers into the file and the kind
// in parentheses. It is what assay validate reports.
func (r *Registry) ValidateCriteria(data []byte) CriteriaErrors {
	_, _, problems := parseCriteria(data, func(ptr string, spec Spec) []*CriteriaError {
		if _, err := r.Decode(spec); err != nil {
			var se *SpecError
			if !errors.As(err, &se) {
				return []*CriteriaError{{Pointer: ptr, Message: err.Error(), Err: err}}
			}
			var out []*CriteriaError
			for _, v := range se.Violations {
				msg := v.Message
				if se.Kind != "" && !errors.Is(se, ErrUnknownKind) {
					msg += " (" + se.Kind + ")"
				}
				out = append(out, &CriteriaError{Pointer: ptr + v.Pointer, Message: msg, Err: se})
			}
			return out
		}
		return nil
	})
	return problems
}

// parseCriteria reads a criteria file strictly; decode, when set, is called
// for every object assertion with its pointer in the file.
func parseCriteria(data []byte, decode func(ptr string, spec Spec) []*CriteriaError) ([]Criterion, string, CriteriaErrors) {
	fatal := func(ce *CriteriaError) ([]Criterion, string, CriteriaErrors) {
		return nil, "", CriteriaErrors{ce}
	}
	data = bytes.TrimSpace(data)
	base := ""
	var items []gjson.Result
	switch {
	case len(data) > 0 && data[0] == '[' && jsonvalue.Valid(data):
		// The common case, read in one pass over one copy of the file:
		// the array and every criterion in it are valid, so nothing is
		// checked or copied again (gjson and encoding/json accept the
		// same documents: FuzzParseCriteria compares them). A cold
		// encoding/json decode into []json.RawMessage was a tenth of a
		// one-shot assay eval's own work.
		items = arrayItems(string(data))
	case len(data) > 0 && data[0] == '[':
		var raws []json.RawMessage
		if err := strictUnmarshal(data, &raws); err != nil {
			return fatal(&CriteriaError{Message: "not JSON: " + syntaxError(data, err), Err: err})
		}
		items = parseEach(raws)
	case len(data) > 0 && data[0] == '{':
		var list struct {
			Data *[]json.RawMessage `json:"data"`
		}
		if err := strictUnmarshal(data, &list); err != nil {
			if !json.Valid(data) {
				return fatal(&CriteriaError{Message: "not JSON: " + syntaxError(data, err), Err: err})
			}
			return fatal(&CriteriaError{Pointer: "/data", Message: "must be an array of criteria", Err: err})
		}
		if list.Data == nil {
			return fatal(&CriteriaError{Message: `an object criteria document must be a list response {"data": [...]}`})
		}
		items, base = parseEach(*list.Data), "/data"
	default:
		if !json.Valid(data) {
			var v any
			err := json.Unmarshal(data, &v)
			if err == nil {
				err = errors.New("empty input")
			}
			return fatal(&CriteriaError{Message: "not JSON: " + syntaxError(data, err), Err: err})
		}
		return fatal(&CriteriaError{Message: `criteria must be a JSON array or a list response {"data": [...]}`})
	}
	out := make([]Criterion, len(items))
	var problems CriteriaErrors
	for i, item := range items {
		ptr := IndexPointer(base, i)
		for _, ce := range out[i].parseValid(item, true) {
			ce.Pointer = ptr + ce.Pointer
			problems = append(problems, ce)
		}
		if a := out[i].Assertion; decode != nil && gjson.ParseBytes(a).IsObject() {
			problems = append(problems, decode(ptr+"/assertion", a)...)
		}
	}
	return out, base, problems
}

// syntaxError renders a JSON decoding error with the line and column it
// happened at, when it knows the offset.
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	offset := int64(-1)
	switch {
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 {
		return err.Error()
	}
	line, col := LineColumn(data, int(offset))
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// arrayItems returns the elements of text, a valid JSON array.
func arrayItems(text string) []gjson.Result {
	items := make([]gjson.Result, 0, 16)
	gjson.Parse(text).ForEach(func(_, v gjson.Result) bool {
		items = append(items, v)
		return true
	})
	return items
}

// parseEach reads each of raws, valid JSON values that encoding/json split.
func parseEach(raws []json.RawMessage) []gjson.Result {
	items := make([]gjson.Result, len(raws))
	for i, raw := range raws {
		items[i] = gjson.Parse(string(raw))
	}
	return items
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the document")
	}
	return nil
}

// UnmarshalJSON decodes a criterion object leniently, as the API's answers
// are read: keys it does not know are ignored (the server may add fields),
// but every known field's type and the weight (negative, NaN or non-number
// weights are errors) are checked.
func (c *Criterion) UnmarshalJSON(data []byte) error {
	if problems := c.parse(data, false); len(problems) > 0 {
		return problems[0]
	}
	return nil
}

// parse decodes a criterion object and returns every problem found. strict
// is a criteria file's reading: unknown keys and a missing or non-object
// assertion are problems too.
func (c *Criterion) parse(raw json.RawMessage, strict bool) (problems []*CriteriaError) {
	// gjson walks the object once without reflection: criteria lists of
	// thousands decode on the client's and Evaluate's paths.
	if !jsonvalue.Valid(raw) {
		return []*CriteriaError{{Message: "a criterion must be a JSON object, not invalid JSON"}}
	}
	return c.parseValid(gjson.ParseBytes(raw), strict)
}

// UnknownCriterionKey words a key that is not one of known (the keys a
// criterion may hold where it is read): `unknown criterion key "wieght"
// (did you mean "weight"?)` when one is near, else the keys it may hold.
func UnknownCriterionKey(key string, known []string) string {
	if near := suggest.Nearest(key, known); near != "" {
		return fmt.Sprintf("unknown criterion key %q (did you mean %q?)", key, near)
	}
	return fmt.Sprintf("unknown criterion key %q (a criterion has %s)", key, strings.Join(known, ", "))
}

// parseValid is parse for a value already known to be valid JSON.
func (c *Criterion) parseValid(obj gjson.Result, strict bool) (problems []*CriteriaError) {
	if !obj.IsObject() {
		return []*CriteriaError{{Message: "a criterion must be a JSON object, not " + jsonkind.OfResult(obj)}}
	}
	*c = Criterion{}
	hasAssertion := false
	obj.ForEach(func(k, v gjson.Result) bool {
		if strict && !slices.Contains(CriterionKeys, k.Str) {
			problems = append(problems, &CriteriaError{Pointer: "/" + EscapePointer(k.Str), Message: UnknownCriterionKey(k.Str, CriterionKeys)})
			return true
		}
		if k.Str == "assertion" {
			hasAssertion = true
			if strict && !v.IsObject() {
				problems = append(problems, &CriteriaError{Pointer: "/assertion", Message: "assertion must be an object, not " + jsonkind.OfResult(v)})
				return true
			}
		}
		if v.Type == gjson.Null {
			return true
		}
		var err *CriteriaError
		var dst *string
		switch k.Str {
		case "id":
			dst = &c.ID
		case "task_id":
			dst = &c.TaskID
		case "input_entity_id":
			dst = &c.InputEntityID
		case "label":
			dst = &c.Label
		case "axis":
			dst = &c.Axis
		case "assertion":
			c.Assertion = Spec(append([]byte(nil), v.Raw...))
		case "weight":
			w, ok := finiteNumber(v)
			if !ok {
				err = &CriteriaError{Pointer: "/weight", Message: "weight must be a number, not " + jsonkind.OfResult(v), Err: ErrInvalidWeight}
				if v.Type == gjson.Number {
					err.Message = "weight must be a number, not " + v.Raw + " (too large to be finite)"
				}
			} else if w < 0 {
				err = &CriteriaError{Pointer: "/weight", Message: fmt.Sprintf("weight %v is negative", w), Err: ErrInvalidWeight}
			} else {
				c.Weight = &w
			}
		case "created_at":
			t, perr := time.Parse(time.RFC3339Nano, v.Str)
			if v.Type != gjson.String || perr != nil {
				err = &CriteriaError{Pointer: "/created_at", Message: "must be an RFC 3339 time, not " + v.Raw}
			} else {
				c.CreatedAt = t
			}
		}
		if dst != nil {
			if v.Type != gjson.String {
				err = &CriteriaError{Pointer: "/" + k.Str, Message: "must be a string, not " + jsonkind.OfResult(v)}
			} else {
				*dst = v.Str
			}
		}
		if err != nil {
			problems = append(problems, err)
		}
		return true
	})
	if strict && !hasAssertion {
		problems = append(problems, &CriteriaError{Pointer: "/assertion", Message: "missing: every criterion needs an assertion"})
	}
	return problems
}

// finiteNumber reads a JSON number that fits a float64 (1e999 does not).
func finiteNumber(v gjson.Result) (float64, bool) {
	if v.Type != gjson.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Raw, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

// CriterionSchema is the JSON Schema of one criterion object (assay schema
// criterion). The assertion is any object here; its kind's schema judges it.
const CriterionSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "criterion",
  "type": "object",
  "required": ["assertion"],
  "additionalProperties": false,
  "properties": {
    "id": {"type": ["string", "null"]},
    "task_id": {"type": ["string", "null"]},
    "input_entity_id": {"type": ["string", "null"]},
    "label": {"type": ["string", "null"]},
    "assertion": {"type": "object", "description": "an assertion spec: {\"assert\": KIND, ...}"},
    "weight": {"type": ["number", "null"], "minimum": 0, "default": 1},
    "axis": {"type": ["string", "null"]},
    "created_at": {"type": "string", "format": "date-time"}
  }
}`
