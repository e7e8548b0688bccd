package sftptest_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
	pkgsftp "github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

func dial(t *testing.T, srv *sftptest.Server) (*sftp.Endpoint, error) {
	t.Helper()
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := srv.WriteKnownHosts(kh); err != nil {
		t.Fatal(err)
	}
	cfg := srv.Config(kh)
	cfg.Timeout = 5 * time.Second
	return sftp.Dial(context.Background(), cfg)
}

func TestFolderConfined(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{}`), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "out"))
	srv, err := sftptest.NewServer(sftptest.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep, err := dial(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	ctx := context.Background()
	if _, err := ep.ReadFile(ctx, "a.json", 0); err != nil {
		t.Fatal(err)
	}
	// The server itself refuses to follow a link out of its folder, and
	// "/.." is its root.
	for _, name := range []string{"out", "../../etc/passwd"} {
		if data, err := ep.ReadFile(ctx, name, 0); err == nil {
			t.Errorf("%s read: %q", name, data)
		}
	}
	if st := srv.Stats(); st.Reads != 1 {
		t.Errorf("server reads %d, want 1", st.Reads)
	}
}

// TestConnectionCap: connections over MaxConns are closed at once; the
// server keeps serving the others.
func TestConnectionCap(t *testing.T) {
	srv, err := sftptest.NewServer(sftptest.Options{MaxConns: 1, Files: map[string][]byte{"a": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep, err := dial(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dial(t, srv); err == nil {
		t.Fatal("a second connection over the cap of 1 was served")
	}
	if _, err := ep.Stat(context.Background(), "a"); err != nil {
		t.Fatalf("the first connection broke: %v", err)
	}
	ep.Close()
	time.Sleep(100 * time.Millisecond)
	ep, err = dial(t, srv)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	ep.Close()
}

func TestIdleTimeout(t *testing.T) {
	srv, err := sftptest.NewServer(sftptest.Options{IdleTimeout: 100 * time.Millisecond, Files: map[string][]byte{"a": nil, "b/c": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep, err := dial(t, srv)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	time.Sleep(400 * time.Millisecond)
	if _, err := ep.Walk(context.Background(), "b"); err == nil {
		t.Fatal("an idle connection was kept")
	}
}

// emfileListener fails its first accepts with EMFILE, as a process out of
// file descriptors does.
type emfileListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *emfileListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

func TestAcceptEMFILE(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	el := &emfileListener{Listener: ln}
	el.fails.Store(5)
	srv, err := sftptest.NewServer(sftptest.Options{Listener: el, Files: map[string][]byte{"a": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ep, err := dial(t, srv)
	if err != nil {
		t.Fatalf("the server stopped after EMFILE: %v", err)
	}
	ep.Close()
	if el.fails.Load() >= 0 {
		t.Fatal("the failing accepts were not tried")
	}
}

func TestBadFiles(t *testing.T) {
	_, err := sftptest.NewServer(sftptest.Options{Files: map[string][]byte{"../x": nil}})
	if err == nil || !errors.Is(err, sftp.ErrBadPattern) {
		t.Fatalf("got %v", err)
	}
}

// TestUpload: an agent under test uploads into the server; the upload is
// then evidence, and a link it makes to a file outside is not followed.
func TestUpload(t *testing.T) {
	for _, dir := range []string{t.TempDir(), ""} {
		srv, err := sftptest.NewServer(sftptest.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{User: srv.User(),
			Auth: []ssh.AuthMethod{ssh.PublicKeys(srv.ClientKey())}, HostKeyCallback: ssh.FixedHostKey(srv.HostKeys()[0])})
		if err != nil {
			t.Fatal(err)
		}
		c, err := pkgsftp.NewClient(conn)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.MkdirAll("/outbox"); err != nil {
			t.Fatal(err)
		}
		f, err := c.Create("/outbox/claim.json.part")
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(`{"claim.id": "C-1"}`))
		f.Close()
		if err := c.Rename("/outbox/claim.json.part", "/outbox/claim.json"); err != nil {
			t.Fatal(err)
		}
		if err := c.Symlink("/etc/passwd", "/outbox/leak.json"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Open("/outbox/leak.json"); dir != "" && err == nil {
			t.Error("the server followed a link out of its folder")
		}
		c.Close()
		conn.Close()
		ep, err := dial(t, srv)
		if err != nil {
			t.Fatal(err)
		}
		data, err := ep.ReadFile(context.Background(), "outbox/claim.json", 0)
		if err != nil || string(data) != `{"claim.id": "C-1"}` {
			t.Errorf("dir %q: %q %v", dir, data, err)
		}
		if _, err := ep.ReadFile(context.Background(), "outbox/leak.json", 0); err == nil {
			t.Errorf("dir %q: read through a link to /etc/passwd", dir)
		}
		ep.Close()
		srv.Close()
	}
}
