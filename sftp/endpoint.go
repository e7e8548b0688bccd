package sftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/filekind"
	"github.com/assaykit/assay/internal/origin"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Config says how to reach an SFTP endpoint and what of it to read.
type Config struct {
	// Addr is host:port; a bare host means port 22.
	Addr string
	// User is the login name.
	User string
	// Root is the remote folder that is the root of the tree ("" for the
	// login folder). Paths in assertions are relative to it.
	Root string
	// Auth are the ways to authenticate, tried in order: PasswordAuth,
	// KeyAuth, KeyFileAuth, AgentAuth, or any ssh.AuthMethod.
	Auth []ssh.AuthMethod
	// KnownHostsFiles are the known_hosts files the host key is checked
	// against (OpenSSH's format: "[host]:port" entries for a port other
	// than 22, hashed entries, @revoked). Empty means ~/.ssh/known_hosts.
	// The host key algorithms offered to the server are the types of the
	// keys these files hold for the host, so a server that also has a key
	// of another type still presents the listed one.
	KnownHostsFiles []string
	// InsecureSkipHostKeyCheck accepts any host key: anyone on the path
	// to the server can then pose as it. Never the default; for throwaway
	// test servers only.
	InsecureSkipHostKeyCheck bool
	// Dial opens the connection; nil uses a net.Dialer. Tests use it to
	// inject latency or to speak over a pipe.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Timeout bounds connecting and the SSH handshake (default 30 s).
	Timeout time.Duration
	// RequestTimeout bounds one operation on the tree: listing one
	// folder, looking up one entry, reading one file (default 2 minutes).
	// A server that stops answering is then an error, not a hang.
	RequestTimeout time.Duration
	// MaxFileSize caps what is read of one file (<= 0:
	// check.DefaultMaxFileSize).
	MaxFileSize int64
	// MaxTotalSize caps what is read of all files together until Refresh
	// (<= 0: check.DefaultMaxTotalSize); each file counts once however
	// many checks read it, and a read past the cap is an error wrapping
	// check.ErrTotalTooLarge.
	MaxTotalSize int64
	// Limits bound walks of the tree.
	Limits Limits
}

// ErrUnknownHost is wrapped by the *HostKeyError of a host that the
// known_hosts files do not list.
var ErrUnknownHost = errors.New("host is not in known_hosts")

// ErrHostKeyMismatch is wrapped by the *HostKeyError of a host whose key
// differs from every key known_hosts lists for it (or is revoked).
var ErrHostKeyMismatch = errors.New("host key does not match known_hosts")

// HostKeyError reports a host key that known_hosts does not vouch for.
type HostKeyError struct {
	// Host is the host:port connected to.
	Host string
	// Key is the type and SHA256 fingerprint of the key the server showed.
	Key string
	// Want lists the keys known_hosts holds for the host, as "type
	// fingerprint (file:line)"; empty for an unknown host.
	Want []string
	// Err is ErrUnknownHost or ErrHostKeyMismatch.
	Err error
}

func (e *HostKeyError) Error() string {
	if errors.Is(e.Err, ErrUnknownHost) {
		return fmt.Sprintf("%s: the host key (%s) is not in known_hosts: add the host to known_hosts (ssh-keyscan) after checking its key", e.Host, e.Key)
	}
	return fmt.Sprintf("%s: REMOTE HOST KEY MISMATCH: the server showed %s, known_hosts holds %s", e.Host, e.Key, strings.Join(e.Want, ", "))
}

// Unwrap returns ErrUnknownHost or ErrHostKeyMismatch.
func (e *HostKeyError) Unwrap() error { return e.Err }

// PasswordAuth authenticates with a password. An Endpoint scrubs a
// password given this way from everything it reports, server-sent text
// included (a password given through ssh.Password directly it cannot see).
func PasswordAuth(password string) ssh.AuthMethod {
	return passwordAuth{AuthMethod: ssh.Password(password), password: password}
}

// passwordAuth is ssh.Password that remembers its password, so that an
// Endpoint can scrub it (DESIGN.md section 12 rule 18). Printing one shows
// no password.
type passwordAuth struct {
	ssh.AuthMethod
	password string
}

func (passwordAuth) String() string   { return "password " + origin.Redacted }
func (passwordAuth) GoString() string { return "password " + origin.Redacted }

