package filesim_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/serve/internal/simtest"
	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// openSSH runs OpenSSH's sftp client in batch mode as run's SFTP user
// against addr, in the folder dir (local files for put and get), and
// returns what it printed. A test skips when the client is missing.
func openSSH(t *testing.T, addr string, run simtest.Run, dir, batch string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("sftp")
	if err != nil {
		t.Skip("OpenSSH's sftp client is not installed: ", err)
	}
	// The password comes from SSH_ASKPASS, never from a command line.
	askpass := filepath.Join(t.TempDir(), "askpass")
	if err := os.WriteFile(askpass, []byte("#!/bin/sh\nprintf '%s\\n' \"$ASSAY_TEST_PASSWORD\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	batchFile := filepath.Join(t.TempDir(), "batch")
	if err := os.WriteFile(batchFile, []byte(batch), 0o600); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(addr)
	// -b turns BatchMode on, which would refuse to ask for the password:
	// an earlier -o BatchMode=no wins.
	cmd := exec.Command(bin, "-o", "BatchMode=no", "-b", batchFile, "-P", port,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "PubkeyAuthentication=no",
		"-o", "ConnectTimeout=10", run.Credentials.SFTP.User+"@"+host)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SSH_ASKPASS="+askpass, "SSH_ASKPASS_REQUIRE=force", "DISPLAY=:0", "ASSAY_TEST_PASSWORD="+run.Credentials.SFTP.Password)
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// dialSFTP logs in as user with password over golang.org/x/crypto/ssh
// and returns a github.com/pkg/sftp client.
func dialSFTP(addr, user, password string) (*sftp.Client, error) {
	conn, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.Password(password)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	c, err := sftp.NewClient(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func mustDial(t testing.TB, addr string, run simtest.Run) *sftp.Client {
	t.Helper()
	c, err := dialSFTP(addr, run.Credentials.SFTP.User, run.Credentials.SFTP.Password)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// statusCode returns the SFTP status code of err, 0 when it holds none.
func statusCode(err error) uint32 {
	var se *sftp.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// tree lists a snapshot's sftp/ folder: "path" for files, "path/" for
// folders, in walk order.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}
