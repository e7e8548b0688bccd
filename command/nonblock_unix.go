//go:build unix

package command

import "syscall"

// nonBlock opens a FIFO at once instead of waiting for a writer.
const nonBlock = syscall.O_NONBLOCK
