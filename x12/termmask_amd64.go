//go:build !purego

package x12

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// terminatorMasks writes to out[k], for each of the blocks 64-byte blocks
// from p, a mask of the bytes equal to c: bit i for byte i of the block.
// out must have room for blocks masks, and the blocks must be readable.
// AVX2 where the processor has it (32 bytes per comparison, half the
// instructions), else SSE2 (every amd64 has it: 16 bytes).
func terminatorMasks(p unsafe.Pointer, blocks int, c byte, out *uint64) {
	if useAVX2 {
		terminatorMasksAVX2(p, blocks, c, out)
		return
	}
	terminatorMasksSSE2(p, blocks, c, out)
}

// useAVX2 is whether the processor and the operating system support AVX2
// (x/sys/cpu reads the CPUID feature bits, and the YMM state enabled in
// XCR0, once).
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func terminatorMasksSSE2(p unsafe.Pointer, blocks int, c byte, out *uint64)

//go:noescape
func terminatorMasksAVX2(p unsafe.Pointer, blocks int, c byte, out *uint64)
