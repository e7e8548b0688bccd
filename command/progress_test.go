package command

import (
	"bytes"
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
	p = &progress{w: &b, on: true, what: "runs done", start: time.Now()}
	p.stepOf(1, 4, true)
	p.pause()
	p.stepOf(2, 4, false)
	p.done()
	want := "\r\x1b[K1/4 runs done, 1 failed  0s\r\x1b[K\r\x1b[K2/4 runs done, 1 failed  0s\r\x1b[K"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	// A unit of known total: rate and time left once half a second has
	// passed.
	b.Reset()
	p = &progress{w: &b, on: true, total: 10, what: "runs judged", start: time.Now().Add(-2 * time.Second)}
	p.step()
	if got := b.String(); !strings.Contains(got, "1/10 runs judged  0.5/s  18s left") {
		t.Errorf("got %q", got)
	}
}
