package jsonenc

import (
	"bytes"
	"testing"
)

func TestNoHTMLEscaping(t *testing.T) {
	got, err := Marshal(map[string]string{"seg": "<PID> & more"})
	if err != nil || string(got) != `{"seg":"<PID> & more"}` {
		t.Fatalf("%s %v", got, err)
	}
	var b bytes.Buffer
	if err := Write(&b, []int{1}, true); err != nil || b.String() != "[\n  1\n]\n" {
		t.Fatalf("%q %v", b.String(), err)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Fatal("a func marshalled")
	}
}
