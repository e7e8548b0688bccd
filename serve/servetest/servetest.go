// Package servetest starts an assay sandbox for a Go test: seeded from a
// folder, listening on 127.0.0.1, and shut down when the test ends.
//
//	func TestAgent(t *testing.T) {
//		srv := servetest.New(t, "testdata/seed")
//		run, err := srv.NewRun(context.Background(), serve.RunOptions{})
//		...
//		agent.Do(run.Endpoints(), run.Token())
//		assaytest.Require(t, run.Env(), spec.FHIRResourceState{...}.Spec())
//	}
package servetest

import (
	"context"
	"io/fs"
	"os"
	"testing"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve"
)

// New starts a sandbox seeded from the folder seedDir, writing snapshots to
// a temporary folder of the test's; it fails the test when the seed cannot
// be used. The server is shut down (every active run completed) when the
// test ends.
func New(t testing.TB, seedDir string) *serve.Server {
	t.Helper()
	if fi, err := os.Stat(seedDir); err != nil || !fi.IsDir() {
		t.Fatalf("servetest: seed %s: not a folder", seedDir)
	}
	return Start(t, check.DirFS(seedDir), serve.Options{})
}

// Start starts a sandbox seeded from seed with opts. An empty opts.Out is a
// temporary folder of the test's; opts.Listen is always 127.0.0.1 and the
// ports are free ones.
func Start(t testing.TB, seed fs.FS, opts serve.Options) *serve.Server {
	t.Helper()
	if opts.Out == "" {
		opts.Out = t.TempDir()
	}
	opts.Listen, opts.Port, opts.SFTPPort, opts.PublicURL = "127.0.0.1", 0, 0, ""
	srv, err := serve.New(seed, opts)
	if err != nil {
		t.Fatalf("servetest: %v", err)
	}
	if err := srv.Start(); err != nil {
		t.Fatalf("servetest: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("servetest: shutting down: %v", err)
		}
	})
	return srv
}
