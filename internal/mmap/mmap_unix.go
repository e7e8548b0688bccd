//go:build unix

package mmap

import (
	"os"
	"syscall"
)

const nonBlock = syscall.O_NONBLOCK

// mapFile maps the first size bytes of f read-only and private, asking the
// kernel to map every page at once (populate, where the platform has it)
// rather than fault them in one by one.
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|populate)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
