package jsonkind

import (
	"encoding/json"
	"fmt"

	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// Of names the JSON type of a value decoded by encoding/json (with or
// without UseNumber) or built from the same Go types.
func Of(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, int32, uint, uint64, uint32:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// OfResult names the JSON type of a gjson value; a missing value is
// "nothing".
func OfResult(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "nothing"
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	}
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.Number:
		return "a number"
	case gjson.True, gjson.False:
		return "a boolean"
	}
	return "null"
}

// OfRaw names the JSON type of raw JSON text by its first significant
// byte; text that is not JSON is "not JSON".
func OfRaw(raw []byte) string {
	if !jsonvalue.Valid(raw) {
		return "not JSON"
	}
	return OfResult(gjson.ParseBytes(raw))
}
