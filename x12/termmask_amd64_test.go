//go:build !purego

package x12

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// Both assembly versions of terminatorMasks mark exactly the bytes equal
// to the terminator (TestTerminatorMasks tests the one this processor
// uses).
func TestTerminatorMasksSSE2AVX2(t *testing.T) {
	variants := []struct {
		name string
		fn   func(p unsafe.Pointer, blocks int, c byte, out *uint64)
	}{{"SSE2", terminatorMasksSSE2}}
	if useAVX2() {
		variants = append(variants, struct {
			name string
			fn   func(p unsafe.Pointer, blocks int, c byte, out *uint64)
		}{"AVX2", terminatorMasksAVX2})
	} else {
		t.Log("no AVX2 on this processor: only SSE2 is tested")
	}
	r := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 64*20+3)
	for round := 0; round < 512; round++ {
		for i := range buf {
			buf[i] = byte(r.IntN(3)) + byte(round)
		}
		c := byte(round) + byte(r.IntN(3))
		off := r.IntN(3)
		blocks := r.IntN(21)
		if 64*blocks+off > len(buf) {
			blocks = (len(buf) - off) / 64
		}
		for _, v := range variants {
			out := make([]uint64, blocks+1)
			out[blocks] = 0xdead
			v.fn(unsafe.Pointer(&buf[off]), blocks, c, &out[0])
			for b := 0; b < blocks; b++ {
				var want uint64
				for i := 0; i < 64; i++ {
					if buf[off+64*b+i] == c {
						want |= 1 << i
					}
				}
				if out[b] != want {
					t.Fatalf("%s round %d block %d: mask %064b, want %064b", v.name, round, b, out[b], want)
				}
			}
			if out[blocks] != 0xdead {
				t.Fatalf("%s round %d: wrote past %d blocks", v.name, round, blocks)
			}
		}
	}
}
