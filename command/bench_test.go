package command

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// BenchmarkEvalExample runs assay eval on the bundled example in process:
// what one run costs once the kinds' schemas are compiled and the code is
// warm (a fresh process pays those too).
func BenchmarkEvalExample(b *testing.B) {
	args := []string{"eval", "--criteria", "../examples/priorauth/criteria.json", "--sandbox", "../examples/priorauth/sandbox", "--no-color"}
	var out, errb bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		if code := run(context.Background(), c, args); code != exitFail {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
