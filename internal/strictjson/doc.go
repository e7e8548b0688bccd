// Package strictjson decodes a JSON document a person wrote (a seed's payer
// policy, a phone line) into Go structs strictly, the way assay reports
// every input error: a key the struct does not have, a value of the wrong
// JSON type, a key written twice or a missing required key is an error
// that names its JSON pointer and, as a line and column, where it is in the
// file.
//
// Struct fields are matched by their `json` tag's name exactly (no case
// folding); a field tagged `strict:"required"` must be present.
// Supported field types: string, bool, int, int64, float64, json.Number,
// json.RawMessage, pointers to these (null or absent is nil), slices, and
// maps with string keys. It is for small files: it reflects per decode.
package strictjson
