package sftp_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/sshsftp"
	"github.com/assaykit/assay/sftp"
	pkgsftp "github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// echoServer answers every request about the tree with the client's
// password in it: in its error messages, in a file's name and in a link's
// target, as a hostile or careless server may.
type echoServer struct{ password string }

func (e echoServer) refuse(what string) error {
	return fmt.Errorf("%s refused for password %s", what, e.password)
}

func (e echoServer) Filelist(r *pkgsftp.Request) (pkgsftp.ListerAt, error) {
	switch {
	case r.Method == "Stat" && (r.Filepath == "/" || r.Filepath == "/names"):
		return sshsftp.Lister{dirInfo(r.Filepath)}, nil
	case r.Method == "List" && r.Filepath == "/":
		return sshsftp.Lister{dirInfo("names"), dirInfo("refused")}, nil
	case r.Method == "List" && r.Filepath == "/names":
		return sshsftp.Lister{synthetic{"f-" + e.password}, synthetic{"file"}, linkInfo("link")}, nil
	case r.Method == "Readlink" && r.Filepath == "/names/link":
		return sshsftp.Lister{synthetic{"/elsewhere/" + e.password}}, nil
	case (r.Method == "Stat" || r.Method == "Lstat") && r.Filepath == "/names/file":
		return sshsftp.Lister{synthetic{"file"}}, nil
	case strings.HasPrefix(r.Filepath, "/refused"):
		return nil, e.refuse(r.Method + " " + r.Filepath)
	}
	return nil, fs.ErrNotExist
}

func (e echoServer) Fileread(r *pkgsftp.Request) (io.ReaderAt, error) {
	return nil, e.refuse("reading " + r.Filepath)
}

type linkInfo string

func (l linkInfo) Name() string       { return string(l) }
func (l linkInfo) Size() int64        { return 0 }
func (l linkInfo) Mode() fs.FileMode  { return fs.ModeSymlink | 0o777 }
func (l linkInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (l linkInfo) IsDir() bool        { return false }
func (l linkInfo) Sys() any           { return nil }

// An Endpoint scrubs the password it logged in with from everything it
// reports of a server that echoes it: errors of Dial, Walk, Stat and
// ReadFile, names and link targets (DESIGN.md section 12 rule 18).
func TestEndpointRedactsPassword(t *testing.T) {
	const password = "hunter2-SECRETPW"
	handlers := pkgsftp.InMemHandler()
	handlers.FileList = echoServer{password}
	handlers.FileGet = echoServer{password}
	cfg := serveHandlers(t, handlers)
	cfg.Auth = []ssh.AuthMethod{sftp.PasswordAuth(password)}
	ctx := context.Background()

	// The root folder cannot be reached: Dial's error quotes the server.
	bad := cfg
	bad.Root = "/refused"
	if _, err := sftp.Dial(ctx, bad); err == nil || !strings.Contains(err.Error(), "refused for password") {
		t.Fatalf("Dial of a refused root: %v, want the server's refusal", err)
	} else {
		noPassword(t, "Dial", err.Error(), password)
	}

	ep, err := sftp.Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var seen []string
	report := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "refused for password") {
			t.Errorf("%s: %v, want the server's refusal", what, err)
			return
		}
		seen = append(seen, what+": "+err.Error())
	}
	_, err = ep.Walk(ctx, "refused")
	report("Walk", err)
	_, err = ep.Stat(ctx, "refused/x")
	report("Stat", err)
	_, err = ep.ReadFile(ctx, "names/file", 0)
	report("ReadFile", err)
	entries, err := ep.Walk(ctx, "names")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("Walk names: %d entries, want 3: %+v", len(entries), entries)
	}
	for _, en := range entries {
		seen = append(seen, fmt.Sprintf("entry %+v", en))
	}
	link, err := ep.Stat(ctx, "names/link")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(link.Problem, "(to /elsewhere/") {
		t.Errorf("the link's problem %q does not say where it leads", link.Problem)
	}
	seen = append(seen, fmt.Sprintf("Stat %+v", link), fmt.Sprintf("%+v %#v", cfg, cfg.Auth))
	for _, s := range seen {
		noPassword(t, "", s, password)
	}
	if !strings.Contains(strings.Join(seen, "\n"), "[REDACTED]") {
		t.Errorf("nothing was redacted:\n%s", strings.Join(seen, "\n"))
	}
}

func noPassword(t *testing.T, what, text, password string) {
	t.Helper()
	if strings.Contains(text, password) {
		t.Errorf("%s reports the password: %s", what, text)
	}
}

// A URL that cannot be parsed is not quoted whole: it holds a password.
func TestParseURLErrorHidesPassword(t *testing.T) {
	for _, raw := range []string{"sftp://u:hunter2-SECRETPW@ho st/", "sftp://u:hunter2-SECRETPW@host:99x/"} {
		_, err := sftp.ParseURL(raw)
		if err == nil {
			t.Fatalf("ParseURL(%q) succeeded", raw)
		}
		noPassword(t, "ParseURL", err.Error(), "hunter2-SECRETPW")
	}
}
