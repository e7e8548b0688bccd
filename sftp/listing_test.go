package sftp_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/sshsftp"
	"github.com/assaykit/assay/sftp"
	"github.com/assaykit/assay/sftp/sftptest"
	pkgsftp "github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// bigFolder lists /big as names (of nameLen bytes) without end, or up to
// total; listed counts the entries handed out.
type bigFolder struct {
	total   int64 // 0: no end
	nameLen int
	listed  atomic.Int64
}

type synthetic struct {
	name string
}

func (s synthetic) Name() string       { return s.name }
func (s synthetic) Size() int64        { return 1 }
func (s synthetic) Mode() fs.FileMode  { return 0o644 }
func (s synthetic) ModTime() time.Time { return time.Unix(0, 0) }
func (s synthetic) IsDir() bool        { return false }
func (s synthetic) Sys() any           { return nil }

type bigLister struct{ f *bigFolder }

func (l bigLister) ListAt(out []fs.FileInfo, off int64) (int, error) {
	n := len(out)
	if l.f.total > 0 {
		n = int(min(int64(n), max(l.f.total-off, 0)))
	}
	pad := strings.Repeat("x", max(l.f.nameLen-10, 0))
	for i := range n {
		out[i] = synthetic{fmt.Sprintf("%s%010d", pad, off+int64(i))}
	}
	l.f.listed.Add(int64(n))
	if n < len(out) {
		return n, io.EOF
	}
	return n, nil
}

func (f *bigFolder) Filelist(r *pkgsftp.Request) (pkgsftp.ListerAt, error) {
	switch {
	case r.Method == "List" && r.Filepath == "/big":
		return bigLister{f}, nil
	case r.Method == "Stat" && r.Filepath == "/big", r.Method == "Stat" && r.Filepath == "/":
		return sshsftp.Lister{dirInfo(r.Filepath)}, nil
	}
	return nil, fs.ErrNotExist
}

type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (d dirInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// serveBig runs an SSH/SFTP server of folder on 127.0.0.1 and returns an
// Endpoint config that reaches it.
func serveBig(t testing.TB, folder *bigFolder) sftp.Config {
	t.Helper()
	handlers := pkgsftp.InMemHandler()
	handlers.FileList = folder
	return serveHandlers(t, handlers)
}

// serveHandlers runs an SSH/SFTP server of handlers on 127.0.0.1 that
// takes any password, and returns an Endpoint config that reaches it with
// the password "p".
func serveHandlers(t testing.TB, handlers pkgsftp.Handlers) sftp.Config {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, chans, reqs, err := ssh.NewServerConn(c, cfg)
				if err != nil {
					return
				}
				sshsftp.ServeSessions(chans, reqs, handlers)
			}()
		}
	}()
	return sftp.Config{Addr: ln.Addr().String(), User: "u", Root: "/", Auth: []ssh.AuthMethod{sftp.PasswordAuth("p")},
		InsecureSkipHostKeyCheck: true, Timeout: 5 * time.Second}
}

// A server that lists a folder without end is read only up to the walk's
// limits, page by page: an error that names the limit, with about one page
// read past it, not the whole folder first (issue 25, item 4).
func TestListingStopsAtLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		folder *bigFolder
		limits sftp.Limits
		want   string
		most   int64 // entries the server may have handed out
	}{
		{"entries", &bigFolder{}, sftp.Limits{MaxEntries: 5000}, "more than 5000 entries", 5000 + 1000},
		{"name bytes", &bigFolder{nameLen: 200}, sftp.Limits{MaxNameBytes: 1 << 20}, "names of more than 1048576 bytes in all", 1<<20/200 + 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := serveBig(t, tc.folder)
			cfg.Limits = tc.limits
			ep, err := sftp.Dial(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer ep.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err = ep.Walk(ctx, "big")
			if !errors.Is(err, sftp.ErrTreeTooLarge) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want ErrTreeTooLarge: %s", err, tc.want)
			}
			// Let the server's answers in flight arrive before counting.
			time.Sleep(50 * time.Millisecond)
			if n := tc.folder.listed.Load(); n > tc.most {
				t.Errorf("the server handed out %d entries, want at most %d", n, tc.most)
			}
		})
	}
}

// With the default limits a folder of 2 million names stops at 500,000
// entries, the heap staying far below what the whole listing took (1 to
// 3.5 GB before).
func TestListingDefaultLimitHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("lists 500,000 names")
	}
	folder := &bigFolder{total: 2_000_000, nameLen: 40}
	cfg := serveBig(t, folder)
	ep, err := sftp.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak.Store(max(peak.Load(), ms.HeapInuse))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	_, err = ep.Walk(context.Background(), "big")
	close(stop)
	<-sampled
	if !errors.Is(err, sftp.ErrTreeTooLarge) || !strings.Contains(err.Error(), "more than 500000 entries") {
		t.Fatalf("got %v", err)
	}
	if p := peak.Load(); p > 512<<20 {
		t.Errorf("the heap reached %d MiB", p>>20)
	}
	t.Logf("stopped after %d entries in %s; peak heap %d MiB", folder.listed.Load(), time.Since(start), peak.Load()>>20)
}

// A live endpoint reads at most MaxTotalSize bytes of files in one
// evaluation, each file once however many checks read it; past it the
// checks that need a file are errors that name the cap (rule 17). Refresh
// starts a new evaluation.
func TestEndpointTotal(t *testing.T) {
	srv := memServer(t, sftptest.Options{Files: map[string][]byte{
		"a.json": []byte(`{"n": "` + strings.Repeat("a", 32) + `"}`),
		"b.json": []byte(`{"n": "` + strings.Repeat("b", 32) + `"}`),
		"c.json": []byte(`{"n": "` + strings.Repeat("c", 32) + `"}`),
	}})
	cfg := srv.Config(writeFile(t, string(srv.KnownHosts())))
	cfg.MaxTotalSize = 100
	ep, err := sftp.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	ctx := context.Background()
	for i, step := range []struct {
		name string
		fail bool
	}{{"a.json", false}, {"b.json", false}, {"a.json", false}, {"c.json", true}} {
		_, err := ep.ReadFile(ctx, step.name, 0)
		if step.fail != errors.Is(err, check.ErrTotalTooLarge) || (!step.fail && err != nil) {
			t.Fatalf("step %d: %s: %v", i, step.name, err)
		}
		if step.fail && !strings.HasPrefix(err.Error(), "c.json: with it its source would read 123 bytes, past the 100-byte cap") {
			t.Errorf("step %d: %v", i, err)
		}
	}
	env := assert.NewEnv()
	sftp.Attach(env, ep)
	r := evaluate(t, env, `{"assert": "sftp-file-present", "path_pattern": "*.json", "parse_json": true, "fields": [{"path": "n", "expected": "x"}]}`)
	if r.Status != assert.StatusError || !strings.Contains(r.Details, "cap on what one evidence source reads in all") {
		t.Errorf("%s: %s", r.Status, r.Details)
	}
	ep.Refresh()
	if _, err := ep.ReadFile(ctx, "c.json", 0); err != nil {
		t.Errorf("after Refresh: %v", err)
	}
}
