package filesim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/serve"
	"github.com/assaykit/assay/serve/internal/filesim"
	"github.com/assaykit/assay/serve/internal/simfake"
	"github.com/assaykit/assay/serve/internal/simtest"
)

var seed = os.DirFS("testdata/seed")

const criteria = `[
 {"label": "claim dropped", "assertion": {"assert": "sftp-file-present", "path_pattern": "/outbox/**/*.json", "parse_json": true, "fields": [{"key": "claim_id", "expected": "C-7"}]}},
 {"label": "claim for another id", "assertion": {"assert": "sftp-file-present", "path_pattern": "/outbox/**/*.json", "parse_json": true, "fields": [{"key": "claim_id", "expected": "C-8"}]}},
 {"label": "roster kept", "assertion": {"assert": "sftp-file-present", "path": "inbox/roster.csv"}},
 {"label": "temporary file left", "assertion": {"assert": "sftp-file-present", "path": "outbox/tmp.json"}}
]`

// TestOpenSSHClient drives a run's tree with OpenSSH's sftp client,
// completes the run, and judges the snapshot as assay eval would.
func TestOpenSSHClient(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "r1"}`)
	addr := sb.Srv.SFTPAddr()
	if want := "sftp://r1@" + addr + "/"; run.Endpoints["sftp"] != want {
		t.Errorf("sftp endpoint %q, want %q", run.Endpoints["sftp"], want)
	}
	local := t.TempDir()
	os.WriteFile(filepath.Join(local, "claim.json"), []byte(`{"claim_id": "C-7"}`), 0o644)
	out, err := openSSH(t, addr, run, local, strings.Join([]string{
		"ls -1 /",
		"put claim.json /outbox/claim.json",
		"mkdir /outbox/archive",
		"rename /outbox/claim.json /outbox/archive/claim.json",
		"put claim.json /outbox/tmp.json",
		"rm /outbox/tmp.json",
		"get /inbox/roster.csv roster.csv",
		"mkdir /empty",
		"put claim.json /root-level.json",
		"-symlink /welcome.txt /link",
		"-ln /welcome.txt /hardlink",
		"-get /../../etc/passwd passwd",
		"-put claim.json /../../tmp/escape.json",
		"ls -1 /outbox/archive",
	}, "\n")+"\n")
	if err != nil {
		t.Fatalf("sftp: %v\n%s", err, out)
	}
	for _, want := range []string{"/inbox\n/outbox\n/welcome.txt", "/outbox/archive/claim.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("sftp's output lacks %q:\n%s", want, out)
		}
	}
	if roster, _ := os.ReadFile(filepath.Join(local, "roster.csv")); string(roster) != "member_id,name\nM-1,Jane Doe\n" {
		t.Errorf("get roster.csv: %q", roster)
	}
	if _, err := os.Stat(filepath.Join(local, "passwd")); err == nil {
		t.Errorf("get /../../etc/passwd fetched a file")
	}
	// The same tree over HTTP.
	code, body := sb.Do("GET", run.Endpoints["files"]+"?prefix=outbox/", run.Token, "", nil)
	if code != 200 || !strings.Contains(string(body), `{"path":"outbox/archive/claim.json","size":19,"modified":"2026-03-01T09:00:00.000Z"}`) || strings.Contains(string(body), "tmp.json") {
		t.Errorf("GET files?prefix=outbox/: %d %s", code, body)
	}

	snap := sb.Complete(run)
	if got, want := tree(t, filepath.Join(snap, "sftp")), "empty/ inbox/ inbox/claim-100.json inbox/roster.csv outbox/ outbox/README.txt outbox/archive/ outbox/archive/claim.json root-level.json welcome.txt"; got != want {
		t.Errorf("snapshot sftp/:\n got %s\nwant %s", got, want)
	}
	results := simtest.Evaluate(t, snap, criteria)
	for label, pass := range map[string]bool{"claim dropped": true, "claim for another id": false, "roster kept": true, "temporary file left": false} {
		if r := results[label]; r.Passed != pass || r.Status == "error" {
			t.Errorf("%s: %s %s", label, r.Status, r.Details)
		}
	}
	var events []string
	for _, e := range simtest.Events(t, snap, "sftp") {
		s := fmt.Sprintf("%v %v %v %v", e["op"], e["path"], e["size"], e["transport"])
		if e["to"] != nil {
			s += fmt.Sprintf(" to %v", e["to"])
		}
		if e["error"] != nil {
			s += " refused"
		}
		events = append(events, s)
	}
	// The refused links and the write outside the tree (which the server
	// resolved inside it, to a folder that does not exist) are events;
	// the get of a file that does not exist is not (a read that finds
	// nothing).
	want := []string{
		"write outbox/claim.json 19 sftp",
		"mkdir outbox/archive 0 sftp",
		"rename outbox/claim.json 19 sftp to outbox/archive/claim.json",
		"write outbox/tmp.json 19 sftp",
		"remove outbox/tmp.json 19 sftp",
		"mkdir empty 0 sftp",
		"write root-level.json 19 sftp",
		"link link 0 sftp refused",
		"link hardlink 0 sftp refused",
		"write tmp/escape.json 0 sftp refused",
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	// After complete, the run's login fails.
	if out, err := openSSH(t, addr, run, local, "ls /\n"); err == nil {
		t.Errorf("a login after complete worked:\n%s", out)
	}
}

// TestPkgSFTPClient drives a run's tree with github.com/pkg/sftp: every
// operation, the refusals, and a session that complete ends.
func TestPkgSFTPClient(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "p1"}`)
	addr := sb.Srv.SFTPAddr()
	c := mustDial(t, addr, run)

	write := func(name, data string) error {
		f, err := c.Create(name)
		if err != nil {
			return err
		}
		if _, err := f.Write([]byte(data)); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	read := func(name string) (string, error) {
		f, err := c.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		return string(data), err
	}
	if err := write("/at-root.txt", "root is writable"); err != nil {
		t.Fatalf("write at the root: %v", err)
	}
	if err := c.MkdirAll("/a/b/c"); err != nil {
		t.Fatal(err)
	}
	if err := write("/a/b/c/d.txt", "deep"); err != nil {
		t.Fatal(err)
	}
	if got, err := read("/a/b/c/d.txt"); got != "deep" || err != nil {
		t.Errorf("read back %q %v", got, err)
	}
	fi, err := c.Stat("/a/b/c/d.txt")
	if err != nil || fi.Size() != 4 || fi.IsDir() || !fi.ModTime().Equal(simtest.Clock) {
		t.Errorf("stat: %v %v", fi, err)
	}
	if fi, err := c.Lstat("/a"); err != nil || !fi.IsDir() {
		t.Errorf("lstat of a folder: %v %v", fi, err)
	}
	entries, err := c.ReadDir("/")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, " ") != "a at-root.txt inbox outbox welcome.txt" {
		t.Errorf("ReadDir /: %v %v", names, err)
	}
	// A folder moves with its contents; POSIX rename replaces a file,
	// SFTP's own rename does not.
	if err := c.Rename("/a/b", "/moved"); err != nil {
		t.Fatal(err)
	}
	if got, _ := read("/moved/c/d.txt"); got != "deep" {
		t.Errorf("after moving a folder: %q", got)
	}
	write("/x.txt", "x")
	write("/y.txt", "y")
	if err := c.Rename("/x.txt", "/y.txt"); err == nil {
		t.Error("rename onto an existing file worked")
	}
	if err := c.PosixRename("/x.txt", "/y.txt"); err != nil {
		t.Fatal(err)
	}
	if got, _ := read("/y.txt"); got != "x" {
		t.Errorf("after PosixRename, y.txt = %q", got)
	}
	// Appending and resuming keep what is there.
	f, _ := c.OpenFile("/y.txt", os.O_WRONLY|os.O_APPEND)
	f.Write([]byte("yz"))
	f.Close()
	if got, _ := read("/y.txt"); got != "xyz" {
		t.Errorf("after an append, y.txt = %q", got)
	}
	if err := c.Truncate("/y.txt", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := read("/y.txt"); got != "x" {
		t.Errorf("after a truncate, y.txt = %q", got)
	}

	// pkg/sftp's client turns status 2 (no such file) into
	// fs.ErrNotExist; other statuses stay *sftp.StatusError.
	const noSuchFile = 2
	for _, tc := range []struct {
		name string
		err  error
		code uint32 // 2 no such file, 4 failure
	}{
		{"remove a folder that is not empty", c.RemoveDirectory("/moved"), 4},
		{"remove a folder as a file", c.Remove("/outbox"), 4},
		{"rmdir a file", c.RemoveDirectory("/y.txt"), 4},
		{"remove the root", c.RemoveDirectory("/"), 4},
		{"symlink", c.Symlink("/welcome.txt", "/link"), 4},
		{"hard link", c.Link("/welcome.txt", "/hard"), 4},
		{"readlink", func() error { _, err := c.ReadLink("/welcome.txt"); return err }(), 4},
		{"traversal to /etc/passwd", func() error { _, err := read("/../../etc/passwd"); return err }(), 2},
		{"traversal to write", write("../../../tmp/escape.txt", "x"), 2},
		{"a file's parent is a file", write("/welcome.txt/inner", "x"), 4},
		{"a name with a backslash", write(`/a\b`, "x"), 4},
		{"sftp.url at the root", write("/sftp.url", "sftp://evil@example.com/"), 4},
		{"mkdir of an existing folder", c.Mkdir("/outbox"), 4},
		{"open a missing file", func() error { _, err := read("/nope"); return err }(), 2},
		{"a write past 64 MiB", func() error {
			f, err := c.Create("/huge.bin")
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("x"), filesim.MaxFileSize)
			return err
		}(), 4},
	} {
		got := statusCode(tc.err)
		if errors.Is(tc.err, fs.ErrNotExist) {
			got = noSuchFile
		}
		if got != tc.code {
			t.Errorf("%s: %v (status %d), want status %d", tc.name, tc.err, got, tc.code)
		}
	}
	if _, err := c.Stat("/huge.bin"); err == nil {
		t.Error("a failed upload left a file")
	}
	if _, err := os.Stat("/tmp/escape.txt"); err == nil {
		t.Error("a write escaped to the host's /tmp")
	}
	// A second session of another run sees that run's tree only.
	other := sb.NewRun(`{"id": "p2"}`)
	c2 := mustDial(t, addr, other)
	if _, err := c2.Stat("/at-root.txt"); err == nil {
		t.Error("another run sees p1's file")
	}
	if _, err := c2.Stat("/welcome.txt"); err != nil {
		t.Errorf("another run lacks the seed: %v", err)
	}
	// Wrong passwords and unknown users fail.
	if _, err := dialSFTP(addr, run.Credentials.SFTP.User, other.Credentials.SFTP.Password); err == nil {
		t.Error("p1 logged in with p2's password")
	}
	if _, err := dialSFTP(addr, "nobody", run.Credentials.SFTP.Password); err == nil {
		t.Error("an unknown user logged in")
	}
	// An upload open when the run completes is dropped; the session ends.
	open, err := c.Create("/unfinished.txt")
	if err != nil {
		t.Fatal(err)
	}
	open.Write([]byte("never closed"))
	snap := sb.Complete(run)
	if _, err := c.Stat("/"); err == nil {
		t.Error("the session still answers after complete")
	}
	if _, err := os.Stat(filepath.Join(snap, "sftp", "unfinished.txt")); err == nil {
		t.Error("an upload never closed is in the snapshot")
	}
	if data, err := os.ReadFile(filepath.Join(snap, "sftp", "moved", "c", "d.txt")); string(data) != "deep" {
		t.Errorf("snapshot moved/c/d.txt: %q %v", data, err)
	}
	if _, err := dialSFTP(addr, run.Credentials.SFTP.User, run.Credentials.SFTP.Password); err == nil {
		t.Error("a login after complete worked")
	}
	// p2 is unaffected.
	if _, err := c2.Stat("/welcome.txt"); err != nil {
		t.Errorf("p2's session after p1 completed: %v", err)
	}
}

