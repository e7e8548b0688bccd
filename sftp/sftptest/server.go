package sftptest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/internal/netlimit"
	"github.com/assaykit/assay/internal/sshsftp"
	assaysftp "github.com/assaykit/assay/sftp"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Options configure a Server.
type Options struct {
	// Dir is the folder served as the tree's root. Empty serves a tree
	// in memory, filled from Files.
	Dir string
	// Files are the files of an in-memory tree (paths relative to the
	// root; folders on the way are created).
	Files map[string][]byte
	// HostKeys are the server's host keys; nil generates one ed25519 key.
	HostKeys []ssh.Signer
	// User is the login name (default "assay").
	User string
	// Password, when set, is accepted beside the client key.
	Password string
	// AuthorizedKeys are the client keys accepted beside ClientKey.
	AuthorizedKeys []ssh.PublicKey
	// MaxConns caps concurrent connections (default 16). At the cap new
	// connections wait, queued, until one closes; none is refused.
	MaxConns int
	// IdleTimeout closes a connection with no traffic for that long
	// (default 1 minute).
	IdleTimeout time.Duration
	// HandshakeTimeout closes a connection that has not completed its SSH
	// handshake (authentication included) within that long (default 10
	// s), so that silent connections cannot hold the cap.
	HandshakeTimeout time.Duration
	// Wrap, when set, wraps every accepted connection (tests inject
	// latency with it).
	Wrap func(net.Conn) net.Conn
	// Listener, when set, is served instead of a new listener on
	// 127.0.0.1; the server closes it.
	Listener net.Listener
}

// Server is a running in-process SSH/SFTP server.
type Server struct {
	ln        net.Listener
	cfg       *ssh.ServerConfig
	opts      Options
	handlers  sftp.Handlers
	hostKeys  []ssh.PublicKey
	clientKey ssh.Signer
	root      *os.Root

	lists, reads atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewServer starts a server on 127.0.0.1 on a free port.
func NewServer(opts Options) (*Server, error) {
	if opts.User == "" {
		opts.User = "assay"
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = time.Minute
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = DefaultHandshakeTimeout
	}
	s := &Server{opts: opts, conns: map[net.Conn]struct{}{}}
	_, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if s.clientKey, err = ssh.NewSignerFromKey(clientPriv); err != nil {
		return nil, err
	}
	authorized := [][]byte{s.clientKey.PublicKey().Marshal()}
	for _, k := range opts.AuthorizedKeys {
		authorized = append(authorized, k.Marshal())
	}
	s.cfg = &ssh.ServerConfig{
		PublicKeyCallback: func(c ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if c.User() == opts.User && slices.ContainsFunc(authorized, func(k []byte) bool { return bytes.Equal(k, key.Marshal()) }) {
				return nil, nil
			}
			return nil, errors.New("key not authorized")
		},
	}
	if opts.Password != "" {
		s.cfg.PasswordCallback = func(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
			if c.User() == opts.User && string(pw) == opts.Password {
				return nil, nil
			}
			return nil, errors.New("wrong password")
		}
	}
	keys := opts.HostKeys
	if len(keys) == 0 {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		signer, err := ssh.NewSignerFromKey(priv)
		if err != nil {
			return nil, err
		}
		keys = []ssh.Signer{signer}
	}
	for _, k := range keys {
		s.cfg.AddHostKey(k)
		s.hostKeys = append(s.hostKeys, k.PublicKey())
	}
	if opts.Dir != "" {
		if s.root, err = os.OpenRoot(opts.Dir); err != nil {
			return nil, fmt.Errorf("sftptest: %w", err)
		}
		h := &rootHandler{root: s.root}
		s.handlers = sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h}
	} else {
		s.handlers = sftp.InMemHandler()
		if err := seed(s.handlers, opts.Files); err != nil {
			return nil, err
		}
	}
	s.handlers = sftp.Handlers{
		FileGet:  countingReader{s.handlers.FileGet, &s.reads},
		FilePut:  s.handlers.FilePut,
		FileCmd:  s.handlers.FileCmd,
		FileList: countingLister{s.handlers.FileList, &s.lists},
	}
	if s.ln = opts.Listener; s.ln != nil {
		// given
	} else if s.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		if s.root != nil {
			s.root.Close()
		}
		return nil, fmt.Errorf("sftptest: %w", err)
	}
	s.ln = netlimit.New(s.ln, opts.MaxConns)
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// seed writes files into an in-memory handler tree.
func seed(h sftp.Handlers, files map[string][]byte) error {
	made := map[string]bool{"/": true}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		clean, err := assaysftp.CleanPath(name)
		if err != nil {
			return fmt.Errorf("sftptest: %w", err)
		}
		full := "/" + clean
		var dirs []string
		for d := path.Dir(full); !made[d]; d = path.Dir(d) {
			dirs = append(dirs, d)
			made[d] = true
		}
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := h.FileCmd.Filecmd(sftp.NewRequest("Mkdir", dirs[i])); err != nil {
				return fmt.Errorf("sftptest: mkdir %s: %w", dirs[i], err)
			}
		}
		r := sftp.NewRequest("Put", full)
		r.Flags = 0x02 | 0x08 | 0x10 // write, create, truncate
		w, err := h.FilePut.Filewrite(r)
		if err != nil {
			return fmt.Errorf("sftptest: %s: %w", full, err)
		}
		if _, err := w.WriteAt(files[name], 0); err != nil {
			return fmt.Errorf("sftptest: %s: %w", full, err)
		}
	}
	return nil
}

