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

// Work that is over before Patience runs on the caller alone; work that
// lasts gets its helpers, up to the limit.
func TestEachFansOutOnlyWhenWorkLasts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		busy     time.Duration // each call's work spent busy: a short sleep may last far longer
		sleep    time.Duration // and spent asleep, so that helpers overlap on any number of CPUs
		wantPeak int32
	}{
		// 0.4 ms in all: helpers started at once would overlap the calls.
		{"quick", 4, 100 * time.Microsecond, 0, 1},
		{"lasting", 40, 0, Patience, 4},
	} {
		// A busy machine may stall the quick batch past Patience: it
		// has three tries to show it runs alone.
		var peak atomic.Int32
		for try := 0; try < 3; try++ {
			var running atomic.Int32
			peak.Store(0)
			Each(context.Background(), tc.n, 4, func(int) {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				for start := time.Now(); time.Since(start) < tc.busy; {
				}
				time.Sleep(tc.sleep)
				running.Add(-1)
			})
			if peak.Load() == tc.wantPeak {
				break
			}
		}
		if peak.Load() != tc.wantPeak {
			t.Errorf("%s: %d ran at once, want %d", tc.name, peak.Load(), tc.wantPeak)
		}
	}
}

// A call that waits for a later call to start does not deadlock: the
// helpers that join after Patience start it.
func TestEachCallsMayWaitForEachOther(t *testing.T) {
	second := make(chan struct{})
	done := make(chan int)
	go func() {
		done <- Each(context.Background(), 2, 2, func(i int) {
			if i == 0 {
				<-second
			} else {
				close(second)
			}
		})
	}()
	select {
	case n := <-done:
		if n != 2 {
			t.Errorf("started %d, want 2", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Each deadlocked: no helper started the second call")
	}
}