// KeyAuth authenticates with a PEM or OpenSSH private key; passphrase may
// be nil for an unencrypted key.
func KeyAuth(privateKey, passphrase []byte) (ssh.AuthMethod, error) {
	var (
		signer ssh.Signer
		err    error
	)
	if passphrase == nil {
		signer, err = ssh.ParsePrivateKey(privateKey)
	} else {
		signer, err = ssh.ParsePrivateKeyWithPassphrase(privateKey, passphrase)
	}
	if err != nil {
		return nil, fmt.Errorf("sftp: private key: %w", err)
	}
	return ssh.PublicKeys(signer), nil
}

// KeyFileAuth is KeyAuth with the key read from a file.
func KeyFileAuth(file string, passphrase []byte) (ssh.AuthMethod, error) {
	data, err := check.ReadFile(os.DirFS(filepath.Dir(file)), filepath.Base(file), 1<<20)
	if err != nil {
		return nil, fmt.Errorf("sftp: private key %s: %w", file, err)
	}
	return KeyAuth(data, passphrase)
}

// AgentAuth authenticates with the keys of the SSH agent at
// SSH_AUTH_SOCK. The agent connection is dialled once, on first use.
func AgentAuth() ssh.AuthMethod {
	var (
		once    sync.Once
		signers []ssh.Signer
		err     error
	)
	return ssh.PublicKeysCallback(func() ([]ssh.Signer, error) {
		once.Do(func() {
			sock := os.Getenv("SSH_AUTH_SOCK")
			if sock == "" {
				err = errors.New("sftp: no SSH agent: SSH_AUTH_SOCK is not set")
				return
			}
			conn, derr := net.Dial("unix", sock)
			if derr != nil {
				err = fmt.Errorf("sftp: SSH agent: %w", derr)
				return
			}
			// The agent signs during the handshake; the connection lives
			// as long as the process.
			signers, err = agent.NewClient(conn).Signers()
		})
		return signers, err
	})
}

// ParseURL reads sftp://user[:password]@host[:port][/root] into a Config.
// The path is the remote root folder as written ("/" for the file
// system's root, none for the login folder); a password in the URL
// becomes PasswordAuth. Host keys are checked as Config's defaults say.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Parse's error quotes the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Config{}, fmt.Errorf("sftp url: %w", err)
	}
	if u.Scheme != "sftp" {
		return Config{}, fmt.Errorf("sftp url %q: the scheme must be sftp", u.Redacted())
	}
	if u.Hostname() == "" {
		return Config{}, fmt.Errorf("sftp url %q: no host", u.Redacted())
	}
	if u.User == nil || u.User.Username() == "" {
		return Config{}, fmt.Errorf("sftp url %q: no user (sftp://user@host/...)", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = "22"
	}
	cfg := Config{Addr: net.JoinHostPort(u.Hostname(), port), User: u.User.Username(), Root: u.Path}
	if pw, ok := u.User.Password(); ok {
		cfg.Auth = append(cfg.Auth, PasswordAuth(pw))
	}
	return cfg, nil
}

// Endpoint is the Source of a live SFTP endpoint. It connects on first use
// (or at once, through Dial), keeps that one connection for every check,
// lists each folder at most once, and never reconnects: once the connection
// is lost, every method returns an error, so the checks that still need
// the tree report status error. Call Refresh to read the tree anew (a new
// evaluation of a changed tree) and Close when done.
type Endpoint struct {
	cfg    Config
	host   hostKeys
	url    string
	secret *origin.Secret // the passwords of cfg.Auth, scrubbed from what is reported

	listMu  sync.Mutex // held while the listing channel is opened
	mu      sync.Mutex
	conn    *ssh.Client
	client  *sftp.Client
	lister  *dirLister // listings, page by page; opened on first use
	root    string     // canonical remote root
	err     error      // sticky connection error
	listErr error      // sticky failure to open the listing channel
	closed  bool

	treeMu sync.Mutex
	tree   *tree
}

var _ Source = (*Endpoint)(nil)

type hostKeys struct {
	callback ssh.HostKeyCallback
	algos    []string
}

