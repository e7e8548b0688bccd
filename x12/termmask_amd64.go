//go:build !purego

package x12

import "unsafe"

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
// (the CPUID feature bits, and the YMM state enabled in XCR0).
var useAVX2 = hasAVX2()

func hasAVX2() bool {
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&(osxsave|avx) != osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // XMM and YMM state
		return false
	}
	if maxID, _, _, _ := cpuid(0, 0); maxID < 7 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

//go:noescape
func terminatorMasksSSE2(p unsafe.Pointer, blocks int, c byte, out *uint64)

//go:noescape
func terminatorMasksAVX2(p unsafe.Pointer, blocks int, c byte, out *uint64)

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func xgetbv() (eax, edx uint32)
