// Package sftptest runs an SSH server with the SFTP subsystem on
// 127.0.0.1, in process, for tests and sandboxes: it serves a folder on
// disk (confined to it through os.Root, so no path or link leads a client
// outside) or a tree in memory, over golang.org/x/crypto/ssh and
// github.com/pkg/sftp's request server.
//
//	srv, err := sftptest.NewServer(sftptest.Options{Dir: dir})
//	defer srv.Close()
//	err = srv.WriteKnownHosts(knownHosts) // the server's host keys at its address
//	ep, err := sftp.Dial(ctx, srv.Config(knownHosts))
//
// A client logs in as Options.User with ClientKey (or AuthorizedKeys, or
// Password). Every server has fresh host keys unless Options.HostKeys
// names some; give two of different types to test host key negotiation.
// DropConnections cuts every connection, as a network failure would, and
// Stats counts the folder listings and file reads served, so a test can
// check how often a tree was listed.
//
// The server bounds what it holds: at most MaxConns connections at once
// (more wait, queued in the kernel's backlog, until one closes: none is
// refused), a connection that has not completed its SSH handshake within
// HandshakeTimeout (10 s) is closed, so that silent connections cannot
// hold the cap, an idle timeout per connection, and it keeps accepting
// after a temporary accept error such as running out of file descriptors
// (EMFILE) (DESIGN.md section 11, section 12 rule 20). Writes are served too (upload, mkdir, rename,
// remove, symlink), so an agent under test can upload into it. It is not
// hardened for the open Internet: it listens on loopback only.
package sftptest
