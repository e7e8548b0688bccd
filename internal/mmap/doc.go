// Package mmap reads a regular file of any size into memory the cheapest
// way the platform offers: a read-only memory map where there is one (the
// file's pages are shared with the page cache, never zero-filled or
// copied), else one read into a buffer of the file's size.
//
// It is for inputs named on the command line (`assay hl7 get`, `assay x12
// get`), which may be far larger than evidence files and have no size cap.
// Anything but a regular file (a FIFO, a device, a folder) is refused with
// ErrNotRegular before it is read, and opening it never blocks.
package mmap
