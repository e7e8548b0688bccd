package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/criterionbody"
	"github.com/assaykit/assay/spec"
)

// CriterionUpdate is a partial change to a criterion. Only the fields it
// sets are sent: nil pointers, a nil Assertion and zero NullableStrings are
// left out of the PATCH body, so the API keeps their current values.
type CriterionUpdate struct {
	TaskID *string
	// InputEntityID and Axis may also be cleared to null (Null()).
	InputEntityID NullableString
	Label         *string
	// Assertion, when not nil, replaces the assertion; it is sent exactly
	// as written, with insignificant whitespace compacted.
	Assertion assert.Spec
	Weight    *float64
	Axis      NullableString
}

// NullableString is an update to a field the API lets you clear: Set(s)
// sets it to s, Null() sets it to JSON null, and the zero value leaves it
// alone.
type NullableString struct {
	value string
	state nullState
}

type nullState uint8

const (
	unset nullState = iota
	isNull
	isSet
)

// Set returns an update that sets a field to s.
func Set(s string) NullableString { return NullableString{value: s, state: isSet} }

// Null returns an update that clears a field to JSON null.
func Null() NullableString { return NullableString{state: isNull} }

// IsZero reports whether n leaves its field alone.
func (n NullableString) IsZero() bool { return n.state == unset }

// IsNull reports whether n clears its field.
func (n NullableString) IsNull() bool { return n.state == isNull }

// Value returns the string n sets, and false when it sets none (it clears
// the field or leaves it alone).
func (n NullableString) Value() (string, bool) { return n.value, n.state == isSet }

// The keys of a criterion object, in the order the API writes them.
const (
	keyID            = "id"
	keyTaskID        = "task_id"
	keyInputEntityID = "input_entity_id"
	keyLabel         = "label"
	keyAssertion     = "assertion"
	keyWeight        = "weight"
	keyAxis          = "axis"
	keyCreatedAt     = "created_at"
)

// MarshalJSON writes the PATCH body: only the fields u sets, in the order
// of the criterion object, without HTML escaping.
func (u CriterionUpdate) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 64+len(u.Assertion))
	buf = append(buf, '{')
	member := func(key string) {
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, key...)
		buf = append(buf, '"', ':')
	}
	text := func(key, value string) {
		member(key)
		buf = append(buf, spec.String(value).String()...)
	}
	nullable := func(key string, v NullableString) {
		switch v.state {
		case isNull:
			member(key)
			buf = append(buf, "null"...)
		case isSet:
			text(key, v.value)
		}
	}
	if u.TaskID != nil {
		text(keyTaskID, *u.TaskID)
	}
	nullable(keyInputEntityID, u.InputEntityID)
	if u.Label != nil {
		text(keyLabel, *u.Label)
	}
	if u.Assertion != nil {
		var compact bytes.Buffer
		if err := json.Compact(&compact, u.Assertion); err != nil {
			return nil, fmt.Errorf("assertion is not valid JSON: %w", err)
		}
		member(keyAssertion)
		buf = append(buf, compact.Bytes()...)
	}
	if u.Weight != nil {
		if math.IsNaN(*u.Weight) || math.IsInf(*u.Weight, 0) {
			return nil, fmt.Errorf("weight %v is not a JSON number", *u.Weight)
		}
		member(keyWeight)
		buf = strconv.AppendFloat(buf, *u.Weight, 'g', -1, 64)
	}
	nullable(keyAxis, u.Axis)
	return append(buf, '}'), nil
}

// updateProblems words the problems of an update's members.
var updateProblems = map[criterionbody.Problem]string{
	criterionbody.Assigned:        "is assigned by the API and cannot be changed",
	criterionbody.NotString:       "must be a string",
	criterionbody.NotStringOrNull: "must be a string or null",
	criterionbody.NotObject:       "must be an object",
	criterionbody.NotNumber:       "must be a number",
}

// UnmarshalJSON reads a PATCH body, such as the file of `assay criteria
// update`: an object holding only the fields to change. input_entity_id and
// axis may be null (cleared); other nulls, fields of the wrong type, the
// read-only id and created_at, and unknown keys are errors naming the key.
func (u *CriterionUpdate) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil || members == nil {
		if err == nil {
			err = errors.New("null")
		}
		return fmt.Errorf("an update must be a JSON object of the fields to change: %w", err)
	}
	*u = CriterionUpdate{}
	for _, f := range criterionbody.Read(members) {
		switch f.Problem {
		case criterionbody.OK:
		case criterionbody.Unknown:
			return fmt.Errorf("unknown key %q (an update may set task_id, input_entity_id, label, assertion, weight, axis)", f.Key)
		default:
			return fmt.Errorf("%q %s", f.Key, updateProblems[f.Problem])
		}
		switch f.Key {
		case keyTaskID:
			u.TaskID = &f.Text
		case keyLabel:
			u.Label = &f.Text
		case keyInputEntityID, keyAxis:
			v := Null()
			if !f.Null {
				v = Set(f.Text)
			}
			if f.Key == keyAxis {
				u.Axis = v
			} else {
				u.InputEntityID = v
			}
		case keyAssertion:
			u.Assertion = assert.Spec(bytes.Clone(f.Object))
		case keyWeight:
			w, err := f.Number.Float64()
			if err != nil {
				return fmt.Errorf("%q must be a number", f.Key)
			}
			u.Weight = &w
		}
	}
	return nil
}