// TestFilesHTTP: the files API over the same tree, its statuses and its
// refusals.
func TestFilesHTTP(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "h1"}`)
	base := run.Endpoints["files"]
	if !strings.HasSuffix(base, "/runs/h1/files") {
		t.Fatalf("files endpoint %q", base)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"PUT", "/outbox/new/claim.json", `{"claim_id":"C-7"}`, 201, `"path":"outbox/new/claim.json","size":18`},
		{"PUT", "/outbox/new/claim.json", `{"claim_id":"C-7"} `, 200, `"size":19`},
		{"GET", "/outbox/new/claim.json", "", 200, `{"claim_id":"C-7"} `},
		{"GET", "/inbox/roster.csv", "", 200, "M-1,Jane Doe"},
		{"GET", "/outbox/none.json", "", 404, "NOT_FOUND"},
		{"GET", "/outbox", "", 404, "NOT_FOUND"},
		{"PUT", "/root.txt", "at the root", 201, `"path":"root.txt"`},
		{"PUT", "/welcome.txt/inner.txt", "x", 409, "CONFLICT"},
		{"PUT", "/outbox", "x", 409, "CONFLICT"},
		{"PUT", "/sftp.url", "sftp://a@b/", 400, "reserved"},
		{"PUT", "/deep/sftp.url", "not at the root: fine", 201, ""},
		{"DELETE", "/outbox/README.txt", "", 204, ""},
		{"DELETE", "/outbox/README.txt", "", 404, "NOT_FOUND"},
		{"DELETE", "/outbox", "", 409, "not empty"},
		{"DELETE", "/deep/sftp.url", "", 204, ""},
		{"DELETE", "/deep", "", 204, ""},
		{"POST", "/x", "", 405, ""},
		{"POST", "", "", 405, ""},
		// Traversal and names the tree cannot hold: 400, nothing escapes.
		{"GET", "/../../../etc/passwd", "", 400, "invalid path"},
		{"GET", "/inbox/../../etc/passwd", "", 400, "invalid path"},
		{"PUT", "/a/./b", "x", 400, "invalid path"},
		{"GET", "//etc/passwd", "", 400, "absolute"},
		{"PUT", "/a//b", "x", 400, "empty segment"},
		{"PUT", "/a/", "x", 400, "empty segment"},
		{"PUT", "/a%00b", "x", 400, "NUL"},
		{"PUT", "/a%5Cb", "x", 400, "backslash"},
		{"PUT", "/%2e%2e/x", "x", 400, "invalid path"},
		{"PUT", "/a%2F..%2Fb", "x", 400, "invalid path"},
		{"PUT", "/" + strings.Repeat("n", 256), "x", 400, "over 255 bytes"},
		{"PUT", "/bad%ffutf8", "x", 400, "not UTF-8"},
	} {
		code, body := sb.Do(tc.method, base+tc.path, run.Token, "", []byte(tc.body))
		if code != tc.code || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s files%s: %d %s, want %d %q", tc.method, tc.path, code, body, tc.code, tc.want)
		}
	}
	// The listing: regular files only, byte order, prefix as a string
	// prefix.
	code, body := sb.Do("GET", base, run.Token, "", nil)
	var list struct {
		Data []struct {
			Path     string `json:"path"`
			Size     int64  `json:"size"`
			Modified string `json:"modified"`
		} `json:"data"`
	}
	json.Unmarshal(body, &list)
	var paths []string
	for _, e := range list.Data {
		paths = append(paths, e.Path)
	}
	if code != 200 || strings.Join(paths, " ") != "inbox/claim-100.json inbox/roster.csv outbox/new/claim.json root.txt welcome.txt" || list.Data[0].Modified != "2026-03-01T09:00:00.000Z" {
		t.Errorf("GET files: %d %s", code, body)
	}
	// The hosted platform's inbox listing and file paths.
	code, body = sb.Do("GET", sb.Srv.URL()+"/v1/benchmark-runs/h1/files/inbox", run.Token, "", nil)
	if code != 200 || !strings.Contains(string(body), "inbox/roster.csv") || strings.Contains(string(body), "welcome") {
		t.Errorf("hosted inbox listing: %d %s", code, body)
	}
	if code, body := sb.Do("GET", sb.Srv.URL()+"/v1/benchmark-runs/h1/files/root.txt", run.Token, "", nil); code != 200 || string(body) != "at the root" {
		t.Errorf("hosted file path: %d %s", code, body)
	}
	// An upload may be 64 MiB, as over SFTP; one byte more is 413.
	if code, _ := sb.Do("PUT", base+"/big.bin", run.Token, "", make([]byte, 16<<20+1)); code != 201 {
		t.Errorf("PUT of 16 MiB and a byte: %d, want 201", code)
	}
	if code, _ := sb.Do("PUT", base+"/bigger.bin", run.Token, "", make([]byte, 64<<20+1)); code != 413 {
		t.Errorf("PUT over 64 MiB: %d, want 413", code)
	}
	// What HTTP wrote, SFTP reads.
	c := mustDial(t, sb.Srv.SFTPAddr(), run)
	if f, err := c.Open("/outbox/new/claim.json"); err != nil {
		t.Errorf("SFTP reading an HTTP write: %v", err)
	} else {
		data, _ := io.ReadAll(f)
		f.Close()
		if string(data) != `{"claim_id":"C-7"} ` {
			t.Errorf("SFTP read %q", data)
		}
	}
	snap := sb.Complete(run)
	results := simtest.Evaluate(t, snap, criteria)
	if !results["claim dropped"].Passed || results["temporary file left"].Passed {
		t.Errorf("results: %+v", results)
	}
	// Every change is an event; so is every refused request (bad paths
	// included), with its status and error, but not a read that found
	// nothing.
	events := simtest.Events(t, snap, "sftp")
	var got []string
	for _, e := range events {
		ev := fmt.Sprintf("%v %q %v %v", e["op"], e["path"], e["size"], e["transport"])
		if e["status"] != nil || e["error"] != nil {
			ev += fmt.Sprintf(" %v %v", e["status"], e["error"] != "")
		}
		got = append(got, ev)
	}
	want := []string{
		`mkdir "outbox/new" 0 http`, `write "outbox/new/claim.json" 18 http`, `write "outbox/new/claim.json" 19 http`,
		`write "root.txt" 11 http`, `write "welcome.txt/inner.txt" 1 http 409 true`, `write "outbox" 1 http 409 true`,
		`write "sftp.url" 11 http 400 true`, `mkdir "deep" 0 http`, `write "deep/sftp.url" 21 http`,
		`remove "outbox/README.txt" 16 http`, `remove "outbox/README.txt" 0 http 404 true`, `remove "outbox" 0 http 409 true`,
		`remove "deep/sftp.url" 21 http`, `remove "deep" 0 http`,
		`write "x" 0 http 405 true`, `write "" 0 http 405 true`,
		`read "../../../etc/passwd" 0 http 400 true`, `read "inbox/../../etc/passwd" 0 http 400 true`, `write "a/./b" 0 http 400 true`,
		`read "/etc/passwd" 0 http 400 true`, `write "a//b" 0 http 400 true`, `write "a/" 0 http 400 true`,
		`write "a\x00b" 0 http 400 true`, `write "a\\b" 0 http 400 true`, `write "../x" 0 http 400 true`, `write "a/../b" 0 http 400 true`,
		`write "` + strings.Repeat("n", 256) + `" 0 http 400 true`, "write \"bad\ufffdutf8\" 0 http 400 true",
		`write "big.bin" 1.6777217e+07 http`, `write "bigger.bin" 0 http 413 true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code, _ := sb.Do("GET", base, run.Token, "", nil); code != 409 {
		t.Errorf("GET files after complete: %d, want 409", code)
	}
}

