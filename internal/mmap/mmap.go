package mmap

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/assaykit/assay/internal/filekind"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// File is a file's contents in memory.
type File struct {
	data   []byte
	unmap  func() error
	mapped bool
}

// Bytes returns the contents. When Mapped, they are read-only: writing to
// them crashes the program. They stay valid until Close.
func (f *File) Bytes() []byte { return f.data }

// Mapped reports whether the contents are a memory map.
func (f *File) Mapped() bool { return f.mapped }

// Close releases the contents; Bytes must not be used after.
func (f *File) Close() error {
	if f.unmap == nil {
		f.data = nil
		return nil
	}
	err := f.unmap()
	f.data, f.unmap = nil, nil
	return err
}

// Open reads the regular file name: mapped read-only where the platform
// can, else read whole into a buffer of its size. A path that is not a
// regular file is an error wrapping ErrNotRegular; errors name the path.
func Open(name string) (*File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, filekind.Of(fi.Mode()))}
	}
	f, err := os.OpenFile(name, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The name may have been swapped between the two looks.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, filekind.Of(fi.Mode()))}
	}
	size := fi.Size()
	if size == 0 {
		return &File{data: []byte{}}, nil
	}
	if int64(int(size)) == size {
		if data, unmap, err := mapFile(f, int(size)); err == nil {
			return &File{data: data, unmap: unmap, mapped: true}, nil
		}
	}
	data, err := readAll(f, size)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return &File{data: data}, nil
}

// readAll reads f, expected to hold size bytes, in one buffer of that size
// (plus one byte, to see whether the file grew).
func readAll(f *os.File, size int64) ([]byte, error) {
	buf := make([]byte, size+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], nil
	case err != nil:
		return nil, err
	}
	// The file grew while being read: read the rest.
	rest, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return append(buf, rest...), nil
}
