package command

import (
	"io"

	"github.com/assaykit/assay/internal/jsonenc"
)

// writeJSON prints v as indented JSON without HTML escaping, so that
// evidence such as "<PID>" prints as written.
func writeJSON(w io.Writer, v any) error { return jsonenc.Write(w, v, true) }
