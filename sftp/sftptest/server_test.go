package sftptest_test

import (
	"context"
	"errors"
	"fmt"
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

// TestConnectionCap: a connection over MaxConns waits until one closes,
// then is served; it is not refused (DESIGN.md section 12 rule 20).
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
	second := make(chan error, 1)
	go func() {
		ep2, err := dial(t, srv)
		if err == nil {
			_, err = ep2.Stat(context.Background(), "a")
			ep2.Close()
		}
		second <- err
	}()
	select {
	case err := <-second:
		t.Fatalf("a second connection over the cap of 1 was answered at once: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := ep.Stat(context.Background(), "a"); err != nil {
		t.Fatalf("the first connection broke: %v", err)
	}
	ep.Close()
	if err := <-second; err != nil {
		t.Fatalf("the queued connection, once the first closed: %v", err)
	}
}

// Silent connections (TCP, no handshake) at the cap do not lock clients
// out: each is closed at the handshake deadline, and a real client queued
// behind them is served.
func TestSilentConnections(t *testing.T) {
	srv, err := sftptest.NewServer(sftptest.Options{MaxConns: 4, HandshakeTimeout: 300 * time.Millisecond, Files: map[string][]byte{"a": nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for range 16 {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	start := time.Now()
	ep, err := dial(t, srv)
	if err != nil {
		t.Fatalf("locked out by silent connections: %v", err)
	}
	defer ep.Close()
	if _, err := ep.Stat(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	// Four rounds of silent connections at most, each closed at 300 ms.
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("served after %s", d)
	}
}

// 50 clients uploading at once through a cap of 4 are all served, in turn.
func TestConcurrentUploaders(t *testing.T) {
	srv, err := sftptest.NewServer(sftptest.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	errs := make(chan error, 50)
	for i := range 50 {
		go func() {
			errs <- func() error {
				conn, err := ssh.Dial("tcp", srv.Addr(), &ssh.ClientConfig{User: srv.User(), Timeout: 10 * time.Second,
					Auth: []ssh.AuthMethod{ssh.PublicKeys(srv.ClientKey())}, HostKeyCallback: ssh.FixedHostKey(srv.HostKeys()[0])})
				if err != nil {
					return err
				}
				defer conn.Close()
				c, err := pkgsftp.NewClient(conn)
				if err != nil {
					return err
				}
				defer c.Close()
				f, err := c.Create(fmt.Sprintf("/up-%02d.json", i))
				if err != nil {
					return err
				}
				if _, err := f.Write([]byte(`{}`)); err != nil {
					return err
				}
				return f.Close()
			}()
		}()
	}
	failed := 0
	for range 50 {
		if err := <-errs; err != nil {
			failed++
			t.Log(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%d of 50 uploaders failed", failed)
	}
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
