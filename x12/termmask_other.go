//go:build !amd64 || purego

package x12

import "unsafe"

// terminatorMasks writes to out[k], for each of the blocks 64-byte blocks
// from p, a mask of the bytes equal to c: bit i for byte i of the block.
// out must have room for blocks masks, and the blocks must be readable.
// Eight bytes at a time in a register, where there is no assembly version.
func terminatorMasks(p unsafe.Pointer, blocks int, c byte, out *uint64) {
	const low7, highs = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	pat := uint64(c) * 0x0101010101010101
	dst := unsafe.Slice(out, blocks)
	for b := range dst {
		var m uint64
		for k := 0; k < 8; k++ {
			x := loadLE(unsafe.Add(p, 64*b+8*k)) ^ pat
			// The high bit of each byte of x that is zero, exactly (no
			// borrow from one byte into the next), gathered into bits 0
			// to 7.
			t := ^((x & low7) + low7 | x) & highs
			m |= (t >> 7) * 0x0102040810204080 >> 56 << (8 * k)
		}
		dst[b] = m
	}
}