// TestBudgets: past the sandbox's memory budget a write is refused (507
// over HTTP, a failure over SFTP) and a removal gives the bytes back.
func TestBudgets(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{MaxMemory: 64 << 10})
	run := sb.NewRun(`{"id": "b1"}`)
	base := run.Endpoints["files"]
	chunk := bytes.Repeat([]byte("z"), 24<<10)
	for i, want := range []int{201, 201, 507} {
		if code, body := sb.Do("PUT", fmt.Sprintf("%s/f%d", base, i), run.Token, "", chunk); code != want {
			t.Fatalf("PUT %d: %d %s, want %d", i, code, body, want)
		}
	}
	c := mustDial(t, sb.Srv.SFTPAddr(), run)
	f, err := c.Create("/over.bin")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(chunk); err == nil {
		if err = f.Close(); err == nil {
			t.Error("an SFTP upload past the budget succeeded")
		}
	} else {
		f.Close()
	}
	if code, _ := sb.Do("DELETE", base+"/f0", run.Token, "", nil); code != 204 {
		t.Fatal("DELETE")
	}
	if code, body := sb.Do("PUT", base+"/f2", run.Token, "", chunk); code != 201 {
		t.Errorf("PUT after a removal gave bytes back: %d %s", code, body)
	}
}

// TestHostileClients: garbage instead of a banner, a client that never
// finishes the handshake, and a flood of connections harm nobody: the
// listener keeps serving.
func TestHostileClients(t *testing.T) {
	defer filesim.SetHandshakeTimeout(300 * time.Millisecond)()
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "hostile"}`)
	addr := sb.Srv.SFTPAddr()
	// Garbage instead of the SSH banner: the connection is closed.
	g, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	g.Write(bytes.Repeat([]byte("GET / HTTP/1.1\r\n\x00\xff"), 100))
	g.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(g); isTimeout(err) {
		t.Errorf("garbage: the connection was not closed: %v", err)
	}
	g.Close()
	// A client that sends its banner and stops: closed at the deadline.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	silent.Write([]byte("SSH-2.0-silent\r\n"))
	silent.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := io.ReadAll(silent); isTimeout(err) {
		t.Errorf("silent client: the connection was not closed: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the silent client was closed after %v", d)
	}
	silent.Close()
	// Many idle connections at once, then a real client still gets in.
	var idle []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// A login as this run's user with another run's password fails, and
	// is recorded on the run it aimed at, not on the other.
	other := sb.NewRun(`{"id": "other"}`)
	if c, err := dialSFTP(addr, run.Credentials.SFTP.User, other.Credentials.SFTP.Password); err == nil {
		c.Close()
		t.Fatal("a login with another run's password worked")
	}
	c := mustDial(t, addr, run)
	if _, err := c.Stat("/welcome.txt"); err != nil {
		t.Errorf("after hostile clients: %v", err)
	}
	for _, i := range idle {
		i.Close()
	}
	// Hostile requests of a logged-in client fail, each an event.
	for name, err := range map[string]error{
		"symlink":           c.Symlink("/welcome.txt", "/link"),
		"mkdir of a folder": c.Mkdir("/inbox"),
		"remove a folder":   c.Remove("/outbox"),
		"rename a ghost":    c.Rename("/ghost", "/x"),
		"write a folder":    c.Truncate("/inbox", 0),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	c.Close()
	_, body := sb.Do("GET", run.Endpoints["events"], run.Token, "", nil)
	for _, want := range []string{
		`"op":"login","path":"","size":0,"transport":"sftp","error":`,
		`"op":"link","path":"link","size":0,"transport":"sftp","error":`,
		`"op":"mkdir","path":"inbox","size":0,"transport":"sftp","error":`,
		`"op":"remove","path":"outbox","size":0,"transport":"sftp","error":`,
		`"op":"rename","path":"ghost","size":0,"transport":"sftp","error":`,
		`"op":"write","path":"inbox","size":0,"transport":"sftp","error":`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("events lack %s:\n%s", want, body)
		}
	}
	if strings.Contains(string(body), other.Credentials.SFTP.Password) {
		t.Error("an event holds the password")
	}
	if _, body := sb.Do("GET", other.Endpoints["events"], other.Token, "", nil); strings.Contains(string(body), "sftp_op") {
		t.Errorf("the other run recorded the login: %s", body)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// TestConnectionCap: at the cap a new connection waits for a slot
// instead of being refused.
func TestConnectionCap(t *testing.T) {
	defer filesim.SetMaxConns(1)()
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "cap"}`)
	hog, err := net.Dial("tcp", sb.Srv.SFTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the listener take it
	done := make(chan error, 1)
	go func() {
		c, err := dialSFTP(sb.Srv.SFTPAddr(), run.Credentials.SFTP.User, run.Credentials.SFTP.Password)
		if err == nil {
			_, err = c.Stat("/welcome.txt")
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a connection past the cap was served (or refused) at once: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	hog.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the queued connection: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the queued connection was not served after a slot freed")
	}
}

// flakyListener fails its first accepts as a server out of descriptors
// would, then accepts.
type flakyListener struct {
	net.Listener
	fails []error
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if len(f.fails) > 0 {
		err := f.fails[0]
		f.fails = f.fails[1:]
		return nil, err
	}
	return f.Listener.Accept()
}

// TestAcceptErrors: the listener keeps serving when accept fails for lack
// of descriptors, or because a connection was aborted.
func TestAcceptErrors(t *testing.T) {
	s, err := filesim.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	flaky := &flakyListener{Listener: ln, fails: []error{
		&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)},
		&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.ENFILE)},
		&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.ECONNABORTED)},
	}}
	addr, err := filesim.ListenOn(s, flaky)
	if err != nil {
		t.Fatal(err)
	}
	defer s.(interface{ Close() error }).Close()
	rs, err := s.NewRun(simfake.New(simfake.Options{ID: "fake", User: "fake", Password: "secret"}))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Stop()
	c, err := dialSFTP(addr, "fake", "secret")
	if err != nil {
		t.Fatalf("after accept errors: %v", err)
	}
	defer c.Close()
	if _, err := c.Stat("/welcome.txt"); err != nil {
		t.Error(err)
	}
}

