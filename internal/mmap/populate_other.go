//go:build unix && !linux

package mmap

const populate = 0
