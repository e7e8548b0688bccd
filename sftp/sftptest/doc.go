// Package sftptest runs an SSH server with the SFTP subsystem on
// 127.0.0.1, in process, for tests and sandboxes: it serves a folder on
// disk (confined to it through os.Root, so no path or link leads a client
// outside) or a tree in memory.
//
//	srv, err := sftptest.NewServer(sftptest.Options{Dir: dir})
//	defer srv.Close()
//	ep, err := sftp.Dial(ctx, srv.Config())
//
// The server bounds what it holds: at most MaxConns connections at once
// (more are closed at once), an idle timeout per connection, and it keeps
// accepting after a temporary accept error such as running out of file
// descriptors. It is not hardened for the open Internet: it listens on
// loopback only.
package sftptest