// Open checks cfg (auth given, known_hosts readable) and returns an
// Endpoint that connects on first use.
func Open(cfg Config) (*Endpoint, error) {
	if cfg.Addr == "" {
		return nil, errors.New("sftp: no address")
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		cfg.Addr = net.JoinHostPort(cfg.Addr, "22")
	}
	if cfg.User == "" {
		return nil, errors.New("sftp: no user")
	}
	if len(cfg.Auth) == 0 {
		return nil, errors.New("sftp: no way to authenticate (password, key or agent)")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = 2 * time.Minute
	}
	e := &Endpoint{cfg: cfg, secret: origin.NewSecret()}
	for _, a := range cfg.Auth {
		if pa, ok := a.(passwordAuth); ok {
			e.secret.Add(pa.password)
		}
	}
	e.url = "sftp://" + cfg.User + "@" + cfg.Addr + "/" + strings.TrimPrefix(cfg.Root, "/")
	hk, err := hostKeyCheck(cfg)
	if err != nil {
		return nil, err
	}
	e.host = hk
	e.tree = e.newTree()
	return e, nil
}

// Dial is Open followed by connecting, so that a wrong address, key or
// host key is reported at once.
func Dial(ctx context.Context, cfg Config) (*Endpoint, error) {
	e, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := e.connect(ctx); err != nil {
		return nil, e.secret.Error(err)
	}
	return e, nil
}

// String names the endpoint: its sftp:// URL (never a password).
func (e *Endpoint) String() string { return e.url }

// Close closes the connection.
func (e *Endpoint) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.lister != nil {
		e.lister.Close()
	}
	if e.client != nil {
		e.client.Close()
	}
	if e.conn != nil {
		return e.conn.Close()
	}
	return nil
}

// Refresh forgets what was listed, so the next check reads the tree anew
// over the same connection.
func (e *Endpoint) Refresh() {
	e.treeMu.Lock()
	e.tree = e.newTree()
	e.treeMu.Unlock()
}

// newTree is the tree of one evaluation: its listings, its reads and their
// total.
func (e *Endpoint) newTree() *tree {
	t := newTree(&endpointBackend{e}, e.cfg.Limits)
	t.max = e.cfg.MaxFileSize
	t.budget = check.NewBudget(e.cfg.MaxTotalSize)
	return t
}

func (e *Endpoint) current() *tree {
	e.treeMu.Lock()
	defer e.treeMu.Unlock()
	return e.tree
}

// Stat implements Source; what the server sent (errors, names, link
// targets) is reported with the password scrubbed.
func (e *Endpoint) Stat(ctx context.Context, name string) (Entry, error) {
	en, err := e.current().Stat(ctx, name)
	return e.scrub(en), e.secret.Error(err)
}

// Walk implements Source; what the server sent is reported with the
// password scrubbed.
func (e *Endpoint) Walk(ctx context.Context, dir string) ([]Entry, error) {
	entries, err := e.current().Walk(ctx, dir)
	if err != nil || len(e.secret.Forms()) == 0 {
		return entries, e.secret.Error(err)
	}
	// The tree shares its listings between checks: copy before scrubbing.
	var out []Entry
	for i, en := range entries {
		if clean := e.scrub(en); clean != en {
			if out == nil {
				out = slices.Clone(entries)
			}
			out[i] = clean
		}
	}
	if out == nil {
		return entries, nil
	}
	return out, nil
}

// scrub returns en with the password removed from its server-sent strings.
func (e *Endpoint) scrub(en Entry) Entry {
	en.Path = e.secret.Redact(en.Path)
	en.Target = e.secret.Redact(en.Target)
	en.Problem = e.secret.Redact(en.Problem)
	return en
}

// ReadFile implements Source; an error is reported with the password
// scrubbed.
func (e *Endpoint) ReadFile(ctx context.Context, name string, limit int64) ([]byte, error) {
	data, err := e.current().ReadFile(ctx, name, limit)
	return data, e.secret.Error(err)
}

// probeKey is a public key of a type no known_hosts line has; checking it
// makes knownhosts list the keys it holds for a host.
type probeKey struct{}

func (probeKey) Type() string                        { return "assay-probe@assaykit" }
func (probeKey) Marshal() []byte                     { return []byte("assay-probe") }
func (probeKey) Verify([]byte, *ssh.Signature) error { return errors.New("probe") }

