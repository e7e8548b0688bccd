// Package nonblock marks the file systems whose Open never waits: those
// that open with O_NONBLOCK, so that a FIFO opens at once instead of
// waiting for a writer. check.ReadFile looks at a file's type before opening
// it only on file systems without the mark; on one with it, it checks the
// open file, one look instead of two.
package nonblock

import "io/fs"

// FS is a file system that can say its Open never blocks.
type FS interface {
	fs.FS
	// OpensWithoutBlocking reports whether Open returns at once for every
	// kind of file (false where the platform gives no way to).
	OpensWithoutBlocking() bool
}

// Opens reports whether fsys says its Open never blocks.
func Opens(fsys fs.FS) bool {
	nb, ok := fsys.(FS)
	return ok && nb.OpensWithoutBlocking()
}
