package filesim

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/assaykit/assay/internal/sshsftp"
	"github.com/pkg/sftp"
)

// handlers serves the run's tree to an SFTP session.
func (rf *runFiles) handlers() sftp.Handlers {
	h := &sftpHandler{rf: rf}
	return sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
}

type sftpHandler struct{ rf *runFiles }

// errNoLinks answers every request to make or read a link.
var errNoLinks = errors.New("links are not supported: the tree holds files and folders only")

// path reads a request's path for op (an sftp_op op: read, write,
// mkdir, rename, remove); an invalid one fails the request, recorded.
func (h *sftpHandler) path(op, p string) (string, error) {
	h.rf.run.Touch()
	rel, err := sftpPath(p)
	if err != nil {
		return "", h.refused(op, rel, pathError(op, rel, err))
	}
	return rel, nil
}

// refused records a failed operation as an sftp_op event with its error,
// and returns err; nil records nothing.
func (h *sftpHandler) refused(op, p string, err error) error {
	if err != nil {
		h.rf.refuse(op, p, 0, "sftp", 0, err.Error())
	}
	return err
}

func (h *sftpHandler) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	p, err := h.path("read", r.Filepath)
	if err != nil {
		return nil, err
	}
	data, _, err := h.rf.read(p)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(data), nil
}

// Filewrite opens p for writing: its bytes go to a buffer of the handle's
// own, and become the file when the handle closes (an upload is recorded,
// and acknowledged, only then). Without truncation the buffer starts as
// the file's bytes.
func (h *sftpHandler) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	p, err := h.path("write", r.Filepath)
	if err != nil {
		return nil, err
	}
	u, err := h.openWrite(p, r.Pflags())
	if err != nil {
		return nil, h.refused("write", p, err)
	}
	return u, nil
}

func (h *sftpHandler) openWrite(p string, flags sftp.FileOpenFlags) (*upload, error) {
	if p == "" {
		return nil, pathError("open", p, errIsFolder)
	}
	rf := h.rf
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.stopped {
		return nil, pathError("open", p, errStopped)
	}
	if rf.t.folders[p] != nil {
		return nil, pathError("open", p, errIsFolder)
	}
	if _, err := rf.t.missingFolders(p, false); err != nil {
		return nil, pathError("open", p, err)
	}
	f := rf.t.files[p]
	switch {
	case f != nil && flags.Creat && flags.Excl:
		return nil, pathError("open", p, fs.ErrExist)
	case f == nil && !flags.Creat:
		return nil, pathError("open", p, fs.ErrNotExist)
	case f == nil && p == reserved:
		return nil, pathError("open", p, errReserved)
	}
	u := &upload{rf: rf, path: p, appendOnly: flags.Append, dirty: f == nil || flags.Trunc}
	if f != nil && !flags.Trunc {
		u.base = f.data
	}
	return u, nil
}

// upload is a file open for writing over SFTP.
type upload struct {
	rf         *runFiles
	path       string
	appendOnly bool

	mu      sync.Mutex
	base    []byte // the file's bytes when opened without truncation, until the first write copies them
	buf     []byte
	held    int64 // reserved from the budget for buf
	dirty   bool  // the file will differ from what the open found
	failed  error // a write that failed: the close fails too
	aborted bool  // the session ended before the close
	closed  bool
}

// WriteAt writes p at off (at the end when opened to append), within
// MaxFileSize.
func (u *upload) WriteAt(p []byte, off int64) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.failed != nil {
		return 0, u.failed
	}
	if u.closed {
		return 0, fs.ErrClosed
	}
	if u.base != nil {
		if err := u.grow(len(u.base)); err != nil {
			return 0, err
		}
		u.buf = append(u.buf, u.base...)
		u.base = nil
	}
	if u.appendOnly {
		off = int64(len(u.buf))
	}
	end := off + int64(len(p))
	if off < 0 || end > MaxFileSize {
		u.failed = pathError("write", u.path, errFileSize)
		return 0, u.failed
	}
	if err := u.grow(int(end)); err != nil {
		return 0, err
	}
	if int(end) > len(u.buf) {
		u.buf = u.buf[:end]
	}
	copy(u.buf[off:], p)
	u.dirty = true
	return len(p), nil
}

// grow makes room for n bytes in buf, reserving the capacity; a refusal
// fails the upload.
func (u *upload) grow(n int) error {
	if n <= cap(u.buf) {
		return nil
	}
	size := min(max(2*cap(u.buf), n, 32<<10), MaxFileSize)
	if err := u.rf.hold(int64(size) - u.held); err != nil {
		u.failed = pathError("write", u.path, err)
		return u.failed
	}
	nb := make([]byte, len(u.buf), size)
	copy(nb, u.buf)
	u.buf, u.held = nb, int64(size)
	return nil
}

