package check_test

import (
	"errors"
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

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.json", `{"a": 1}`)
	write("big.json", strings.Repeat("x", 100))
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("root:x:0:0"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out.json")))
	must(t, os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(dir, "relout.json")))
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")))
	must(t, os.Symlink("ok.json", filepath.Join(dir, "in.json")))

	fsys := check.DirFS(dir)
	for _, tc := range []struct {
		name    string
		limit   int64
		want    string
		wantErr error
		errText string
	}{
		{name: "ok.json", want: `{"a": 1}`},
		{name: "in.json", want: `{"a": 1}`}, // a link that stays inside is followed
		{name: "big.json", limit: 10, wantErr: check.ErrTooLarge, errText: "100 bytes is over the 10-byte cap"},
		{name: "big.json", limit: 100, want: strings.Repeat("x", 100)},
		{name: "fifo.json", wantErr: check.ErrNotRegular, errText: "a FIFO"},
		{name: "folder.json", wantErr: check.ErrNotRegular, errText: "a folder"},
		{name: "out.json", errText: "out.json"},
		{name: "relout.json", errText: "relout.json"},
		{name: "zero.json", errText: "zero.json"},
		{name: "missing.json", wantErr: fs.ErrNotExist},
		{name: "../escape", wantErr: fs.ErrInvalid},
	} {
		done := make(chan struct{})
		var got []byte
		var err error
		go func() {
			defer close(done)
			got, err = check.ReadFile(fsys, tc.name, tc.limit)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile hangs", tc.name)
		}
		if tc.want != "" {
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: %q, %v", tc.name, got, err)
			}
			continue
		}
		var fe *check.FileError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err = %v (%T), want a *FileError", tc.name, err, err)
			continue
		}
		if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.wantErr)
		}
		if !strings.Contains(err.Error(), tc.errText) {
			t.Errorf("%s: err = %q, want %q in it", tc.name, err, tc.errText)
		}
		if strings.Contains(string(got), "root:") {
			t.Errorf("%s: read outside the folder", tc.name)
		}
	}
}

// A folder of a DirFS taken with fs.Sub (as a sandbox hands each evidence
// folder to its source) reads as the top does: checked through the open
// file, confined to the top folder, with links to a sibling folder followed.
func TestReadFileSubFolder(t *testing.T) {
	top := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(top, "x12"), 0o755))
	must(t, os.MkdirAll(filepath.Join(top, "hl7"), 0o755))
	must(t, os.WriteFile(filepath.Join(top, "hl7", "a.hl7"), []byte("MSH|"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "x12", "big.x12"), []byte(strings.Repeat("x", 100)), 0o644))
	must(t, os.Symlink("../hl7/a.hl7", filepath.Join(top, "x12", "sibling.x12")))
	must(t, os.Symlink("../../etc/passwd", filepath.Join(top, "x12", "out.x12")))
	must(t, syscall.Mkfifo(filepath.Join(top, "x12", "fifo.x12"), 0o644))

	sub, err := fs.Sub(check.DirFS(top), "x12")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sub.(fs.StatFS); !ok {
		t.Errorf("fs.Sub of a DirFS is a %T, not an fs.StatFS", sub)
	}
	if got, err := check.ReadFile(sub, "sibling.x12", 0); err != nil || string(got) != "MSH|" {
		t.Errorf("sibling.x12: %q, %v; want the linked file in a sibling folder", got, err)
	}
	for _, tc := range []struct {
		name, errText string
		wantErr       error
	}{
		{"big.x12", "big.x12: 100 bytes is over the 10-byte cap", check.ErrTooLarge},
		{"fifo.x12", "fifo.x12: not a regular file (it is a FIFO)", check.ErrNotRegular},
		{".", ".: not a regular file (it is a folder)", check.ErrNotRegular},
		{"out.x12", "out.x12: ", nil},
		{"missing.x12", "missing.x12: ", fs.ErrNotExist},
		{"../hl7/a.hl7", "../hl7/a.hl7: ", fs.ErrInvalid},
	} {
		got, err := check.ReadFile(sub, tc.name, 10)
		if err == nil || !strings.HasPrefix(err.Error(), tc.errText) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
			t.Errorf("%s: %q, %v; want an error starting %q", tc.name, got, err, tc.errText)
		}
	}
	if _, err := fs.Sub(check.DirFS(top), "../up"); err == nil {
		t.Error("fs.Sub(../up) succeeded")
	}
	if again, err := fs.Sub(sub, "."); err != nil || again != sub {
		t.Errorf("fs.Sub(sub, \".\") = %v, %v; want sub itself", again, err)
	}
}

