package main

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as indented JSON without HTML escaping, so that
// evidence such as "<PID>" prints as written.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
