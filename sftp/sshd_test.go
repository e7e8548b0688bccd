package sftp_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sftp"
	"golang.org/x/crypto/ssh"
)

const sshdPath = "/usr/sbin/sshd"

// sshd is OpenSSH's server run by a test on a free loopback port with a
// private configuration: its own host keys, key-only login as the current
// user (root), the internal SFTP server forced.
type sshd struct {
	addr      string
	cfgFile   string
	procs     []*exec.Cmd // sshd -i processes
	mu        sync.Mutex
	hostKeys  []ssh.PublicKey
	clientKey ssh.Signer
	cmd       *exec.Cmd
}

type sshdOptions struct {
	root     string   // ForceCommand internal-sftp -d root
	chroot   string   // ChrootDirectory (then the start folder is /)
	keyTypes []string // "ed25519", "ecdsa"; default ed25519
	// stdio runs no daemon: each dial starts "sshd -i", which speaks SSH
	// on its stdin and stdout (one end of a socket pair) and ends with
	// the connection.
	stdio bool
}

// needSSHD skips the test unless OpenSSH's sshd can run here.
func needSSHD(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not starting sshd")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		t.Skipf("OpenSSH's sshd is not installed (%v); apt-get install openssh-server", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("sshd needs root to run with a private configuration")
	}
}

