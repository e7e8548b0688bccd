package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/spec"
)

// Reduced is a criterion reduced to the eight keys of the criterion object
// (assert.CriterionKeys: id, task_id, input_entity_id, label, assertion,
// weight, axis, created_at), in that order, as `assay criteria list` and
// `get` print it. Whatever else the API sent is not kept (criteria are read
// leniently), so the printed list is always a valid criteria file, which
// rejects any other key.
//
// Its JSON writes the criterion as the API holds it: an empty id, task_id,
// input_entity_id or axis as null, the weight the API applies (1 when none
// was given), created_at in RFC 3339 (left out when the API gave none), the
// assertion exactly as written, and nothing HTML-escaped (json.Marshal
// escapes <, > and & in any Marshaler's output: encode with a json.Encoder
// with SetEscapeHTML(false) to keep them as written).
type Reduced struct {
	Criterion assert.Criterion
}

// Reduce returns c reduced to the criterion keys, for printing.
func Reduce(c assert.Criterion) Reduced { return Reduced{Criterion: c} }

// MarshalJSON writes the eight keys in order. It fails only for a weight
// that is not a finite number or an assertion that is not JSON, which no
// criterion read from the API or a criteria file has.
func (r Reduced) MarshalJSON() ([]byte, error) {
	c := r.Criterion
	w := c.EffectiveWeight()
	if math.IsNaN(w) || math.IsInf(w, 0) {
		return nil, fmt.Errorf("client: criterion %q: weight %v is not a JSON number", c.ID, w)
	}
	buf := make([]byte, 0, 160+len(c.Assertion))
	str := func(key, value string, nullWhenEmpty bool) {
		if len(buf) > 0 {
			buf = append(buf, ',')
		} else {
			buf = append(buf, '{')
		}
		buf = append(buf, `"`+key+`":`...)
		if value == "" && nullWhenEmpty {
			buf = append(buf, "null"...)
			return
		}
		buf = append(buf, spec.String(value).String()...)
	}
	str("id", c.ID, true)
	str("task_id", c.TaskID, true)
	str("input_entity_id", c.InputEntityID, true)
	str("label", c.Label, false)
	buf = append(buf, `,"assertion":`...)
	if len(c.Assertion) == 0 {
		buf = append(buf, "null"...)
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, c.Assertion); err != nil {
			return nil, fmt.Errorf("client: criterion %q: the assertion is not JSON: %w", c.ID, err)
		}
		buf = append(buf, compact.Bytes()...)
	}
	buf = append(buf, `,"weight":`...)
	buf = append(buf, spec.Number(w).String()...)
	str("axis", c.Axis, true)
	if !c.CreatedAt.IsZero() {
		str("created_at", c.CreatedAt.Format(time.RFC3339Nano), false)
	}
	return append(buf, '}'), nil
}
