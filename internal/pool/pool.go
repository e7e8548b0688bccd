package pool

import (
	"context"
	"sync"
)

// Each calls fn(i) for i in [0, n), at most limit calls at once (limit < 1
// means 1), in index order of starting. It stops starting new calls once
// ctx ends and returns how many it started: calls 0..started-1 ran to
// completion, the rest never began. fn must not panic; callers that run
// untrusted code recover inside fn.
func Each(ctx context.Context, n, limit int, fn func(i int)) (started int) {
	if n <= 0 {
		return 0
	}
	limit = min(max(limit, 1), n)
	if limit == 1 {
		for i := range n {
			if ctx.Err() != nil {
				return i
			}
			fn(i)
		}
		return n
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	i := 0
feed:
	for ; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return i
}
