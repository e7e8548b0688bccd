//go:build !unix

package mmap

import (
	"errors"
	"os"
)

const nonBlock = 0

func mapFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.New("no memory maps on this platform")
}