// ReadFile works on any fs.FS, such as a snapshot held in memory.
func TestReadFileMapFS(t *testing.T) {
	fsys := fstest.MapFS{"portal/state.json": {Data: []byte(`{}`)}}
	if got, err := check.ReadFile(fsys, "portal/state.json", 0); err != nil || string(got) != `{}` {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := check.ReadFile(fsys, "portal", 0); !errors.Is(err, check.ErrNotRegular) {
		t.Fatalf("folder: %v", err)
	}
}

func TestDirFSReadDirSorted(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		must(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	list, err := fs.ReadDir(check.DirFS(dir), ".")
	if err != nil || len(list) != 3 || list[0].Name() != "a" || list[2].Name() != "c" {
		t.Fatalf("%v %v", list, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// DirFS opens its folder once: a hundred reads hold one descriptor, not a
// hundred, and the links of a snapshot read through fs.ReadLink and
// fs.Lstat, confined as opens are.
func TestDirFSOpensFolderOnce(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{}`), 0o644))
	must(t, os.Symlink("a.json", filepath.Join(dir, "in.json")))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "out.json")))
	fds := func() int {
		list, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(list)
	}
	fsys := check.DirFS(dir)
	before := fds()
	for range 100 {
		if _, err := check.ReadFile(fsys, "in.json", 0); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Stat(fsys, "a.json"); err != nil {
			t.Fatal(err)
		}
	}
	if after := fds(); after > before+1 {
		t.Errorf("%d descriptors open after 200 reads, %d before", after, before)
	}
	if target, err := fs.ReadLink(fsys, "in.json"); err != nil || target != "a.json" {
		t.Errorf("ReadLink(in.json) = %q, %v", target, err)
	}
	if fi, err := fs.Lstat(fsys, "in.json"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(in.json) = %v, %v; want a link", fi, err)
	}
	if _, err := fs.Stat(fsys, "out.json"); err == nil {
		t.Error("Stat followed a link out of the folder")
	}
	if _, err := fs.Stat(fsys, "../"+filepath.Base(dir)); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Stat of a path leaving the folder: %v, want fs.ErrInvalid", err)
	}
}

// A folder taken with fs.Sub is opened once too, beside the top: a hundred
// reads in it hold two descriptors; a link out of it into the snapshot is
// still followed, and once it is open, it is what the sub-folder reads,
// even renamed.
func TestDirFSSubFolderOpenedOnce(t *testing.T) {
	top := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(top, "x12", "deep"), 0o755))
	must(t, os.MkdirAll(filepath.Join(top, "hl7"), 0o755))
	must(t, os.WriteFile(filepath.Join(top, "x12", "a.x12"), []byte("first"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "x12", "deep", "b.x12"), []byte("deep"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "hl7", "c.hl7"), []byte("MSH|"), 0o644))
	must(t, os.Symlink("../../hl7/c.hl7", filepath.Join(top, "x12", "deep", "link.x12")))
	fds := func() int {
		list, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(list)
	}
	sub, err := fs.Sub(check.DirFS(top), "x12")
	if err != nil {
		t.Fatal(err)
	}
	deep, err := fs.Sub(sub, "deep")
	if err != nil {
		t.Fatal(err)
	}
	before := fds()
	for range 100 {
		if got, err := check.ReadFile(sub, "a.x12", 0); err != nil || string(got) != "first" {
			t.Fatalf("a.x12: %q, %v", got, err)
		}
	}
	if after := fds(); after > before+2 {
		t.Errorf("%d descriptors open after 100 reads in a sub-folder, %d before", after, before)
	}
	for name, want := range map[string]string{"b.x12": "deep", "link.x12": "MSH|"} {
		if got, err := check.ReadFile(deep, name, 0); err != nil || string(got) != want {
			t.Errorf("deep/%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := check.ReadFile(deep, "missing.x12", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("deep/missing.x12: %v, want fs.ErrNotExist", err)
	}
	must(t, os.Rename(filepath.Join(top, "x12"), filepath.Join(top, "moved")))
	must(t, os.Mkdir(filepath.Join(top, "x12"), 0o755))
	must(t, os.WriteFile(filepath.Join(top, "x12", "a.x12"), []byte("second"), 0o644))
	if got, err := check.ReadFile(sub, "a.x12", 0); err != nil || string(got) != "first" {
		t.Errorf("after the rename: %q, %v; want the first folder's file", got, err)
	}
}

// The folder is the one DirFS first opened: renamed afterwards, it is still
// what the file system reads, and nothing at its old path is.
func TestDirFSKeepsTheFolderItOpened(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "snapshot")
	must(t, os.Mkdir(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte("first"), 0o644))
	fsys := check.DirFS(dir)
	if _, err := fs.Stat(fsys, "a.json"); err != nil {
		t.Fatal(err)
	}
	must(t, os.Rename(dir, filepath.Join(parent, "moved")))
	must(t, os.Mkdir(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte("second"), 0o644))
	if got, err := check.ReadFile(fsys, "a.json", 0); err != nil || string(got) != "first" {
		t.Fatalf("after the rename: %q, %v; want the first folder's file", got, err)
	}
}

// A folder that does not exist yet is tried again on the next call.
func TestDirFSFolderCreatedLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	fsys := check.DirFS(dir)
	if _, err := fs.Stat(fsys, "."); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing folder: %v", err)
	}
	must(t, os.Mkdir(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o644))
	if got, err := check.ReadFile(fsys, "x", 0); err != nil || string(got) != "x" {
		t.Fatalf("after creating the folder: %q, %v", got, err)
	}
}
