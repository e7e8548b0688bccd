//go:build unix

package mmap_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/assaykit/assay/internal/mmap"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, 4096, 1 << 20} {
		want := bytes.Repeat([]byte("ISA*"), size/4+1)[:size]
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, want, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := mmap.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.Bytes(), want) {
			t.Errorf("size %d: contents differ", size)
		}
		if size > 0 && runtime.GOOS == "linux" && !f.Mapped() {
			t.Errorf("size %d: not mapped on linux", size)
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestOpenNotRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := mmap.Open(dir); !errors.Is(err, mmap.ErrNotRegular) {
		t.Errorf("folder: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Opening a FIFO without a writer would block for ever; Open refuses it
	// before.
	if _, err := mmap.Open(fifo); !errors.Is(err, mmap.ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
	if _, err := mmap.Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
