package filekind

import (
	"io/fs"
	"testing"
)

func TestOf(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0: "a regular file", fs.ModeDir: "a folder", fs.ModeSymlink: "a symbolic link",
		fs.ModeNamedPipe: "a FIFO", fs.ModeSocket: "a socket", fs.ModeDevice | fs.ModeCharDevice: "a device",
		fs.ModeIrregular: "not a regular file",
	} {
		if got := Of(m); got != want {
			t.Errorf("Of(%v) = %q, want %q", m, got, want)
		}
	}
}
