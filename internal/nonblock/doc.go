// Package nonblock marks the file systems whose Open never waits: those
// that open with O_NONBLOCK, so that a FIFO opens at once instead of
// waiting for a writer. check.ReadFile looks at a file's type before opening
// it only on file systems without the mark; on one with it, it checks the
// open file, one look instead of two.
package nonblock
