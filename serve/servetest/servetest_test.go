package servetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/servetest"
)

// The sandbox a test starts is shut down when that test ends, completing
// its active runs.
func TestStartCompletesRunsAtCleanup(t *testing.T) {
	out := t.TempDir()
	t.Run("inner", func(t *testing.T) {
		srv := servetest.Start(t, fstest.MapFS{}, serve.Options{Out: out, Listen: "0.0.0.0"})
		run, err := srv.NewRun(context.Background(), serve.RunOptions{ID: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if want := srv.URL() + "/runs/a/events"; run.Endpoints()["events"] != want || srv.URL()[:17] != "http://127.0.0.1:" {
			t.Errorf("endpoints: %v, want events at %s on 127.0.0.1", run.Endpoints(), want)
		}
	})
	if _, err := os.Stat(filepath.Join(out, "a", "sandbox", "manifest.json")); err != nil {
		t.Fatalf("the run was not completed when its test ended: %v", err)
	}
}

func TestNewSeedFolder(t *testing.T) {
	srv := servetest.New(t, t.TempDir())
	if srv.Token() == "" || srv.URL() == "" {
		t.Fatalf("token %q, url %q", srv.Token(), srv.URL())
	}
}