func hostKeyCheck(cfg Config) (hostKeys, error) {
	if cfg.InsecureSkipHostKeyCheck {
		return hostKeys{callback: ssh.InsecureIgnoreHostKey()}, nil
	}
	files := cfg.KnownHostsFiles
	if len(files) == 0 {
		home, err := os.UserHomeDir()
		if err != nil {
			return hostKeys{}, fmt.Errorf("sftp: no known_hosts file given and no home folder: %w", err)
		}
		files = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return hostKeys{}, fmt.Errorf("sftp: known_hosts: %w", err)
	}
	remote := tcpAddr(cfg.Addr)
	hk := hostKeys{}
	var ke *knownhosts.KeyError
	if err := cb(cfg.Addr, remote, probeKey{}); errors.As(err, &ke) {
		seen := map[string]bool{}
		for _, k := range ke.Want {
			for _, algo := range algorithmsFor(k.Key.Type()) {
				if !seen[algo] {
					seen[algo] = true
					hk.algos = append(hk.algos, algo)
				}
			}
		}
	}
	hk.callback = func(hostname string, _ net.Addr, key ssh.PublicKey) error {
		err := cb(cfg.Addr, remote, key)
		if err == nil {
			return nil
		}
		got := key.Type() + " " + ssh.FingerprintSHA256(key)
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return &HostKeyError{Host: cfg.Addr, Key: got, Err: ErrUnknownHost}
		case errors.As(err, &ke):
			want := make([]string, len(ke.Want))
			for i, k := range ke.Want {
				want[i] = fmt.Sprintf("%s %s (%s:%d)", k.Key.Type(), ssh.FingerprintSHA256(k.Key), k.Filename, k.Line)
			}
			return &HostKeyError{Host: cfg.Addr, Key: got, Want: want, Err: ErrHostKeyMismatch}
		case errors.As(err, &re):
			return &HostKeyError{Host: cfg.Addr, Key: got, Want: []string{"it revoked (" + re.Revoked.Filename + ":" + strconv.Itoa(re.Revoked.Line) + ")"}, Err: ErrHostKeyMismatch}
		}
		return err
	}
	return hk, nil
}

// algorithmsFor lists the host key algorithms that present a key of type t.
func algorithmsFor(t string) []string {
	if t == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{t}
}

// tcpAddr is addr as a *net.TCPAddr, which knownhosts needs even when the
// connection is a pipe.
func tcpAddr(addr string) *net.TCPAddr {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	return &net.TCPAddr{IP: net.ParseIP(host), Port: p}
}

// connect returns the SFTP client, connecting on first use. A failure is
// kept (the endpoint never reconnects) unless it was ctx ending.
func (e *Endpoint) connect(ctx context.Context) (*sftp.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return nil, fmt.Errorf("%s: the endpoint is closed", e.url)
	case e.err != nil:
		return nil, e.err
	case e.client != nil:
		return e.client, nil
	}
	client, err := e.dial(ctx)
	if err != nil {
		err = fmt.Errorf("%s: %w", e.url, err)
		if !isCtxErr(err) {
			e.err = err
		}
		return nil, err
	}
	e.client = client
	return client, nil
}

func (e *Endpoint) dial(ctx context.Context) (*sftp.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	dial := e.cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	conn, err := dial(ctx, "tcp", e.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	// The handshake honours ctx: closing the connection ends it.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	sc, chans, reqs, err := ssh.NewClientConn(conn, e.cfg.Addr, &ssh.ClientConfig{
		User:              e.cfg.User,
		Auth:              e.cfg.Auth,
		HostKeyCallback:   e.host.callback,
		HostKeyAlgorithms: e.host.algos,
		Timeout:           e.cfg.Timeout,
	})
	if !stop() {
		if sc != nil {
			sc.Close()
		}
		return nil, fmt.Errorf("SSH handshake: %w", ctx.Err())
	}
	if err != nil {
		conn.Close()
		if len(e.host.algos) > 0 && strings.Contains(err.Error(), "no common algorithm for host key") {
			// known_hosts lists keys of types the server no longer has:
			// its key changed, as OpenSSH would say.
			return nil, fmt.Errorf("SSH handshake: %w", &HostKeyError{Host: e.cfg.Addr,
				Key:  "no key of the types known_hosts lists (" + strings.Join(e.host.algos, ", ") + ")",
				Want: e.host.algos, Err: ErrHostKeyMismatch})
		}
		return nil, fmt.Errorf("SSH handshake: %w", err)
	}
	client := ssh.NewClient(sc, chans, reqs)
	sftpc, err := sftp.NewClient(client)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("starting the SFTP subsystem: %w", err)
	}
	root := e.cfg.Root
	if root == "" {
		root = "."
	}
	canon, err := sftpc.RealPath(root)
	if err == nil {
		var fi fs.FileInfo
		if fi, err = sftpc.Stat(canon); err == nil && !fi.IsDir() {
			err = fmt.Errorf("%w: %s", ErrNotFolder, canon)
		}
	}
	if err != nil {
		sftpc.Close()
		client.Close()
		return nil, fmt.Errorf("the root folder %q: %w", e.cfg.Root, err)
	}
	e.conn, e.root = client, canon
	return sftpc, nil
}

