//go:build !purego

package x12

import (
	"sync/atomic"
	"unsafe"
)

// terminatorMasks writes to out[k], for each of the blocks 64-byte blocks
// from p, a mask of the bytes equal to c: bit i for byte i of the block.
// out must have room for blocks masks, and the blocks must be readable.
// AVX2 where the processor has it (32 bytes per comparison, half the
// instructions), else SSE2 (every amd64 has it: 16 bytes).
func terminatorMasks(p unsafe.Pointer, blocks int, c byte, out *uint64) {
	if useAVX2() {
		terminatorMasksAVX2(p, blocks, c, out)
		return
	}
	terminatorMasksSSE2(p, blocks, c, out)
}

// useAVX2 reports whether the processor and the operating system support
// AVX2 (hasAVX2). It asks on the first parse, not when the package loads,
// so that a program that reads no X12 pays nothing for it: CPUID traps to
// the hypervisor in a virtual machine, and golang.org/x/sys/cpu, which
// would answer at load, costs a command's start-up 0.06 ms.
func useAVX2() bool {
	switch avx2.Load() {
	case avx2Yes:
		return true
	case avx2No:
		return false
	}
	if hasAVX2() {
		avx2.Store(avx2Yes)
		return true
	}
	avx2.Store(avx2No)
	return false
}

// avx2 is what useAVX2 found: 0 before it asks, then avx2Yes or avx2No.
var avx2 atomic.Uint32

const (
	avx2Yes = 1 + iota
	avx2No
)

// hasAVX2 reads the CPUID feature bits, and the YMM state enabled in XCR0.
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
