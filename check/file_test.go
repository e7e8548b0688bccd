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