// call runs op with the client, returning early when ctx ends (the
// request itself then finishes in the background: SFTP cannot cancel it).
func call[T any](ctx context.Context, e *Endpoint, op func(c *sftp.Client) (T, error)) (T, error) {
	var zero T
	c, err := e.connect(ctx)
	if err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op(c)
		done <- result{v, err}
	}()
	timer := time.NewTimer(e.cfg.RequestTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-timer.C:
		return zero, fmt.Errorf("the server did not answer within %s", e.cfg.RequestTimeout)
	}
}

// endpointBackend is the backend of an Endpoint's tree.
type endpointBackend struct{ e *Endpoint }

func (b *endpointBackend) String() string { return b.e.url }

func (b *endpointBackend) full(name string) string {
	b.e.mu.Lock()
	root := b.e.root
	b.e.mu.Unlock()
	return path.Join(root, name)
}

func (b *endpointBackend) readDir(ctx context.Context, dir string, take func([]fs.FileInfo, int) error) ([]fs.FileInfo, error) {
	l, err := b.e.listings(ctx)
	if err != nil {
		return nil, err
	}
	return l.list(ctx, b.full(dir), take)
}

// listings returns the channel listings go over, opening it on first use
// on the endpoint's connection, within RequestTimeout. Failing to open it
// is kept, as a failure to connect is, unless ctx ended.
func (e *Endpoint) listings(ctx context.Context) (*dirLister, error) {
	if _, err := e.connect(ctx); err != nil {
		return nil, err
	}
	e.listMu.Lock()
	defer e.listMu.Unlock()
	e.mu.Lock()
	l, err, conn := e.lister, e.listErr, e.conn
	if e.closed {
		err = fmt.Errorf("%s: the endpoint is closed", e.url)
	}
	e.mu.Unlock()
	if l != nil || err != nil {
		return l, err
	}
	ch := make(chan opened, 1)
	go func() {
		l, err := openLister(conn, e.cfg.RequestTimeout)
		ch <- opened{l, err}
	}()
	timer := time.NewTimer(e.cfg.RequestTimeout)
	defer timer.Stop()
	var r opened
	select {
	case r = <-ch:
	case <-ctx.Done():
		go closeLate(ch)
		return nil, ctx.Err()
	case <-timer.C:
		go closeLate(ch)
		r.err = fmt.Errorf("the server did not answer within %s (opening a channel for listings)", e.cfg.RequestTimeout)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case r.err != nil:
		e.listErr = fmt.Errorf("%s: %w", e.url, r.err)
		return nil, e.listErr
	case e.closed:
		r.l.Close()
		return nil, fmt.Errorf("%s: the endpoint is closed", e.url)
	}
	e.lister = r.l
	return r.l, nil
}

// opened is the outcome of opening a listing channel.
type opened struct {
	l   *dirLister
	err error
}

// closeLate closes a listing channel that opened after its caller gave up.
func closeLate(ch <-chan opened) {
	if r := <-ch; r.l != nil {
		r.l.Close()
	}
}

func (b *endpointBackend) lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	return call(ctx, b.e, func(c *sftp.Client) (fs.FileInfo, error) { return c.Lstat(b.full(name)) })
}

func (b *endpointBackend) readLink(ctx context.Context, name string) (string, error) {
	return call(ctx, b.e, func(c *sftp.Client) (string, error) { return c.ReadLink(b.full(name)) })
}

func (b *endpointBackend) stat(ctx context.Context, name string) (fs.FileInfo, error) {
	return call(ctx, b.e, func(c *sftp.Client) (fs.FileInfo, error) { return c.Stat(b.full(name)) })
}

