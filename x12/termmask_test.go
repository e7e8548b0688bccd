package x12

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// terminatorMasks marks exactly the bytes equal to the terminator, in
// every block, for every byte value.
func TestTerminatorMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 64*9+3)
	for round := 0; round < 300; round++ {
		for i := range buf {
			buf[i] = byte(r.IntN(4)) + byte(round) // few distinct values, so matches are dense
		}
		c := byte(round) + byte(r.IntN(4))
		off := r.IntN(3)
		blocks := r.IntN(10)
		if 64*blocks+off > len(buf) {
			blocks = (len(buf) - off) / 64
		}
		out := make([]uint64, blocks+1)
		out[blocks] = 0xdead
		if blocks > 0 {
			terminatorMasks(unsafe.Pointer(&buf[off]), blocks, c, &out[0])
		}
		for b := 0; b < blocks; b++ {
			var want uint64
			for i := 0; i < 64; i++ {
				if buf[off+64*b+i] == c {
					want |= 1 << i
				}
			}
			if out[b] != want {
				t.Fatalf("round %d block %d: mask %064b, want %064b", round, b, out[b], want)
			}
		}
		if out[blocks] != 0xdead {
			t.Fatalf("round %d: wrote past %d blocks", round, blocks)
		}
	}
}

// elemBounds finds the elements field finds, for segments of every shape
// up to the end of the input.
func TestElemBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 3000; round++ {
		n := r.IntN(40)
		buf := make([]byte, n)
		for i := range buf {
			buf[i] = "AB*~"[r.IntN(4)]
		}
		s := string(buf)
		start := r.IntN(n + 1)
		end := start + r.IntN(n-start+1)
		p := &parser{s: s, d: Delimiters{Element: '*'}}
		for _, size := range []int{4, 6} {
			b := make([]int, size)
			p.elemBounds(start, end, b)
			for k := 0; k < size/2; k++ {
				want, ok := field(s[start:end], '*', k+1)
				got := s[b[2*k]:b[2*k+1]]
				if got != want || !ok && b[2*k] != end {
					t.Fatalf("%q [%d:%d] element %d: bounds %v read %q, want %q (present %v)", s, start, end, k+1, b, got, want, ok)
				}
			}
		}
	}
}
