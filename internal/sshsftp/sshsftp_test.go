package sshsftp_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"io/fs"
	"net"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/internal/sshsftp"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// pair runs ServeSessions over an in-memory SFTP tree on one end of a loopback connection
// and returns an SSH client on the other; done closes when ServeSessions
// has returned.
func pair(t *testing.T) (client *ssh.Client, done chan struct{}) {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done = make(chan struct{})
	go func() {
		defer close(done)
		sc, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		conn, chans, reqs, err := ssh.NewServerConn(&sshsftp.IdleConn{Conn: sc, Timeout: 10 * time.Second}, cfg)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		sshsftp.ServeSessions(chans, reqs, sftp.InMemHandler())
	}()
	cc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn, chans, reqs, err := ssh.NewClientConn(cc, "loopback", &ssh.ClientConfig{User: "u", Auth: []ssh.AuthMethod{ssh.Password("p")}, HostKeyCallback: ssh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	return ssh.NewClient(conn, chans, reqs), done
}

func TestServeSessions(t *testing.T) {
	client, done := pair(t)
	// SFTP works: write a file and read it back.
	c, err := sftp.NewClient(client)
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Create("/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("hello"))
	f.Close()
	r, err := c.Open("/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(r); string(data) != "hello" {
		t.Errorf("read back %q", data)
	}
	c.Close()
	// No shell, no exec, no other channel types.
	s, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run("id"); err == nil {
		t.Error("exec was served")
	}
	if _, err := client.Dial("tcp", "127.0.0.1:22"); err == nil {
		t.Error("a direct-tcpip channel was accepted")
	}
	client.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("ServeSessions did not return after the connection ended")
	}
}

func TestLister(t *testing.T) {
	fsys := fstest.MapFS{"a": {}, "b": {}, "c": {}}
	var infos sshsftp.Lister
	for _, n := range []string{"a", "b", "c"} {
		fi, _ := fs.Stat(fsys, n)
		infos = append(infos, fi)
	}
	for _, tc := range []struct {
		off, size, n int
		eof          bool
	}{
		{0, 2, 2, false}, {0, 3, 3, false}, {0, 5, 3, true}, {2, 2, 1, true}, {3, 2, 0, true}, {9, 1, 0, true},
	} {
		out := make([]fs.FileInfo, tc.size)
		n, err := infos.ListAt(out, int64(tc.off))
		if n != tc.n || (err == io.EOF) != tc.eof {
			t.Errorf("ListAt(%d of %d, off %d) = %d, %v", tc.size, len(infos), tc.off, n, err)
		}
		if n > 0 && out[0].Name() != infos[tc.off].Name() {
			t.Errorf("ListAt from %d starts at %s", tc.off, out[0].Name())
		}
	}
}
