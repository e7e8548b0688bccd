package sftp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// pkg/sftp's ReadDir reads a folder to its end before it returns, so a
// server that lists millions of names (or never stops) would fill memory
// before a walk's limits are checked. A dirLister lists folders over an
// SFTP channel of its own, speaking the few requests of version 3 of the
// protocol that listing needs (OPENDIR, READDIR, CLOSE), and hands each
// READDIR answer (a page, about a hundred names from OpenSSH) to the tree,
// which stops the listing at its limits.

// SFTP version 3 packet types and status codes used here.
const (
	fxpInit     = 1
	fxpVersion  = 2
	fxpClose    = 4
	fxpOpendir  = 11
	fxpReaddir  = 12
	fxpStatus   = 101
	fxpHandle   = 102
	fxpName     = 104
	fxEOF       = 1
	fxNoSuch    = 2
	fxForbidden = 3

	attrSize        = 0x1
	attrUIDGID      = 0x2
	attrPermissions = 0x4
	attrACModTime   = 0x8
	attrExtended    = 0x80000000
)

// maxPacket bounds one packet the lister reads, as pkg/sftp bounds its own.
const maxPacket = 256 << 10

// errProtocol is wrapped by the error of a packet that does not follow the
// protocol.
var errProtocol = errors.New("bad SFTP packet")

// dirLister is an SFTP channel for listings. Requests are told apart by
// id, so that many folders are listed at once over it.
type dirLister struct {
	session *ssh.Session
	in      io.WriteCloser
	timeout time.Duration

	wmu sync.Mutex // one packet written at a time

	mu      sync.Mutex
	nextID  uint32
	pending map[uint32]chan packet
	err     error // set once the reader has stopped
	done    chan struct{}
}

// packet is one answer: its type and what follows its id.
type packet struct {
	typ  byte
	data []byte
}

// openLister starts the sftp subsystem on a session of its own and
// exchanges versions.
func openLister(conn *ssh.Client, timeout time.Duration) (*dirLister, error) {
	session, err := conn.NewSession()
	if err != nil {
		return nil, fmt.Errorf("opening a session for listings: %w", err)
	}
	in, err := session.StdinPipe()
	if err == nil {
		var out io.Reader
		if out, err = session.StdoutPipe(); err == nil {
			if err = session.RequestSubsystem("sftp"); err == nil {
				l := &dirLister{session: session, in: in, timeout: timeout, pending: map[uint32]chan packet{}, done: make(chan struct{})}
				if err = l.init(out); err == nil {
					return l, nil
				}
			}
		}
	}
	session.Close()
	return nil, fmt.Errorf("starting SFTP for listings: %w", err)
}

// init sends INIT, reads VERSION, and starts the reader.
func (l *dirLister) init(out io.Reader) error {
	if err := l.write(fxpInit, func(b []byte) []byte { return binary.BigEndian.AppendUint32(b, 3) }); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		typ, _, err := readPacket(out)
		if err == nil && typ != fxpVersion {
			err = fmt.Errorf("%w: type %d in place of VERSION", errProtocol, typ)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-time.After(l.timeout):
		return fmt.Errorf("no SFTP version within %s", l.timeout)
	}
	go l.read(out)
	return nil
}

// Close ends the channel.
func (l *dirLister) Close() error { return l.session.Close() }

// write sends one packet of type typ; body appends what follows the type.
func (l *dirLister) write(typ byte, body func([]byte) []byte) error {
	b := body(append(make([]byte, 4, 64), typ))
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	l.wmu.Lock()
	defer l.wmu.Unlock()
	_, err := l.in.Write(b)
	return err
}

