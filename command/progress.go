package command

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/assaykit/assay/report"
)

// progress is one updating line on stderr while a long command works
// ("12/200 runs judged, 1 failed  38/s  5s left"), shown only when stderr is
// a terminal. It is cleared before anything else is printed (pause) and at
// the end (done), and redraws at most ten times a second (minRedraw apart),
// however often it is paused: a redraw that comes too soon after the last
// is put off to minRedraw after it, so that the line still shows while a
// long unit works. It is safe for concurrent use.
type progress struct {
	w    io.Writer
	on   bool
	what string
	// now and afterFunc are the clock (time.Now and time.AfterFunc, or a
	// test's).
	now       func() time.Time
	afterFunc func(time.Duration, func()) *time.Timer

	mu      sync.Mutex
	total   int
	count   int
	failed  int
	start   time.Time
	last    time.Time
	visible bool
	later   *time.Timer // the redraw put off, if any
	stopped bool
	quit    chan struct{}
	wg      sync.WaitGroup
}

// minRedraw is the least time between two redraws of the line.
const minRedraw = 100 * time.Millisecond

// newProgress returns the progress of total units (0 when not yet known)
// described by what ("runs judged").
func newProgress(w io.Writer, total int, what string) *progress {
	return &progress{w: w, on: report.IsTerminal(w), total: total, what: what, start: time.Now(),
		now: time.Now, afterFunc: time.AfterFunc}
}

// tick redraws the line every d until done, so its elapsed time moves while
// a unit takes long.
func (p *progress) tick(d time.Duration) {
	if !p.on {
		return
	}
	p.quit = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				p.drawLocked(true)
				p.mu.Unlock()
			}
		}
	}()
}

// pause clears the line, so that a report line can be written.
func (p *progress) pause() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.visible {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.visible = false
	}
}

// step counts one unit done and redraws.
func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	p.drawLocked(false)
}

// stepOf sets the count and total (as a runner reports them) and counts a
// failure, then redraws.
func (p *progress) stepOf(done, total int, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count, p.total = done, total
	if failed {
		p.failed++
	}
	p.drawLocked(false)
}

func (p *progress) drawLocked(force bool) {
	if !p.on || p.stopped {
		return
	}
	now := p.now()
	if wait := minRedraw - now.Sub(p.last); !force && p.count < p.total && wait > 0 {
		if !p.visible && p.later == nil {
			// Cleared for a report line: show it again once it may be.
			p.later = p.afterFunc(wait, func() {
				p.mu.Lock()
				defer p.mu.Unlock()
				p.later = nil
				p.drawLocked(true)
			})
		}
		return
	}
	if p.later != nil {
		p.later.Stop()
		p.later = nil
	}
	p.last = now
	line := fmt.Sprintf("%d/%d %s", p.count, p.total, p.what)
	if p.total == 0 {
		line = fmt.Sprintf("%d %s", p.count, p.what)
	}
	if p.failed > 0 {
		line += fmt.Sprintf(", %d failed", p.failed)
	}
	el := now.Sub(p.start)
	if s := el.Seconds(); s > 0.5 && p.count > 0 && p.total > p.count {
		rate := float64(p.count) / s
		left := time.Duration(float64(p.total-p.count) / rate * float64(time.Second)).Round(time.Second)
		line += fmt.Sprintf("  %.1f/s  %s left", rate, left)
	} else {
		line += fmt.Sprintf("  %s", el.Round(time.Second))
	}
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.visible = true
}

// done stops the ticking and clears the line for good.
func (p *progress) done() {
	if !p.on {
		return
	}
	if p.quit != nil {
		close(p.quit)
		p.wg.Wait()
		p.quit = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	if p.later != nil {
		p.later.Stop()
		p.later = nil
	}
	p.clearLocked()
}