// Stats counts the requests a Server answered.
type Stats struct {
	// Lists is how many folder listings (SFTP OPENDIR) were served.
	Lists int64
	// Reads is how many files were opened for reading.
	Reads int64
}

// Stats returns what the server has served so far.
func (s *Server) Stats() Stats { return Stats{Lists: s.lists.Load(), Reads: s.reads.Load()} }

type countingReader struct {
	sftp.FileReader
	n *atomic.Int64
}

func (c countingReader) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	c.n.Add(1)
	return c.FileReader.Fileread(r)
}

// countingLister counts listings and passes Lstat and Readlink through.
type countingLister struct {
	sftp.FileLister
	n *atomic.Int64
}

func (c countingLister) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	if r.Method == "List" {
		c.n.Add(1)
	}
	return c.FileLister.Filelist(r)
}

func (c countingLister) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	if l, ok := c.FileLister.(sftp.LstatFileLister); ok {
		return l.Lstat(r)
	}
	return c.FileLister.Filelist(r)
}

func (c countingLister) Readlink(p string) (string, error) {
	if l, ok := c.FileLister.(sftp.ReadlinkFileLister); ok {
		return l.Readlink(p)
	}
	r := sftp.NewRequest("Readlink", p)
	la, err := c.FileLister.Filelist(r)
	if err != nil {
		return "", err
	}
	fi := make([]fs.FileInfo, 1)
	if n, _ := la.ListAt(fi, 0); n == 0 {
		return "", fs.ErrNotExist
	}
	return fi[0].Name(), nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// User is the login name the server accepts.
func (s *Server) User() string { return s.opts.User }

// ClientKey is a private key the server accepts for User.
func (s *Server) ClientKey() ssh.Signer { return s.clientKey }

// HostKeys are the server's public host keys.
func (s *Server) HostKeys() []ssh.PublicKey { return slices.Clone(s.hostKeys) }

// KnownHosts returns known_hosts lines that vouch for the server's host
// keys at its address ("[127.0.0.1]:PORT type key").
func (s *Server) KnownHosts() []byte {
	var b bytes.Buffer
	for _, k := range s.hostKeys {
		b.WriteString(knownhostsLine(s.Addr(), k))
	}
	return b.Bytes()
}

func knownhostsLine(addr string, k ssh.PublicKey) string {
	host, port, _ := net.SplitHostPort(addr)
	if port != "22" {
		host = "[" + host + "]:" + port
	}
	return host + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) + "\n"
}

// Config returns an sftp.Config that reaches the server as User with
// ClientKey, checking the host key against knownHostsFile. Write
// KnownHosts to that file first (see WriteKnownHosts).
func (s *Server) Config(knownHostsFile string) assaysftp.Config {
	return assaysftp.Config{
		Addr:            s.Addr(),
		User:            s.opts.User,
		Root:            "/",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(s.clientKey)},
		KnownHostsFiles: []string{knownHostsFile},
	}
}

