package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
)

// The progress line is drawn and erased in place on a terminal, and
// nothing at all is written elsewhere.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p.start()
	p.update(1, 4, true)
	p.clear()
	p.update(2, 4, false)
	p.stop()
	if b.Len() != 0 {
		t.Errorf("not a terminal, yet %q", b.String())
	}
	p = &progress{w: &b, on: true, quit: make(chan struct{})}
	p.start()
	p.update(1, 4, true)
	p.clear()
	p.update(2, 4, false)
	p.stop()
	want := "\r\x1b[Kassay run: 1/4 runs done, 1 failed, 0s\r\x1b[K\r\x1b[Kassay run: 2/4 runs done, 1 failed, 0s\r\x1b[K"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// Runs judged before the server was first reached are held back, then
// written in order.
func TestRunStream(t *testing.T) {
	var b bytes.Buffer
	s := &runStream{w: &b, name: report.RunNamer()}
	s.add(clitask.RunResult{TaskID: "a", Model: "m"}, false)
	if b.Len() != 0 {
		t.Fatalf("written before the server was reached: %q", b.String())
	}
	s.add(clitask.RunResult{TaskID: "b", Model: "m", Passed: true}, true)
	s.add(clitask.RunResult{TaskID: "c", Model: "m"}, true)
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !strings.HasPrefix(got, "FAIL  a [m] #1\nPASS  b [m] #1\nFAIL  c [m] #1\n") {
		t.Errorf("%q", got)
	}
}

func TestRunEnviron(t *testing.T) {
	env := []string{"A=1", "OPENAI_API_KEY=sk-x", "MINE=sk-x", "B=sk-xy"}
	got := runEnviron(env, "sk-x")
	if strings.Join(got, " ") != "A=1 B=sk-xy" {
		t.Errorf("%q", got)
	}
	if got := runEnviron(env, ""); len(got) != 4 {
		t.Errorf("no key: %q", got)
	}
}