func (b *endpointBackend) inside(target string) (string, bool) {
	b.e.mu.Lock()
	root := b.e.root
	b.e.mu.Unlock()
	if root == "/" {
		return strings.TrimPrefix(target, "/"), true
	}
	if target == root {
		return "", true
	}
	if rel, ok := strings.CutPrefix(target, root+"/"); ok {
		return rel, true
	}
	return "", false
}

func (b *endpointBackend) readFile(ctx context.Context, name string, limit, size int64) ([]byte, error) {
	if limit <= 0 {
		limit = check.DefaultMaxFileSize
	}
	return call(ctx, b.e, func(c *sftp.Client) ([]byte, error) {
		fail := func(size int64, err error) ([]byte, error) {
			return nil, &check.FileError{Path: name, Size: size, Limit: limit, Err: err}
		}
		f, err := c.Open(b.full(name))
		if err != nil {
			return fail(0, err)
		}
		// Closing needs a round trip of its own that nothing waits for.
		defer func() { go f.Close() }()
		if size >= 0 && size <= limit {
			// The listing gave the size (the tree is the agent's final
			// one): read it at once, in one request for a small file,
			// concurrent ones for a large one.
			buf := make([]byte, size)
			if size == 0 {
				return buf, nil
			}
			n, err := f.ReadAt(buf, 0)
			if err != nil && !errors.Is(err, io.EOF) {
				return fail(0, err)
			}
			return buf[:n], nil
		}
		fi, err := f.Stat()
		if err != nil {
			return fail(0, err)
		}
		if !fi.Mode().IsRegular() {
			return fail(0, fmt.Errorf("%w (it is %s)", check.ErrNotRegular, filekind.Of(fi.Mode())))
		}
		if fi.Size() > limit {
			return fail(fi.Size(), check.ErrTooLarge)
		}
		data, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return fail(0, err)
		}
		if int64(len(data)) > limit {
			return fail(int64(len(data)), check.ErrTooLarge)
		}
		return data, nil
	})
}

// Unavailable returns a Source whose every method reports err, for a
// loader that found the evidence unusable (a bad sftp.url): the checks
// that need the tree then report status error, and the others still run.
func Unavailable(err error) Source { return brokenSource{err} }

// URLSource is the Source an sftp:// URL names (a sandbox's sftp/sftp.url):
// ParseURL, then the private key in keyFile ("" tries ~/.ssh/id_ed25519,
// id_ecdsa and id_rsa, and the SSH agent at SSH_AUTH_SOCK) and the host
// keys in knownHostsFile ("" means ~/.ssh/known_hosts). Nothing connects
// until a check asks. maxFileSize and maxTotalSize are Config's
// MaxFileSize and MaxTotalSize. A URL or key that cannot be used makes
// every method report the problem, so the checks that need the tree report
// status error. The caller closes the returned io.Closer when done.
func URLSource(rawURL, keyFile, knownHostsFile string, maxFileSize, maxTotalSize int64) (Source, io.Closer) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return Unavailable(err), noClose{}
	}
	if knownHostsFile != "" {
		cfg.KnownHostsFiles = []string{knownHostsFile}
	}
	cfg.MaxFileSize, cfg.MaxTotalSize = maxFileSize, maxTotalSize
	if keyFile != "" {
		auth, err := KeyFileAuth(keyFile, nil)
		if err != nil {
			return Unavailable(err), noClose{}
		}
		cfg.Auth = append(cfg.Auth, auth)
	} else {
		if home, err := os.UserHomeDir(); err == nil {
			for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
				if auth, err := KeyFileAuth(filepath.Join(home, ".ssh", name), nil); err == nil {
					cfg.Auth = append(cfg.Auth, auth)
				}
			}
		}
		if os.Getenv("SSH_AUTH_SOCK") != "" {
			cfg.Auth = append(cfg.Auth, AgentAuth())
		}
	}
	ep, err := Open(cfg)
	if err != nil {
		return Unavailable(fmt.Errorf("%s: %w", redact(rawURL), err)), noClose{}
	}
	return ep, ep
}

// redact drops a password from a URL for messages.
func redact(raw string) string {
	if u, err := url.Parse(strings.TrimSpace(raw)); err == nil {
		return u.Redacted()
	}
	return "the sftp URL"
}

type noClose struct{}

func (noClose) Close() error { return nil }
