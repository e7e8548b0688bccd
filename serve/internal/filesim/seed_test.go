package filesim_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/filesim"
	"github.com/assaykit/assay/serve/internal/simtest"
)

func TestSeedErrors(t *testing.T) {
	// On disk: a symbolic link and a FIFO are not files.
	link := t.TempDir()
	os.MkdirAll(filepath.Join(link, "sftp"), 0o755)
	os.WriteFile(filepath.Join(link, "secret"), []byte("outside"), 0o644)
	os.Symlink("../secret", filepath.Join(link, "sftp", "link.txt"))
	fifo := t.TempDir()
	os.MkdirAll(filepath.Join(fifo, "sftp", "in"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, "sftp", "in", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"a symbolic link", os.DirFS(link), "sftp/link.txt: not a regular file or a folder (it is a symbolic link)"},
		{"a FIFO", os.DirFS(fifo), "sftp/in/pipe: not a regular file or a folder"},
		{"sftp is a file", fstest.MapFS{"sftp": {Data: []byte("x")}}, "sftp: not a folder"},
		{"sftp.url at the root", fstest.MapFS{"sftp/sftp.url": {Data: []byte("sftp://a@b/")}}, "sftp/sftp.url: invalid path"},
		{"a backslash", fstest.MapFS{`sftp/a\b`: {Data: []byte("x")}}, `sftp/a\b: invalid path`},
		{"a file over 64 MiB", fstest.MapFS{"sftp/big.bin": {Data: make([]byte, filesim.MaxFileSize+1)}}, "sftp/big.bin"},
	} {
		_, err := filesim.New(tc.fsys)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// Through the frame, a bad seed fails serve.New.
	if _, err := serve.New(fstest.MapFS{"sftp/sftp.url": {Data: []byte("x")}}, serve.Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "sftp/sftp.url") {
		t.Errorf("serve.New: %v", err)
	}
	// sftp.url below the root, empty folders and no sftp/ at all are fine.
	for _, fsys := range []fs.FS{fstest.MapFS{"sftp/deep/sftp.url": {Data: []byte("x")}, "sftp/empty": {Mode: fs.ModeDir}}, fstest.MapFS{}} {
		if _, err := filesim.New(fsys); err != nil {
			t.Errorf("New: %v", err)
		}
	}
}

// TestRunIsolation: what a run writes is in its snapshot and no other,
// and no run changes the seed another run starts from.
func TestRunIsolation(t *testing.T) {
	sb := simtest.Start(t, fstest.MapFS{"sftp/shared.txt": {Data: []byte("seed")}, "sftp/empty": {Mode: fs.ModeDir}}, serve.Options{})
	a, b := sb.NewRun(`{"id": "a"}`), sb.NewRun(`{"id": "b"}`)
	sb.Do("PUT", a.Endpoints["files"]+"/only-a.txt", a.Token, "", []byte("a"))
	sb.Do("PUT", a.Endpoints["files"]+"/shared.txt", a.Token, "", []byte("changed by a"))
	cb := mustDial(t, sb.Srv.SFTPAddr(), b)
	f, err := cb.Create("/only-b.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("b"))
	f.Close()
	cb.RemoveDirectory("/empty")
	snapA, snapB := sb.Complete(a), sb.Complete(b)
	if got := tree(t, filepath.Join(snapA, "sftp")); got != "empty/ only-a.txt shared.txt" {
		t.Errorf("a's snapshot: %s", got)
	}
	if got := tree(t, filepath.Join(snapB, "sftp")); got != "only-b.txt shared.txt" {
		t.Errorf("b's snapshot: %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(snapA, "sftp", "shared.txt")); string(data) != "changed by a" {
		t.Errorf("a's shared.txt: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(snapB, "sftp", "shared.txt")); string(data) != "seed" {
		t.Errorf("b's shared.txt: %q", data)
	}
	c := sb.NewRun(`{"id": "c"}`)
	code, body := sb.Do("GET", c.Endpoints["files"]+"/shared.txt", c.Token, "", nil)
	if code != 200 || string(body) != "seed" {
		t.Errorf("a new run's shared.txt: %d %q", code, body)
	}
	// a's credentials do not reach c's tree, nor does a's token.
	if _, err := dialSFTP(sb.Srv.SFTPAddr(), c.Credentials.SFTP.User, a.Credentials.SFTP.Password); err == nil {
		t.Error("c's user logged in with a's password")
	}
	if code, _ := sb.Do("GET", c.Endpoints["files"], a.Token, "", nil); code != 401 {
		t.Errorf("a's token on c's files: %d", code)
	}
}

// TestLiveEvidence: Run.Env reads the tree as it is when evaluated.
func TestLiveEvidence(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "live"}`)
	before := simtest.EvaluateEnv(t, sb.Srv.Run("live").Env(), criteria)
	sb.Do("PUT", run.Endpoints["files"]+"/outbox/c.json", run.Token, "", []byte(`{"claim_id": "C-7"}`))
	after := simtest.EvaluateEnv(t, sb.Srv.Run("live").Env(), criteria)
	if before["claim dropped"].Passed || !after["claim dropped"].Passed || !after["roster kept"].Passed {
		t.Errorf("before %+v\nafter %+v", before["claim dropped"], after["claim dropped"])
	}
}