// TransferError marks an upload whose session ended before its close: it
// is dropped.
func (u *upload) TransferError(error) {
	u.mu.Lock()
	u.aborted = true
	u.mu.Unlock()
}

// Close makes the upload the file, recording the write, or drops it
// after a failed write or a lost session.
func (u *upload) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return nil
	}
	u.closed = true
	held := u.held
	u.held = 0
	switch {
	case u.failed != nil:
		u.rf.unhold(held)
		u.buf = nil
		u.rf.refuse("write", u.path, 0, "sftp", 0, u.failed.Error())
		return u.failed
	case u.aborted || !u.dirty:
		u.rf.unhold(held)
		u.buf = nil
		return nil
	}
	data := u.buf
	if cap(data)-len(data) > len(data)/8+4096 {
		// Keep a right-sized copy: the tree's cost counts its length.
		data = bytes.Clone(data)
	}
	u.buf = nil
	if _, _, err := u.rf.put(u.path, data, false, "sftp", held); err != nil {
		u.rf.unhold(held)
		u.rf.refuse("write", u.path, int64(len(data)), "sftp", 0, err.Error())
		return err
	}
	return nil
}

func (h *sftpHandler) Filecmd(r *sftp.Request) error {
	switch r.Method {
	case "Rename":
		return h.rename(r, false)
	case "Mkdir":
		p, err := h.path("mkdir", r.Filepath)
		if err != nil {
			return err
		}
		return h.refused("mkdir", p, h.rf.mkdir(p, "sftp"))
	case "Rmdir", "Remove":
		p, err := h.path("remove", r.Filepath)
		if err != nil {
			return err
		}
		return h.refused("remove", p, h.rf.remove(p, map[string]string{"Rmdir": "yes", "Remove": "no"}[r.Method], "sftp"))
	case "Setstat":
		return h.setstat(r)
	case "Symlink", "Link":
		// The event's path is the link that would have been made.
		return h.refused("link", strings.TrimPrefix(r.Target, "/"), errNoLinks)
	}
	return sftp.ErrSSHFxOpUnsupported
}

// PosixRename renames, replacing a file at the target.
func (h *sftpHandler) PosixRename(r *sftp.Request) error { return h.rename(r, true) }

func (h *sftpHandler) rename(r *sftp.Request, replace bool) error {
	from, err := h.path("rename", r.Filepath)
	if err != nil {
		return err
	}
	to, err := h.path("rename", r.Target)
	if err != nil {
		return err
	}
	return h.refused("rename", from, h.rf.rename(from, to, replace, "sftp"))
}

// setstat applies a size (truncating or extending the file with zeros, a
// write); permissions, owners and times are accepted and not kept.
func (h *sftpHandler) setstat(r *sftp.Request) error {
	p, err := h.path("write", r.Filepath)
	if err != nil {
		return err
	}
	if _, err := h.rf.stat(p); err != nil {
		return h.refused("write", p, err)
	}
	if !r.AttrFlags().Size {
		return nil
	}
	return h.refused("write", p, h.resize(p, r.Attributes().Size))
}

// resize truncates or extends the file p to size bytes, with zeros.
func (h *sftpHandler) resize(p string, size uint64) error {
	if size > MaxFileSize {
		return pathError("setstat", p, errFileSize)
	}
	data, _, err := h.rf.read(p)
	if err != nil {
		return err
	}
	if int64(len(data)) == int64(size) {
		return nil
	}
	// Reserve before allocating, as an upload does.
	if err := h.rf.hold(int64(size)); err != nil {
		return pathError("setstat", p, err)
	}
	resized := make([]byte, size)
	copy(resized, data)
	if _, _, err = h.rf.put(p, resized, false, "sftp", int64(size)); err != nil {
		h.rf.unhold(int64(size))
	}
	return err
}

func (h *sftpHandler) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	p, err := h.path("read", r.Filepath)
	if err != nil {
		return nil, err
	}
	switch r.Method {
	case "List":
		infos, err := h.rf.list(p)
		if err != nil {
			return nil, err
		}
		return sshsftp.Lister(infos), nil
	case "Stat":
		return h.statList(p)
	case "Readlink":
		return nil, h.refused("link", p, errNoLinks)
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// Lstat is Stat: the tree holds no links.
func (h *sftpHandler) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	p, err := h.path("read", r.Filepath)
	if err != nil {
		return nil, err
	}
	return h.statList(p)
}

// statList answers a stat: a list of one entry.
func (h *sftpHandler) statList(p string) (sftp.ListerAt, error) {
	fi, err := h.rf.stat(p)
	if err != nil {
		return nil, err
	}
	return sshsftp.Lister{fi}, nil
}

// Readlink fails: the tree holds no links.
func (h *sftpHandler) Readlink(p string) (string, error) {
	return "", h.refused("link", strings.TrimPrefix(p, "/"), errNoLinks)
}
