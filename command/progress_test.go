package command

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// The progress line is drawn and erased in place on a terminal, and
// nothing at all is written elsewhere.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 0, "runs done")
	p.tick(time.Millisecond)
	p.stepOf(1, 4, true)
	p.pause()
	p.step()
	p.done()
	if b.Len() != 0 {
		t.Errorf("not a terminal, yet %q", b.String())
	}
	p = onTerminal(&b, 0, "runs done", time.Now())
	p.stepOf(1, 4, true)
	p.pause()
	p.stepOf(2, 4, false)
	p.done()
	// The second step comes too soon to be drawn at once.
	want := "\r\x1b[K1/4 runs done, 1 failed  0s\r\x1b[K"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	// A unit of known total: rate and time left once half a second has
	// passed.
	b.Reset()
	p = onTerminal(&b, 10, "runs judged", time.Now().Add(-2*time.Second))
	p.step()
	if got := b.String(); !strings.Contains(got, "1/10 runs judged  0.5/s  18s left") {
		t.Errorf("got %q", got)
	}
}

// onTerminal is a progress line as newProgress makes it on a terminal.
func onTerminal(w io.Writer, total int, what string, start time.Time) *progress {
	p := newProgress(w, total, what)
	p.on, p.start = true, start
	return p
}

// The line redraws at most ten times a second however often it is paused
// for report lines (the audit saw 300 redraws for 300 runs judged in a
// second), and a redraw put off shows the line again once it may.
func TestProgressThrottle(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(1e9, 0)
	var later []func()
	p := onTerminal(&b, 300, "runs judged", clock)
	p.now = func() time.Time { return clock }
	p.afterFunc = func(d time.Duration, f func()) *time.Timer {
		if d <= 0 || d > minRedraw {
			t.Errorf("a redraw put off by %v", d)
		}
		later = append(later, f)
		return time.NewTimer(time.Hour)
	}
	for range 299 {
		clock = clock.Add(3 * time.Millisecond) // 299 runs in 0.9 s
		p.pause()
		p.step()
	}
	draws := strings.Count(b.String(), "runs judged")
	if draws < 5 || draws > 10 {
		t.Errorf("%d redraws in 0.9 s, want at most 10 (and some):\n%q", draws, b.String())
	}
	// The last step was put off while the line was cleared: the timer
	// shows it.
	if len(later) == 0 {
		t.Fatal("no redraw was put off")
	}
	b.Reset()
	clock = clock.Add(minRedraw)
	later[len(later)-1]()
	if !strings.HasSuffix(b.String(), "299/300 runs judged  299.9/s  0s left") {
		t.Errorf("the redraw put off wrote %q", b.String())
	}
	// The last unit is always drawn; done clears it and nothing draws
	// after.
	b.Reset()
	p.step()
	p.done()
	later[0]()
	if want := "\r\x1b[K300/300 runs judged  1s\r\x1b[K"; b.String() != want {
		t.Errorf("end: got %q, want %q", b.String(), want)
	}
}