// WriteKnownHosts writes KnownHosts to a file named file.
func (s *Server) WriteKnownHosts(file string) error {
	return os.WriteFile(file, s.KnownHosts(), 0o600)
}

// DropConnections closes every open connection at once, as a network
// failure would; the server keeps accepting new ones.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

// Close stops the server and closes every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	if s.root != nil {
		s.root.Close()
	}
	return err
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		// At the cap Accept waits for a connection to close; it retries
		// temporary failures such as running out of file descriptors.
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if s.opts.Wrap != nil {
			c = s.opts.Wrap(c)
		}
		ic := &sshsftp.IdleConn{Conn: c, Timeout: s.opts.IdleTimeout}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			ic.Close()
			return
		}
		s.conns[ic] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(ic)
			s.mu.Lock()
			delete(s.conns, ic)
			s.mu.Unlock()
			ic.Close()
		}()
	}
}

// DefaultHandshakeTimeout is how long a connection may take to complete
// its SSH handshake unless Options say otherwise (DESIGN.md section 12
// rule 20).
const DefaultHandshakeTimeout = 10 * time.Second

func (s *Server) handle(c net.Conn) {
	// The idle timeout moves with every byte; the handshake's deadline
	// does not, so a client that trickles bytes is closed too.
	timer := time.AfterFunc(s.opts.HandshakeTimeout, func() { c.Close() })
	sc, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if !timer.Stop() || err != nil {
		if sc != nil {
			sc.Close()
		}
		return
	}
	defer sc.Close()
	sshsftp.ServeSessions(chans, reqs, s.handlers)
}

// rootHandler serves a folder through os.Root: every path, and every
// symbolic link followed, stays inside it.
type rootHandler struct{ root *os.Root }

// rel turns an SFTP path ("/a/b", already cleaned by the request server)
// into a name inside the root.
func rel(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" {
		return "."
	}
	return p
}

func (h *rootHandler) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	return h.root.Open(rel(r.Filepath))
}

func (h *rootHandler) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	pf := r.Pflags()
	flags := os.O_WRONLY
	if pf.Read {
		flags = os.O_RDWR
	}
	if pf.Creat {
		flags |= os.O_CREATE
	}
	if pf.Trunc {
		flags |= os.O_TRUNC
	}
	if pf.Excl {
		flags |= os.O_EXCL
	}
	return h.root.OpenFile(rel(r.Filepath), flags, 0o644)
}

func (h *rootHandler) Filecmd(r *sftp.Request) error {
	switch r.Method {
	case "Setstat":
		return nil
	case "Rename", "PosixRename":
		return h.root.Rename(rel(r.Filepath), rel(r.Target))
	case "Rmdir", "Remove":
		return h.root.Remove(rel(r.Filepath))
	case "Mkdir":
		return h.root.Mkdir(rel(r.Filepath), 0o755)
	case "Symlink":
		// Filepath is the target as written, Target the new link.
		return h.root.Symlink(r.Filepath, rel(r.Target))
	}
	return sftp.ErrSSHFxOpUnsupported
}

func (h *rootHandler) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	switch r.Method {
	case "List":
		f, err := h.root.Open(rel(r.Filepath))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ents, err := f.ReadDir(-1)
		if err != nil {
			return nil, err
		}
		infos := make([]fs.FileInfo, 0, len(ents))
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				infos = append(infos, fi)
			}
		}
		return sshsftp.Lister(infos), nil
	case "Stat":
		fi, err := h.root.Stat(rel(r.Filepath))
		if err != nil {
			return nil, err
		}
		return sshsftp.Lister{fi}, nil
	}
	return nil, sftp.ErrSSHFxOpUnsupported
}

// Lstat describes a link itself.
func (h *rootHandler) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	fi, err := h.root.Lstat(rel(r.Filepath))
	if err != nil {
		return nil, err
	}
	return sshsftp.Lister{fi}, nil
}

// Readlink returns a link's target as written.
func (h *rootHandler) Readlink(p string) (string, error) {
	return h.root.Readlink(rel(p))
}
