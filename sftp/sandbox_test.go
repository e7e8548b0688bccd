package sftp_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
	"github.com/assaykit/assay/sftp/sftptest"
	"golang.org/x/crypto/ssh"
)

const sftpCriteria = `[
 {"label": "claim uploaded", "assertion": {"assert": "sftp-file-present", "path_pattern": "/outbox/*.json", "parse_json": true,
   "fields": [{"key": "claim.id", "expected": "C-1"}, {"path": "patient.mrn", "expected": "12345"}]}},
 {"label": "no leak", "assertion": {"assert": "sftp-file-present", "path": "outbox/state.json", "parse_json": true}}
]`

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func evalSFTP(t *testing.T, env *assert.Env) []assert.CriterionResult {
	t.Helper()
	criteria, err := assert.ParseCriteria([]byte(sftpCriteria))
	if err != nil {
		t.Fatal(err)
	}
	res, err := assert.Evaluate(context.Background(), criteria, env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Criteria
}

// TestSFTPFolder: the sftp/ folder is the tree; a link from it into the
// rest of the snapshot leads out of the tree and is not a candidate.
func TestSFTPFolder(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"sftp/outbox/claim.json": `{"claim.id": "C-1", "patient": {"mrn": "12345"}}`,
		"portal/state.json":      `{"secret": true}`,
	})
	if err := os.Symlink("../../portal/state.json", filepath.Join(dir, "sftp", "outbox", "state.json")); err != nil {
		t.Fatal(err)
	}
	env, err := sandbox.Load(dir, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := evalSFTP(t, env)
	if got[0].Status != assert.StatusPassed {
		t.Errorf("claim: %s: %s", got[0].Status, got[0].Details)
	}
	if got[1].Status != assert.StatusFailed || !strings.Contains(got[1].Details, "leading out of the tree") {
		t.Errorf("link into the snapshot: %s: %s", got[1].Status, got[1].Details)
	}
}

// TestSFTPLoadFS: a snapshot that is not on disk.
func TestSFTPLoadFS(t *testing.T) {
	env := sandbox.LoadFS(fstest.MapFS{
		"sftp/outbox/claim.json": {Data: []byte(`{"claim.id": "C-1", "patient": {"mrn": "99"}}`)},
	}, sandbox.Options{})
	got := evalSFTP(t, env)
	if got[0].Status != assert.StatusFailed || got[0].Score != 0.5 {
		t.Errorf("claim: %s %v: %s", got[0].Status, got[0].Score, got[0].Details)
	}
	if got[1].Status != assert.StatusFailed || !strings.Contains(got[1].Details, "does not exist") {
		t.Errorf("missing: %s: %s", got[1].Status, got[1].Details)
	}
}

// TestSFTPURL: sftp/sftp.url names a live endpoint (the in-process
// server), with the key and known_hosts from the environment.
func TestSFTPURL(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sftptest.NewServer(sftptest.Options{
		Files:          map[string][]byte{"upload/outbox/claim.json": []byte(`{"claim.id": "C-1", "patient": {"mrn": "12345"}}`)},
		AuthorizedKeys: []ssh.PublicKey{signer.PublicKey()},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tmp := t.TempDir()
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(tmp, "id_ed25519")
	kh := filepath.Join(tmp, "known_hosts")
	os.WriteFile(key, pem.EncodeToMemory(block), 0o600)
	if err := srv.WriteKnownHosts(kh); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ASSAY_SFTP_KEY", key)
	t.Setenv("ASSAY_SFTP_KNOWN_HOSTS", kh)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"sftp/sftp.url": "sftp://" + srv.User() + "@" + srv.Addr() + "/upload\n"})
	env, err := sandbox.Load(dir, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := evalSFTP(t, env)
	if got[0].Status != assert.StatusPassed {
		t.Errorf("claim: %s: %s", got[0].Status, got[0].Details)
	}
	if got[1].Status != assert.StatusFailed {
		t.Errorf("missing: %s: %s", got[1].Status, got[1].Details)
	}

	// A wrong known_hosts: every check is an error, saying why.
	os.WriteFile(kh, []byte("["+strings.Replace(srv.Addr(), ":", "]:", 1)+" "+string(ssh.MarshalAuthorizedKey(signer.PublicKey()))), 0o600)
	env, _ = sandbox.Load(dir, sandbox.Options{})
	for _, c := range evalSFTP(t, env) {
		if c.Status != assert.StatusError || !strings.Contains(c.Details, "REMOTE HOST KEY MISMATCH") {
			t.Errorf("%s: %s: %s", c.Label, c.Status, c.Details)
		}
	}
	// A URL that is not one.
	writeTree(t, dir, map[string]string{"sftp/sftp.url": "http://example.com/"})
	env, _ = sandbox.Load(dir, sandbox.Options{})
	for _, c := range evalSFTP(t, env) {
		if c.Status != assert.StatusError || !strings.Contains(c.Details, "scheme must be sftp") {
			t.Errorf("%s: %s: %s", c.Label, c.Status, c.Details)
		}
	}
}
