package sftp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func ed25519Signer(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ecdsaSigner(t testing.TB) ssh.Signer {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func memServer(t testing.TB, opts sftptest.Options) *sftptest.Server {
	t.Helper()
	if opts.Files == nil && opts.Dir == "" {
		opts.Files = treeFiles(t)
	}
	srv, err := sftptest.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func writeFile(t testing.TB, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func line(addr string, k ssh.PublicKey, hashed bool) string {
	host := knownhosts.Normalize(addr)
	if hashed {
		host = knownhosts.HashHostname(host)
	}
	return knownhosts.Line([]string{host}, k) + "\n"
}

// TestHostKeys: an unknown host and a wrong key are two different errors;
// hashed entries and "[host]:port" work; with two host key types on the
// server, the type known_hosts lists is the one negotiated.
func TestHostKeys(t *testing.T) {
	ed, ec := ed25519Signer(t), ecdsaSigner(t)
	srv := memServer(t, sftptest.Options{HostKeys: []ssh.Signer{ec, ed}})
	other := ed25519Signer(t)
	ctx := context.Background()
	dial := func(known string) error {
		cfg := srv.Config(writeFile(t, known))
		ep, err := sftp.Dial(ctx, cfg)
		if err == nil {
			ep.Close()
		}
		return err
	}
	for _, tt := range []struct {
		name  string
		known string
		want  error
	}{
		{"ed25519 listed, server prefers ecdsa", line(srv.Addr(), ed.PublicKey(), false), nil},
		{"ecdsa listed", line(srv.Addr(), ec.PublicKey(), false), nil},
		{"hashed entry", line(srv.Addr(), ed.PublicKey(), true), nil},
		{"unknown host", line("127.0.0.1:1", ed.PublicKey(), false), sftp.ErrUnknownHost},
		{"port 22 entry does not vouch for another port", "127.0.0.1 " + string(ssh.MarshalAuthorizedKey(ed.PublicKey())), sftp.ErrUnknownHost},
		{"wrong key", line(srv.Addr(), other.PublicKey(), false), sftp.ErrHostKeyMismatch},
		{"another key of a type the server has", line(srv.Addr(), ecdsaSigner(t).PublicKey(), false), sftp.ErrHostKeyMismatch},
		{"revoked key", "@revoked * " + string(ssh.MarshalAuthorizedKey(ed.PublicKey())) + line(srv.Addr(), ed.PublicKey(), false), sftp.ErrHostKeyMismatch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := dial(tt.known)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			var hk *sftp.HostKeyError
			if tt.want != nil && !errors.As(err, &hk) {
				t.Fatalf("%v is not a *HostKeyError", err)
			}
		})
	}
	t.Run("the server has no key of the listed type", func(t *testing.T) {
		only := memServer(t, sftptest.Options{HostKeys: []ssh.Signer{ed}})
		_, err := sftp.Dial(ctx, only.Config(writeFile(t, line(only.Addr(), ec.PublicKey(), false))))
		if !errors.Is(err, sftp.ErrHostKeyMismatch) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("messages differ", func(t *testing.T) {
		unknown := dial(line("127.0.0.1:1", ed.PublicKey(), false))
		wrong := dial(line(srv.Addr(), other.PublicKey(), false))
		if !strings.Contains(unknown.Error(), "is not in known_hosts") || !strings.Contains(wrong.Error(), "REMOTE HOST KEY MISMATCH") {
			t.Fatalf("unknown: %v\nwrong: %v", unknown, wrong)
		}
	})
	t.Run("skipping the check is explicit", func(t *testing.T) {
		cfg := srv.Config(writeFile(t, ""))
		cfg.KnownHostsFiles = nil
		cfg.InsecureSkipHostKeyCheck = true
		ep, err := sftp.Dial(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ep.Close()
	})
	t.Run("missing known_hosts file", func(t *testing.T) {
		cfg := srv.Config(filepath.Join(t.TempDir(), "none"))
		if _, err := sftp.Open(cfg); err == nil || !strings.Contains(err.Error(), "known_hosts") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestAuth(t *testing.T) {
	srv := memServer(t, sftptest.Options{Password: "s3cret"})
	kh := writeFile(t, string(srv.KnownHosts()))
	ctx := context.Background()
	cfg := srv.Config(kh)
	cfg.Auth = []ssh.AuthMethod{sftp.PasswordAuth("s3cret")}
	ep, err := sftp.Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("password: %v", err)
	}
	ep.Close()
	cfg.Auth = []ssh.AuthMethod{sftp.PasswordAuth("wrong")}
	if _, err := sftp.Dial(ctx, cfg); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("wrong password: %v", err)
	}
	// A key file in OpenSSH format.
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := ssh.NewSignerFromKey(priv)
	srv2 := memServer(t, sftptest.Options{AuthorizedKeys: []ssh.PublicKey{signer.PublicKey()}})
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	auth, err := sftp.KeyFileAuth(keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg = srv2.Config(writeFile(t, string(srv2.KnownHosts())))
	cfg.Auth = []ssh.AuthMethod{auth}
	ep, err = sftp.Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("key file: %v", err)
	}
	ep.Close()
	// No agent: a clear error, not a hang.
	t.Setenv("SSH_AUTH_SOCK", "")
	cfg.Auth = []ssh.AuthMethod{sftp.AgentAuth()}
	if _, err := sftp.Dial(ctx, cfg); err == nil {
		t.Fatal("agent auth without an agent connected")
	}
}

// TestDroppedConnection: once the connection is lost, checks that need
// more of the tree report status error; what was listed before stays.
func TestDroppedConnection(t *testing.T) {
	srv := memServer(t, sftptest.Options{})
	ep, err := sftp.Dial(context.Background(), srv.Config(writeFile(t, string(srv.KnownHosts()))))
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json"}`)
	if r.Status != assert.StatusPassed {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	srv.DropConnections()
	time.Sleep(50 * time.Millisecond)
	r = evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/*.txt"}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "sftp://assay@"+srv.Addr()) {
		t.Fatalf("after the drop: %s: %s", r.Status, r.Details)
	}
	r = evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/2024/claim.json", "parse_json": true}`)
	if r.Status != assert.StatusError {
		t.Fatalf("reading after the drop: %s: %s", r.Status, r.Details)
	}
}

func TestUnreachable(t *testing.T) {
	srv := memServer(t, sftptest.Options{})
	cfg := srv.Config(writeFile(t, string(srv.KnownHosts())))
	srv.Close()
	ep, err := sftp.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path": "a.json"}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "connecting") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	// A cancelled context ends the check, and is not remembered.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ep.Stat(ctx, "a.json"); !errors.Is(err, context.Canceled) && err == nil {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestRootFolder(t *testing.T) {
	srv := memServer(t, sftptest.Options{})
	cfg := srv.Config(writeFile(t, string(srv.KnownHosts())))
	cfg.Root = "/claims/2024"
	ep, err := sftp.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path": "/claim.json"}`)
	if r.Status != assert.StatusPassed {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	cfg.Root = "/claims/notes.txt"
	if _, err := sftp.Dial(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("root that is a file: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	cfg, err := sftp.ParseURL("sftp://alice@example.com:2222/upload/out")
	if err != nil || cfg.Addr != "example.com:2222" || cfg.User != "alice" || cfg.Root != "/upload/out" {
		t.Fatalf("%+v %v", cfg, err)
	}
	cfg, err = sftp.ParseURL("sftp://bob:pw@[::1]")
	if err != nil || cfg.Addr != "[::1]:22" || cfg.Root != "" || len(cfg.Auth) != 1 {
		t.Fatalf("%+v %v", cfg, err)
	}
	for _, bad := range []string{"http://a@b/", "sftp://host/x", "sftp://@host", "sftp://a@/x", "::"} {
		if _, err := sftp.ParseURL(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := sftp.ParseURL("sftp://bob:hunter2@h/"); err != nil {
		t.Fatal(err)
	}
	if _, err := sftp.ParseURL("ftp://bob:hunter2@h/"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("password in an error: %v", err)
	}
}

// TestListedOnce: however many checks run, each folder is listed once and
// each file read once per evaluation; a path check lists nothing.
func TestListedOnce(t *testing.T) {
	srv := memServer(t, sftptest.Options{})
	ep, err := sftp.Dial(context.Background(), srv.Config(writeFile(t, string(srv.KnownHosts()))))
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	before := srv.Stats()
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/2024/claim.json", "parse_json": true}`)
	if st := srv.Stats(); r.Status != assert.StatusPassed || st.Lists != before.Lists || st.Reads != before.Reads+1 {
		t.Fatalf("path check: %s, %+v -> %+v", r.Details, before, st)
	}
	var criteria []assert.Criterion
	for _, p := range []string{"claims/**/*.json", "claims/2024/*.json", "**/claim.json", "claims/2024/claim.json", "claims/*.txt"} {
		criteria = append(criteria, assert.Criterion{Assertion: assert.Spec(`{"assert": "sftp-file-present", "path_pattern": "` + p + `", "parse_json": true}`)})
	}
	res, err := assert.Evaluate(context.Background(), append(criteria, criteria...), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Criteria[:4] {
		if c.Status != assert.StatusPassed {
			t.Errorf("%s: %s", c.Status, c.Details)
		}
	}
	st := srv.Stats()
	// Folders: the root, claims, claims/2024, claims/.hidden.
	if lists := st.Lists - before.Lists; lists != 4 {
		t.Errorf("%d listings, want 4 (each folder once)", lists)
	}
	// Files read: claim.json by the path check, then array, blob, empty
	// and other.json and notes.txt, each once.
	if reads := st.Reads - before.Reads; reads != 6 {
		t.Errorf("%d reads, want 6 (each file once)", reads)
	}
}

// TestWalkLimits: a tree over the entry or depth limits is an error, not a
// verdict on part of it.
func TestWalkLimits(t *testing.T) {
	files := map[string][]byte{"a/b/c/d/e/f.json": nil}
	for i := range 20 {
		files[fmt.Sprintf("wide/%02d.json", i)] = nil
	}
	srv := memServer(t, sftptest.Options{Files: files})
	for _, tt := range []struct {
		limits  sftp.Limits
		pattern string
		want    string
	}{
		{sftp.Limits{MaxEntries: 10}, "wide/*.json", "more than 10 entries"},
		{sftp.Limits{MaxDepth: 3}, "a/**/f.json", "deeper than 3 levels"},
	} {
		cfg := srv.Config(writeFile(t, string(srv.KnownHosts())))
		cfg.Limits = tt.limits
		ep, err := sftp.Dial(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		env := assert.NewEnv()
		sftp.Attach(env, ep)
		r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "`+tt.pattern+`"}`)
		if r.Status != assert.StatusError || !strings.Contains(r.Details, tt.want) {
			t.Errorf("%+v: %s: %s", tt.limits, r.Status, r.Details)
		}
		ep.Close()
	}
}

// stallConn stops delivering what the server sends once stalled is set,
// as a server that hangs does.
type stallConn struct {
	net.Conn
	stalled *atomic.Bool
}

func (c stallConn) Read(p []byte) (int, error) {
	for c.stalled.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	return c.Conn.Read(p)
}

func TestRequestTimeout(t *testing.T) {
	srv := memServer(t, sftptest.Options{})
	cfg := srv.Config(writeFile(t, string(srv.KnownHosts())))
	var stalled atomic.Bool
	cfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return stallConn{c, &stalled}, err
	}
	cfg.RequestTimeout = 200 * time.Millisecond
	ep, err := sftp.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	stalled.Store(true)
	defer func() { stalled.Store(false); ep.Close() }()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/**"}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "did not answer within 200ms") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
}
