// Package sshsftp serves the SFTP subsystem on SSH connections a server
// has accepted and authenticated: the piece that package sftptest's test
// server and assay serve's files simulator share. It holds no policy of
// its own (who logs in, what tree is served, how connections are capped):
// callers bring the handlers and the connection.
package sshsftp

import (
	"io"
	"io/fs"
	"net"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// ServeSessions serves an authenticated SSH connection's channels: each
// session channel runs the "sftp" subsystem over handlers, every other
// channel type and every other session request (a shell, exec, a pty) is
// refused, and global requests are discarded. It returns once the
// connection has ended and every session's SFTP server has finished (so
// every file it opened has been closed).
func ServeSessions(chans <-chan ssh.NewChannel, reqs <-chan *ssh.Request, handlers sftp.Handlers) {
	go ssh.DiscardRequests(reqs)
	var wg sync.WaitGroup
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions with the sftp subsystem are served")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ch.Close()
			for req := range creqs {
				ok := req.Type == "subsystem" && len(req.Payload) >= 4 && string(req.Payload[4:]) == "sftp"
				req.Reply(ok, nil)
				if !ok {
					continue
				}
				go ssh.DiscardRequests(creqs)
				rs := sftp.NewRequestServer(ch, handlers)
				rs.Serve()
				rs.Close()
				return
			}
		}()
	}
	wg.Wait()
}

// Lister is a sftp.ListerAt over a list of entries.
type Lister []fs.FileInfo

// ListAt copies the entries from offset off into out; io.EOF when the
// list ends.
func (l Lister) ListAt(out []fs.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(out, l[off:])
	if n < len(out) {
		return n, io.EOF
	}
	return n, nil
}

// IdleConn closes itself when no byte has moved for Timeout: every read
// and write moves its deadline.
type IdleConn struct {
	net.Conn
	Timeout time.Duration
}

func (c *IdleConn) Read(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.Timeout))
	return c.Conn.Read(p)
}

func (c *IdleConn) Write(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.Timeout))
	return c.Conn.Write(p)
}
