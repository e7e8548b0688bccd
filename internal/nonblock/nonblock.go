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
