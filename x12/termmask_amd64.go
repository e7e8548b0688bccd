//go:build !purego

package x12

import "unsafe"

// terminatorMasks writes to out[k], for each of the blocks 64-byte blocks
// from p, a mask of the bytes equal to c: bit i for byte i of the block.
// out must have room for blocks masks, and the blocks must be readable.
// SSE2 (every amd64 has it): sixteen bytes per comparison.
//
//go:noescape
func terminatorMasks(p unsafe.Pointer, blocks int, c byte, out *uint64)
