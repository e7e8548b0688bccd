package serve

import (
	"errors"
	"sync"
	"time"
)

// clock is a run's clock: it starts where the run says and moves with real
// time, and calls move it forward. It never goes back.
type clock struct {
	real func() time.Time

	mu     sync.Mutex
	base   time.Time // the run's time at anchor
	anchor time.Time // real time when base was set
}

func newClock(start time.Time, real func() time.Time) *clock {
	now := real()
	if start.IsZero() {
		start = now
	}
	return &clock{real: real, base: start.UTC(), anchor: now}
}

// Now reads the clock, in UTC.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *clock) nowLocked() time.Time {
	elapsed := c.real().Sub(c.anchor)
	if elapsed < 0 {
		elapsed = 0
	}
	return c.base.Add(elapsed).UTC()
}

// errClockBack is the answer to a call that would move a clock back.
var errClockBack = errors.New("the run's clock never goes back")

// Advance moves the clock forward by d.
func (c *clock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errClockBack
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.nowLocked()
	c.base, c.anchor = now.Add(d), c.real()
	return c.base, nil
}

// Set moves the clock to t, which must not be earlier than now.
func (c *clock) Set(t time.Time) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.Before(c.nowLocked()) {
		return time.Time{}, errClockBack
	}
	c.base, c.anchor = t.UTC(), c.real()
	return c.base, nil
}

// stamp formats a run time as events and run.json write it: RFC 3339 in
// UTC with milliseconds.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
