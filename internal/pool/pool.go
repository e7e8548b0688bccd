package pool

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Patience is how long Each works alone before helpers join. Starting a
// helper goroutine costs little, but the scheduler wakes an idle thread for
// it (and creates one the first time), about a tenth of a millisecond: more
// than a batch of checks on local files takes in all. Work still running
// after Patience (a server's answers, commands, large files) gets its
// helpers then, having lost at most Patience to them.
const Patience = 2 * time.Millisecond

// Each calls fn(i) for i in [0, n), at most limit calls at once (limit < 1
// means 1), in index order of starting. It stops starting new calls once
// ctx ends and returns how many it started: calls 0..started-1 ran to
// completion, the rest never began. fn must not panic; callers that run
// untrusted code recover inside fn.
//
// The calls run on the calling goroutine; when the work has not finished
// after Patience, up to limit-1 helper goroutines join it (a call that
// waits for another call to start is therefore still safe, only later).
func Each(ctx context.Context, n, limit int, fn func(i int)) (started int) {
	if n <= 0 {
		return 0
	}
	limit = min(max(limit, 1), n)
	var next atomic.Int64 // the next index to start; claimed in order
	work := func() {
		// ctx is checked before an index is claimed, so every claimed
		// index runs and the claimed ones are 0..started-1.
		for ctx.Err() == nil {
			i := next.Add(1) - 1
			if i >= int64(n) {
				return
			}
			fn(int(i))
		}
	}
	if limit == 1 {
		work()
		return int(min(next.Load(), int64(n)))
	}
	var (
		mu       sync.Mutex // orders the helpers' wg.Add before wg.Wait
		finished bool
		helpers  sync.WaitGroup
	)
	timer := time.AfterFunc(Patience, func() {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		for range limit - 1 {
			helpers.Go(work)
		}
	})
	work()
	mu.Lock()
	finished = true
	mu.Unlock()
	timer.Stop()
	helpers.Wait()
	return int(min(next.Load(), int64(n)))
}
