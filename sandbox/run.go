package sandbox

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// RunEntity reads the input entity a snapshot names in its run.json
// ({"input_entity_id": ID}), for assert.WithEntity: "" when the snapshot
// has no run.json or names no entity. A run.json that is not such an object
// is an error (bad input, not evidence). fsys is the snapshot's root, as
// for LoadFS; use check.DirFS(dir) for one on disk.
func RunEntity(fsys fs.FS, maxFileSize int64) (string, error) {
	data, err := check.ReadFile(fsys, "run.json", maxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v := gjson.ParseBytes(data)
	id := v.Get("input_entity_id")
	switch {
	case !jsonvalue.Valid(data) || !v.IsObject():
		return "", errors.New(`run.json: must be a JSON object {"input_entity_id": ...}`)
	case id.Type == gjson.String:
		return id.Str, nil
	case !id.Exists() || id.Type == gjson.Null:
		return "", nil
	}
	return "", fmt.Errorf("run.json: input_entity_id must be a string or null, not %s", id.Raw)
}