// read hands every answer to the request of its id until the channel
// ends; answers nobody waits for (a CLOSE's) are dropped.
func (l *dirLister) read(out io.Reader) {
	var err error
	for {
		var typ byte
		var data []byte
		if typ, data, err = readPacket(out); err != nil {
			break
		}
		if len(data) < 4 {
			err = fmt.Errorf("%w: type %d without an id", errProtocol, typ)
			break
		}
		id := binary.BigEndian.Uint32(data)
		l.mu.Lock()
		ch := l.pending[id]
		delete(l.pending, id)
		l.mu.Unlock()
		if ch != nil {
			ch <- packet{typ: typ, data: data[4:]}
		}
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the listing channel closed")
	}
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
	close(l.done)
}

// readPacket reads one length-prefixed packet: its type and the rest.
func readPacket(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[:4])
	if n < 1 || n > maxPacket {
		return 0, nil, fmt.Errorf("%w: a packet of %d bytes (the cap is %d)", errProtocol, n, maxPacket)
	}
	data := make([]byte, n-1)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, err
	}
	return head[4], data, nil
}

// call sends a request that carries one string after its id and waits for
// the answer, at most the lister's timeout.
func (l *dirLister) call(ctx context.Context, typ byte, arg string) (packet, error) {
	ch := make(chan packet, 1)
	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return packet{}, err
	}
	l.nextID++
	id := l.nextID
	l.pending[id] = ch
	l.mu.Unlock()
	forget := func() {
		l.mu.Lock()
		delete(l.pending, id)
		l.mu.Unlock()
	}
	if err := l.write(typ, func(b []byte) []byte { return appendString(binary.BigEndian.AppendUint32(b, id), arg) }); err != nil {
		forget()
		return packet{}, err
	}
	timer := time.NewTimer(l.timeout)
	defer timer.Stop()
	select {
	case p := <-ch:
		return p, nil
	case <-l.done:
		forget()
		l.mu.Lock()
		defer l.mu.Unlock()
		return packet{}, l.err
	case <-ctx.Done():
		forget()
		return packet{}, ctx.Err()
	case <-timer.C:
		forget()
		return packet{}, fmt.Errorf("the server did not answer within %s", l.timeout)
	}
}

// list reads the folder at the absolute path dir one page at a time,
// handing each page to take, which ends the listing by returning an error.
// It returns every entry taken (without "." and "..").
func (l *dirLister) list(ctx context.Context, dir string, take func(page []fs.FileInfo, received int) error) ([]fs.FileInfo, error) {
	p, err := l.call(ctx, fxpOpendir, dir)
	if err != nil {
		return nil, err
	}
	if p.typ != fxpHandle {
		return nil, statusError(p, dir)
	}
	handle, _, err := readString(p.data)
	if err != nil {
		return nil, err
	}
	// The answer to CLOSE is not waited for.
	defer l.write(fxpClose, func(b []byte) []byte {
		l.mu.Lock()
		l.nextID++
		id := l.nextID
		l.mu.Unlock()
		return appendString(binary.BigEndian.AppendUint32(b, id), handle)
	})
	var out []fs.FileInfo
	for {
		p, err := l.call(ctx, fxpReaddir, handle)
		if err != nil {
			return nil, err
		}
		if p.typ != fxpName {
			if err := statusError(p, dir); !errors.Is(err, io.EOF) {
				return nil, err
			}
			return out, nil
		}
		page, received, err := parseNames(p.data)
		if err != nil {
			return nil, err
		}
		// A page counts as one entry at least: an endless run of
		// empty pages ends too.
		if err := take(page, max(received, 1)); err != nil {
			return nil, err
		}
		out = append(out, page...)
	}
}

// statusError turns an answer that is not the one asked for into an error:
// io.EOF for the end of a listing, fs.ErrNotExist and fs.ErrPermission
// where the status says so.
func statusError(p packet, dir string) error {
	if p.typ != fxpStatus {
		return fmt.Errorf("%w: type %d in place of a listing's answer", errProtocol, p.typ)
	}
	if len(p.data) < 4 {
		return fmt.Errorf("%w: a status without its code", errProtocol)
	}
	code := binary.BigEndian.Uint32(p.data)
	msg, _, _ := readString(p.data[4:])
	switch code {
	case fxEOF:
		return io.EOF
	case fxNoSuch:
		return &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	case fxForbidden:
		return &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrPermission}
	}
	if msg == "" {
		msg = "no message"
	}
	return &fs.PathError{Op: "readdir", Path: dir, Err: fmt.Errorf("SFTP status %d (%.200q)", code, msg)}
}

