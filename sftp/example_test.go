package sftp_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
)

// An agent was asked to upload a claim as JSON. The tree holds the claim,
// a partial upload and a hidden temporary file; the check finds the claim
// and judges a literal dotted key and a nested path.
func Example() {
	env := assert.NewEnv()
	sftp.Attach(env, sftp.MemorySource(map[string][]byte{
		"outbox/claim-C1.json":      []byte(`{"claim.id": "C-1", "patient": {"mrn": "12345"}, "total": 120.5}`),
		"outbox/claim-C2.json.part": []byte(`{"claim.id": "C-2", "pat`),
		"outbox/.claim-C2.json":     []byte(`{"claim.id": "C-2"}`),
	}))
	a, err := assert.Decode([]byte(`{"assert": "sftp-file-present", "path_pattern": "/outbox/*.json", "parse_json": true,
	  "fields": [{"key": "claim.id", "expected": "C-1"}, {"path": "patient.mrn", "expected": "12345"}, {"path": "total", "expected": 120.50}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res := assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Score)
	fmt.Println(res.Details)

	a, _ = assert.Decode([]byte(`{"assert": "sftp-file-present", "path": "outbox/claim-C2.json"}`))
	res = assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Details)
	// Output:
	// passed 1
	// outbox/claim-C1.json matched; 3 of 3 fields passed.
	// failed No regular file at "outbox/claim-C2.json"; it does not exist.
}