func writeKey(t testing.TB, path string, key crypto.PrivateKey) {
	t.Helper()
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

func startSSHD(t testing.TB, o sshdOptions) *sshd {
	t.Helper()
	needSSHD(t)
	// sshd refuses to start without its privilege separation folder.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("cannot create /run/sshd: %v", err)
	}
	dir := t.TempDir()
	s := &sshd{}
	if len(o.keyTypes) == 0 {
		o.keyTypes = []string{"ed25519"}
	}
	var conf strings.Builder
	for _, kt := range o.keyTypes {
		var priv crypto.PrivateKey
		switch kt {
		case "ed25519":
			_, priv, _ = ed25519.GenerateKey(rand.Reader)
		case "ecdsa":
			priv, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		}
		p := filepath.Join(dir, "host_"+kt)
		writeKey(t, p, priv)
		signer, err := ssh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		s.hostKeys = append(s.hostKeys, signer.PublicKey())
		fmt.Fprintf(&conf, "HostKey %s\n", p)
	}
	_, cpriv, _ := ed25519.GenerateKey(rand.Reader)
	s.clientKey, _ = ssh.NewSignerFromKey(cpriv)
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(s.clientKey.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	if o.stdio {
		s.addr = "127.0.0.1:2222" // the name known_hosts vouches for
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.addr = ln.Addr().String()
		ln.Close()
		fmt.Fprintf(&conf, "ListenAddress %s\n", s.addr)
	}
	fmt.Fprintf(&conf, "PidFile %s\nAuthorizedKeysFile %s\n", filepath.Join(dir, "sshd.pid"), authorized)
	conf.WriteString("PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n" +
		"PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nLogLevel ERROR\nSubsystem sftp internal-sftp\n")
	if o.chroot != "" {
		fmt.Fprintf(&conf, "ChrootDirectory %s\nForceCommand internal-sftp -d /\n", o.chroot)
	} else {
		fmt.Fprintf(&conf, "ForceCommand internal-sftp -d %s\n", o.root)
	}
	cfgFile := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfgFile, []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cfgFile = cfgFile
	if o.stdio {
		t.Cleanup(s.stop)
		return s
	}
	var stderr strings.Builder
	s.cmd = exec.Command(sshdPath, "-D", "-e", "-f", cfgFile)
	s.cmd.Stderr = &stderr
	s.cmd.WaitDelay = 2 * time.Second
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) || s.cmd.ProcessState != nil {
			t.Fatalf("sshd did not start: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// stop kills the sshd this test started and every session process it
// forked: sessions call setsid, so they are found as its descendants
// (by parent pid in /proc), each killed by its own pid.
func (s *sshd) stop() {
	s.mu.Lock()
	for _, p := range s.procs {
		p.Process.Kill()
		p.Wait()
	}
	s.procs = nil
	s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pids := descendants(s.cmd.Process.Pid)
	s.cmd.Process.Kill()
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	s.cmd.Wait()
	s.cmd = nil
}

// descendants lists the processes below pid, children first found first.
func descendants(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := string(data[strings.LastIndexByte(string(data), ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	var out []int
	frontier := []int{pid}
	for len(frontier) > 0 {
		var next []int
		for p, pp := range parent {
			for _, f := range frontier {
				if pp == f {
					out = append(out, p)
					next = append(next, p)
				}
			}
		}
		frontier = next
	}
	return out
}

func (s *sshd) knownHosts(t testing.TB, keys ...ssh.PublicKey) string {
	if len(keys) == 0 {
		keys = s.hostKeys
	}
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(line(s.addr, k, false))
	}
	return writeFile(t, b.String())
}

func (s *sshd) config(t testing.TB, root string, keys ...ssh.PublicKey) sftp.Config {
	cfg := sftp.Config{Addr: s.addr, User: "root", Root: root,
		Auth: []ssh.AuthMethod{ssh.PublicKeys(s.clientKey)}, KnownHostsFiles: []string{s.knownHosts(t, keys...)}}
	if s.cmd == nil {
		cfg.Dial = s.dialStdio
	}
	return cfg
}

// dialStdio starts "sshd -i" on one end of a socket pair and returns the
// other end as the connection.
func (s *sshd) dialStdio(ctx context.Context, _, _ string) (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "ssh"), os.NewFile(uintptr(fds[1]), "sshd")
	defer theirs.Close()
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sshdPath, "-i", "-e", "-f", s.cfgFile)
	cmd.Stdin, cmd.Stdout = theirs, theirs
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, err
	}
	s.mu.Lock()
	s.procs = append(s.procs, cmd)
	s.mu.Unlock()
	return conn, nil
}

// opensshSource is the OpenSSH entry of sources(): sshd over linkTree,
// the login folder (internal-sftp -d) as the root.
func opensshSource() source {
	return source{"OpenSSH sshd", true, func(t *testing.T) *assert.Env {
		dir := linkTree(t)
		s := startSSHD(t, sshdOptions{root: dir})
		ep, err := sftp.Dial(context.Background(), s.config(t, ""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ep.Close() })
		env := assert.NewEnv()
		sftp.Attach(env, ep)
		return env
	}}
}

// TestOpenSSHChroot proves that a leading "/" means the root: the tree is
// the chroot, so "/claims/2024/claim.json" names the chroot's file, and an
// absolute link to /etc/passwd names a file the tree does not hold.
func TestOpenSSHChroot(t *testing.T) {
	needSSHD(t)
	// ChrootDirectory must be root-owned and writable by no one else along
	// its whole path, which /tmp is not.
	chroot, err := os.MkdirTemp("/var/lib", "assay-sftp-chroot-")
	if err != nil {
		t.Skipf("no root-owned folder for a chroot: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(chroot) })
	if err := os.Chmod(chroot, 0o755); err != nil {
		t.Fatal(err)
	}
	tree := linkTree(t)
	if err := exec.Command("cp", "-a", tree+"/.", chroot).Run(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(chroot, "claims", "2024", "fifo.json"))
	s := startSSHD(t, sshdOptions{chroot: chroot})
	ep, err := sftp.Dial(context.Background(), s.config(t, "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	for _, tt := range []struct {
		spec   string
		status assert.Status
		want   string
	}{
		{`{"assert": "sftp-file-present", "path": "/claims/2024/claim.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-1"}]}`,
			assert.StatusPassed, "claims/2024/claim.json matched; 1 of 1 fields passed."},
		{`{"assert": "sftp-file-present", "path": "claims/2024/claim.json"}`, assert.StatusPassed, "matched"},
		{`{"assert": "sftp-file-present", "path": "/claims/2024/out.json"}`, assert.StatusFailed, "dangling symbolic link (to /etc/passwd)"},
		{`{"assert": "sftp-file-present", "path": "/claims/2024/up.json"}`, assert.StatusFailed, "leading out of the tree"},
		{`{"assert": "sftp-file-present", "path_pattern": "/**/link.json", "parse_json": true, "fields": [{"path": "claim.id", "expected": "C-2"}]}`,
			assert.StatusPassed, "claims/2024/link.json matched"},
	} {
		r := evaluate(t, env, tt.spec)
		if r.Status != tt.status || !strings.Contains(r.Details, tt.want) {
			t.Errorf("%s: %s %q, want %s with %q", tt.spec, r.Status, r.Details, tt.status, tt.want)
		}
	}
}

// TestOpenSSHHostKeys: two host key types, an unknown host and a wrong key
// against OpenSSH.
func TestOpenSSHHostKeys(t *testing.T) {
	s := startSSHD(t, sshdOptions{root: t.TempDir(), keyTypes: []string{"ecdsa", "ed25519"}})
	ctx := context.Background()
	for i, k := range s.hostKeys {
		ep, err := sftp.Dial(ctx, s.config(t, "", k))
		if err != nil {
			t.Fatalf("known_hosts with only the %s key: %v", k.Type(), err)
		}
		ep.Close()
		_ = i
	}
	cfg := s.config(t, "")
	cfg.KnownHostsFiles = []string{writeFile(t, line("127.0.0.1:1", s.hostKeys[0], false))}
	if _, err := sftp.Dial(ctx, cfg); !errors.Is(err, sftp.ErrUnknownHost) {
		t.Fatalf("unknown host: %v", err)
	}
	cfg.KnownHostsFiles = []string{writeFile(t, line(s.addr, ed25519Signer(t).PublicKey(), false))}
	if _, err := sftp.Dial(ctx, cfg); !errors.Is(err, sftp.ErrHostKeyMismatch) {
		t.Fatalf("wrong key: %v", err)
	}
}

// TestOpenSSHStdio speaks SSH to "sshd -i" over a socket pair: no port,
// and the server ends with the connection. Killing it mid-evaluation makes
// the checks that still need the tree report status error.
func TestOpenSSHStdio(t *testing.T) {
	dir := linkTree(t)
	s := startSSHD(t, sshdOptions{root: dir, stdio: true, keyTypes: []string{"ed25519", "ecdsa"}})
	ep, err := sftp.Dial(context.Background(), s.config(t, "", s.hostKeys[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/2024/*.json", "parse_json": true, "fields": [{"key": "claim.id", "expected": "C-1"}]}`)
	if r.Status != assert.StatusPassed || !strings.Contains(r.Details, "claims/2024/claim.json matched") {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	s.stop()
	r = evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "claims/*.txt"}`)
	if r.Status != assert.StatusError {
		t.Fatalf("after sshd -i died: %s: %s", r.Status, r.Details)
	}
}

// TestOpenSSHDropped: sshd dies mid-evaluation; the checks that still need
// the tree report status error.
func TestOpenSSHDropped(t *testing.T) {
	dir := linkTree(t)
	s := startSSHD(t, sshdOptions{root: dir})
	ep, err := sftp.Dial(context.Background(), s.config(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	if r := evaluate(t, env, `{"assert": "sftp-file-present", "path": "claims/2024/claim.json"}`); r.Status != assert.StatusPassed {
		t.Fatalf("%s: %s", r.Status, r.Details)
	}
	s.stop()
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "**/*.json"}`)
	if r.Status != assert.StatusError {
		t.Fatalf("after sshd died: %s: %s", r.Status, r.Details)
	}
}
