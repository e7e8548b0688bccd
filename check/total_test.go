package check_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/check"
)

// Reads through a CapTotal file system count against one total: each name
// once, however often it is read; a file that would not fit is refused
// with an error naming the cap, before it is read.
func TestCapTotal(t *testing.T) {
	fsys := check.CapTotal(fstest.MapFS{
		"a.json":     {Data: []byte(strings.Repeat("a", 40))},
		"b.json":     {Data: []byte(strings.Repeat("b", 40))},
		"c.json":     {Data: []byte(strings.Repeat("c", 40))},
		"small.json": {Data: []byte(strings.Repeat("s", 20))},
		"sub/d.json": {Data: []byte(strings.Repeat("d", 10))},
	}, 100)
	sub, err := fs.Sub(fsys, "sub")
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		fsys    fs.FS
		name    string
		wantErr string
	}{
		{fsys, "a.json", ""},
		{fsys, "a.json", ""}, // again: counted once
		{fsys, "b.json", ""}, // 80 bytes
		{fsys, "c.json", "c.json: with it its source would read 120 bytes, past the 100-byte cap on what one evidence source reads in all"},
		{sub, "d.json", ""}, // 90 bytes: a folder shares the budget
		{fsys, "small.json", "small.json: with it its source would read 110 bytes"},
		{fsys, "b.json", ""}, // still readable
	} {
		data, err := check.ReadFile(step.fsys, step.name, 0)
		if step.wantErr == "" {
			if err != nil || len(data) == 0 {
				t.Errorf("step %d: %s: %v", i, step.name, err)
			}
			continue
		}
		var fe *check.FileError
		if !errors.Is(err, check.ErrTotalTooLarge) || errors.Is(err, check.ErrTooLarge) || !errors.As(err, &fe) ||
			fe.Limit != 100 || !strings.HasPrefix(err.Error(), step.wantErr) {
			t.Errorf("step %d: %s: %v; want an error starting %q", i, step.name, err, step.wantErr)
		}
	}
}

// 60 names (hard links) of one file are 60 files to read: the source stops
// at the cap, having read no more than it, and quickly.
func TestCapTotalHardLinks(t *testing.T) {
	dir := t.TempDir()
	const size = 1 << 20
	must(t, os.WriteFile(filepath.Join(dir, "000.hl7"), make([]byte, size), 0o644))
	for i := 1; i < 60; i++ {
		must(t, os.Link(filepath.Join(dir, "000.hl7"), filepath.Join(dir, fmt.Sprintf("%03d.hl7", i))))
	}
	fsys := check.CapTotal(check.DirFS(dir), 4*size+size/2)
	start := time.Now()
	var read int64
	var err error
	for i := 0; i < 60 && err == nil; i++ {
		var data []byte
		data, err = check.ReadFile(fsys, fmt.Sprintf("%03d.hl7", i), 0)
		read += int64(len(data))
	}
	if !errors.Is(err, check.ErrTotalTooLarge) || !strings.HasPrefix(err.Error(), "004.hl7: ") {
		t.Fatalf("after %d bytes: %v; want the fifth name refused", read, err)
	}
	if read != 4*size {
		t.Errorf("read %d bytes, want %d", read, 4*size)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// growing is a file system whose one file says it is small and then reads
// long, as a file that grows while it is read does.
type growing struct{ fstest.MapFS }

type growingFile struct {
	fs.File
	left int
}

func (g growing) Open(name string) (fs.File, error) {
	f, err := g.MapFS.Open(name)
	if err != nil || name == "." {
		return f, err
	}
	return &growingFile{File: f, left: 1000}, nil
}

func (f *growingFile) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), f.left, 7)
	f.left -= n
	return n, nil
}

// What is read counts, not what the size said: a file that grows while it
// is read is stopped at the cap. Readers other than ReadFile are bounded
// too.
func TestCapTotalCountsWhatIsRead(t *testing.T) {
	fsys := check.CapTotal(growing{fstest.MapFS{"x": {Data: []byte("1")}}}, 100)
	data, err := fs.ReadFile(fsys, "x")
	if !errors.Is(err, check.ErrTotalTooLarge) || len(data) > 107 {
		t.Fatalf("read %d bytes, %v", len(data), err)
	}
	if _, err := check.ReadFile(fsys, "x", 0); !errors.Is(err, check.ErrTotalTooLarge) {
		t.Fatalf("ReadFile: %v", err)
	}
}

// A total <= 0 keeps a cap the file system has, and gives one to a file
// system without; a positive one adds a cap.
func TestCapTotalKeepsCap(t *testing.T) {
	base := fstest.MapFS{"a": {Data: make([]byte, 50)}}
	capped := check.CapTotal(base, 10)
	if check.CapTotal(capped, 0) != capped {
		t.Error("CapTotal(capped, 0) is a new file system")
	}
	sub, _ := fs.Sub(check.CapTotal(fstest.MapFS{"d/a": {Data: make([]byte, 50)}}, 10), "d")
	if check.CapTotal(sub, 0) != sub {
		t.Error("CapTotal of a folder of a capped file system is a new file system")
	}
	if _, err := check.ReadFile(check.CapTotal(capped, 1000), "a", 0); !errors.Is(err, check.ErrTotalTooLarge) {
		t.Errorf("a second cap lifted the first: %v", err)
	}
	if _, err := check.ReadFile(check.CapTotal(base, 0), "a", 0); err != nil {
		t.Errorf("the default cap: %v", err)
	}
}

// A capped DirFS keeps what DirFS guarantees: a FIFO does not block, a link
// out of the folder is not followed, listings and links read as before.
func TestCapTotalDirFS(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "ok"), []byte("ok"), 0o644))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "out")))
	must(t, os.Symlink("ok", filepath.Join(dir, "in")))
	fsys := check.CapTotal(check.DirFS(dir), 0)
	done := make(chan error, 1)
	go func() {
		_, err := check.ReadFile(fsys, "fifo", 0)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, check.ErrNotRegular) {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a FIFO blocks")
	}
	if _, err := check.ReadFile(fsys, "out", 0); err == nil {
		t.Error("a link out of the folder was followed")
	}
	if data, err := check.ReadFile(fsys, "in", 0); err != nil || string(data) != "ok" {
		t.Errorf("in: %q %v", data, err)
	}
	if target, err := fs.ReadLink(fsys, "in"); err != nil || target != "ok" {
		t.Errorf("ReadLink: %q %v", target, err)
	}
	if fi, err := fs.Lstat(fsys, "in"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat: %v %v", fi, err)
	}
	if list, err := fs.ReadDir(fsys, "."); err != nil || len(list) != 4 || list[0].Name() != "fifo" {
		t.Errorf("ReadDir: %v %v", list, err)
	}
}
