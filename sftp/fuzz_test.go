package sftp_test

import (
	"context"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
)

// FuzzFilePresent runs arbitrary specs over a tree holding an arbitrary
// file: no panic, and a memory tree never yields status error.
func FuzzFilePresent(f *testing.F) {
	for name, data := range treeFiles(f) {
		f.Add(`{"assert": "sftp-file-present", "path_pattern": "claims/**/*.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-1"}, {"path": "claim.id", "expected": "C-2"}]}`, name, data)
	}
	f.Add(`{"assert": "sftp-file-present", "path": "../../etc/passwd"}`, "a.json", []byte("{}"))
	f.Add(`{"assert": "sftp-file-present", "path_pattern": "[/**", "parse_json": true}`, "[/x", []byte("\x00\xff"))
	f.Fuzz(func(t *testing.T, spec, name string, data []byte) {
		env := assert.NewEnv()
		sftp.Attach(env, sftp.MemorySource(map[string][]byte{name: data, "claims/2024/claim.json": []byte(`{"claim.id": "C-1"}`)}))
		a, err := assert.Decode([]byte(spec))
		if err != nil {
			return
		}
		r := assert.Run(context.Background(), a, env)
		if r.Status == assert.StatusError && !badMemoryName(name) {
			t.Fatalf("memory tree gave an error: %s", r.Details)
		}
	})
}

// badMemoryName says whether MemorySource rejects name (so every check
// reports the error).
func badMemoryName(name string) bool {
	_, err := sftp.CleanPath(name)
	if err != nil {
		return true
	}
	clean, _ := sftp.CleanPath(name)
	// claims, claims/2024 and claims/2024/claim.json are taken.
	switch clean {
	case "claims", "claims/2024", "claims/2024/claim.json":
		return true
	}
	return len(clean) > len("claims/2024/claim.json/") && clean[:len("claims/2024/claim.json/")] == "claims/2024/claim.json/"
}
