package pool

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachRunsEveryIndexWithinTheLimit(t *testing.T) {
	for _, limit := range []int{-1, 1, 3, 100} {
		var running, peak atomic.Int32
		seen := make([]atomic.Int32, 50)
		started := Each(context.Background(), len(seen), limit, func(i int) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			seen[i].Add(1)
			running.Add(-1)
		})
		if started != len(seen) {
			t.Errorf("limit %d: started %d", limit, started)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Errorf("limit %d: index %d ran %d times", limit, i, seen[i].Load())
			}
		}
		if want := int32(max(min(limit, 50), 1)); peak.Load() > want {
			t.Errorf("limit %d: %d ran at once", limit, peak.Load())
		}
	}
}

func TestEachStopsWhenCtxEnds(t *testing.T) {
	for _, limit := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int32
		started := Each(ctx, 1000, limit, func(i int) {
			if ran.Add(1) == 10 {
				cancel()
			}
		})
		if started >= 1000 || int(ran.Load()) != started {
			t.Errorf("limit %d: started %d, ran %d", limit, started, ran.Load())
		}
	}
	if n := Each(context.Background(), 0, 4, func(int) { t.Error("called") }); n != 0 {
		t.Errorf("n=0 started %d", n)
	}
}
