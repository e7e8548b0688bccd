package clitask_test

import (
	"context"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/clitask"
)

// A key repeated in a spec reads as its last occurrence, the value the
// schema check validated, as in every kind's decoder.
func TestDecodeRepeatedKeyReadsTheLast(t *testing.T) {
	tr := &clitask.Trace{Commands: []clitask.Command{{Command: "make build"}}}
	for spec, want := range map[string]assert.Status{
		`{"assert": "ran", "ran": "^make test", "ran": "^make build"}`:                                                         assert.StatusPassed,
		`{"assert": "ran", "ran": "^make build", "ran": "^make test"}`:                                                         assert.StatusFailed,
		`{"assert": "run_count", "run_count": {"pattern": "^make", "max": 0, "max": 1}}`:                                       assert.StatusPassed,
		`{"assert": "file_contains", "file_contains": {"path": "a", "text": "x"}, "file_contains": {"path": "", "text": "x"}}`: "",
	} {
		a, err := assert.Decode([]byte(spec))
		if want == "" {
			if err == nil {
				t.Errorf("%s: decoded; the last file_contains has an empty path", spec)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		env := assert.NewEnv()
		clitask.Attach(env, clitask.MemorySource(tr))
		if res := assert.Run(context.Background(), a, env); res.Status != want {
			t.Errorf("%s: %s (%s), want %s", spec, res.Status, res.Details, want)
		}
	}
}