// TestConcurrentWriters: SFTP sessions and HTTP clients writing into one
// run at once lose nothing, and every write is an event.
func TestConcurrentWriters(t *testing.T) {
	sb := simtest.Start(t, seed, serve.Options{})
	run := sb.NewRun(`{"id": "many"}`)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			c, err := dialSFTP(sb.Srv.SFTPAddr(), run.Credentials.SFTP.User, run.Credentials.SFTP.Password)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for i := range 20 {
				f, err := c.Create(fmt.Sprintf("/outbox/s%d-%d", w, i))
				if err != nil {
					t.Error(err)
					return
				}
				f.Write([]byte("sftp"))
				if err := f.Close(); err != nil {
					t.Error(err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 20 {
				if code, body := sb.Do("PUT", fmt.Sprintf("%s/outbox/h%d-%d", run.Endpoints["files"], w, i), run.Token, "", []byte("http")); code != 201 {
					t.Errorf("PUT: %d %s", code, body)
				}
			}
		}()
	}
	wg.Wait()
	snap := sb.Complete(run)
	entries, _ := os.ReadDir(filepath.Join(snap, "sftp", "outbox"))
	if len(entries) != 161 { // README.txt and 160 writes
		t.Errorf("outbox holds %d entries, want 161", len(entries))
	}
	if events := simtest.Events(t, snap, "sftp"); len(events) != 160 {
		t.Errorf("%d events, want 160", len(events))
	}
}
