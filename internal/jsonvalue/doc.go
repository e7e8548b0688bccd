// Package jsonvalue reads JSON text without reflection, for the specs and
// evidence files a one-shot evaluation reads. Decode turns a document into
// the value encoding/json decodes into an any with UseNumber, in one pass:
// validating a spec with gjson and then walking it with gjson read every
// nested value once per level, and encoding/json's decoder is slower still
// in a fresh process. String, Unquote, Number and SkipSpace are the pieces
// of the grammar it reads with, shared with the schema compiler's reader
// (internal/jsonschema), so that both read strings and numbers alike.
// FuzzDecode holds Decode to json.Valid and encoding/json.
package jsonvalue
