package command

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/report"
)

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
