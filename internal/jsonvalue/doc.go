// Package jsonvalue reads JSON text without reflection, for the specs and
// evidence files a one-shot evaluation reads. Decode turns a document into
// the value encoding/json decodes into an any with UseNumber, in one pass:
// validating a spec with gjson and then walking it with gjson read every
// nested value once per level, and encoding/json's decoder is slower still
// in a fresh process. FuzzDecode holds Decode to json.Valid and
// encoding/json.
package jsonvalue
