//go:build !purego

package x12

import "testing"

// Both assembly versions of terminatorMasks pass TestTerminatorMasks, each
// chosen in turn (the test itself tests the one this processor uses).
func TestTerminatorMasksSSE2AVX2(t *testing.T) {
	defer avx2.Store(avx2.Load())
	avx2.Store(avx2No)
	t.Run("SSE2", TestTerminatorMasks)
	if !hasAVX2() {
		t.Log("no AVX2 on this processor: only SSE2 is tested")
		return
	}
	avx2.Store(avx2Yes)
	t.Run("AVX2", TestTerminatorMasks)
}