// parseNames reads a NAME answer: the entries other than "." and "..",
// and how many the server sent.
func parseNames(data []byte) ([]fs.FileInfo, int, error) {
	if len(data) < 4 {
		return nil, 0, fmt.Errorf("%w: a NAME without its count", errProtocol)
	}
	count := binary.BigEndian.Uint32(data)
	data = data[4:]
	// Each entry takes at least 12 bytes (two empty strings and the
	// flags), so a count the packet cannot hold is refused before any
	// slice is sized from it.
	if uint64(count)*12 > uint64(len(data)) {
		return nil, 0, fmt.Errorf("%w: a NAME of %d entries in %d bytes", errProtocol, count, len(data))
	}
	out := make([]fs.FileInfo, 0, count)
	for range count {
		var name string
		var err error
		if name, data, err = readString(data); err != nil {
			return nil, 0, err
		}
		if _, data, err = readString(data); err != nil { // the ls -l line
			return nil, 0, err
		}
		var st sftp.FileStat
		if data, err = readAttrs(data, &st); err != nil {
			return nil, 0, err
		}
		if name == "." || name == ".." {
			continue
		}
		out = append(out, &nameInfo{name: name, stat: st})
	}
	return out, int(count), nil
}

// readAttrs reads an ATTRS structure into st.
func readAttrs(data []byte, st *sftp.FileStat) ([]byte, error) {
	flags, data, err := readUint32(data)
	if err != nil {
		return nil, err
	}
	if flags&attrSize != 0 {
		if len(data) < 8 {
			return nil, fmt.Errorf("%w: attributes cut short", errProtocol)
		}
		st.Size, data = binary.BigEndian.Uint64(data), data[8:]
	}
	if flags&attrUIDGID != 0 {
		if st.UID, data, err = readUint32(data); err == nil {
			st.GID, data, err = readUint32(data)
		}
	}
	if err == nil && flags&attrPermissions != 0 {
		st.Mode, data, err = readUint32(data)
	}
	if err == nil && flags&attrACModTime != 0 {
		if st.Atime, data, err = readUint32(data); err == nil {
			st.Mtime, data, err = readUint32(data)
		}
	}
	if err == nil && flags&attrExtended != 0 {
		var n uint32
		if n, data, err = readUint32(data); err == nil {
			for i := uint32(0); i < 2*n && err == nil; i++ {
				_, data, err = readString(data)
			}
		}
	}
	return data, err
}

func readUint32(data []byte) (uint32, []byte, error) {
	if len(data) < 4 {
		return 0, nil, fmt.Errorf("%w: cut short", errProtocol)
	}
	return binary.BigEndian.Uint32(data), data[4:], nil
}

func readString(data []byte) (string, []byte, error) {
	n, data, err := readUint32(data)
	if err != nil {
		return "", nil, err
	}
	if uint64(n) > uint64(len(data)) {
		return "", nil, fmt.Errorf("%w: a string of %d bytes in %d", errProtocol, n, len(data))
	}
	return string(data[:n]), data[n:], nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// nameInfo is one entry of a listing.
type nameInfo struct {
	name string
	stat sftp.FileStat
}

func (n *nameInfo) Name() string       { return n.name }
func (n *nameInfo) Size() int64        { return int64(n.stat.Size) }
func (n *nameInfo) Mode() fs.FileMode  { return n.stat.FileMode() }
func (n *nameInfo) ModTime() time.Time { return n.stat.ModTime() }
func (n *nameInfo) IsDir() bool        { return n.Mode().IsDir() }
func (n *nameInfo) Sys() any           { return &n.stat }
