package sftptest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
)

// A test serves an in-memory tree over real SSH and SFTP on 127.0.0.1,
// and evaluates a check against it through an endpoint that checks the
// server's host key.
func ExampleNewServer() {
	srv, err := sftptest.NewServer(sftptest.Options{Files: map[string][]byte{
		"outbox/claim.json": []byte(`{"claim.id": "C-1"}`),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "known-hosts")
	defer os.RemoveAll(dir)
	knownHosts := filepath.Join(dir, "known_hosts")
	if err := srv.WriteKnownHosts(knownHosts); err != nil {
		fmt.Println(err)
		return
	}
	ep, err := sftp.Dial(context.Background(), srv.Config(knownHosts))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	a, _ := assert.Decode([]byte(`{"assert": "sftp-file-present", "path": "/outbox/claim.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-1"}]}`))
	res := assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Details)
	// Output:
	// passed outbox/claim.json matched; 1 of 1 fields passed.
}
