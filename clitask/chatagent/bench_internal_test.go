package chatagent

import (
	"context"
	"fmt"
	"testing"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/internal/chat"
	"github.com/assaykit/assay/internal/chat/chattest"
)

// benchTurns is how many model calls one attempt of the benchmarks makes.
const benchTurns = 10

// benchAttempt returns an attempt of a suite that redacts a variable and a
// pattern, as the agent does for every stream the model sees.
func benchAttempt(b *testing.B) *clitask.Attempt {
	s, err := clitask.ParseSuite("bench.yaml", []byte(`cli: tool
redact_env: [TOKEN]
redact_patterns: ["sk-[a-z0-9]{16}"]
env: {TOKEN: tok-0123456789}
tasks: [{id: t, intent: "Run it.", max_turns: `+fmt.Sprint(benchTurns)+`, assert: [{exit_code: 0}]}]
`))
	if err != nil {
		b.Fatal(err)
	}
	sh := clitask.NewShell(clitask.Executor{Dir: b.TempDir()})
	b.Cleanup(func() { sh.Close() })
	return &clitask.Attempt{Suite: s, Task: s.Tasks[0], Model: "m", HelpMode: clitask.HelpInjected, Run: "0001-t", Shell: sh}
}

// cannedCommand stands in for the shell: 2 KiB of stdout, as a listing.
func cannedCommand(_ context.Context, _ *clitask.Attempt, command string) (clitask.Command, error) {
	out := make([]byte, 2048)
	for i := range out {
		out[i] = 'a' + byte(i%26)
		if i%64 == 63 {
			out[i] = '\n'
		}
	}
	return clitask.Command{Command: command, Stdout: string(out)}, nil
}

// BenchmarkTurn times the agent's own work per turn: reading the tool call,
// running it (a canned result), redacting and capping what the model sees,
// growing the conversation and recording it; the model (an in-memory
// answer) and the command are not in it.
func BenchmarkTurn(b *testing.B) {
	ag, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Help: "usage: tool", OnConversation: func(*clitask.Attempt, *Conversation) {}})
	if err != nil {
		b.Fatal(err)
	}
	answer := &chat.Response{Choices: []chat.Choice{{Message: chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{{
		ID: "c1", Type: "function", Function: chat.FunctionCall{Name: ToolName, Arguments: `{"command": "tool list --all"}`}}}}}},
		Usage: chat.Usage{PromptTokens: 100, CompletionTokens: 10}}
	ag.call = func(context.Context, chat.Request) (*chat.Response, error) { return answer, nil }
	ag.exec = cannedCommand
	a := benchAttempt(b)
	b.ReportAllocs()
	for b.Loop() {
		a.Usage = clitask.Usage{}
		if err := ag.Attempt(context.Background(), a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
}

// BenchmarkTurnHTTP is BenchmarkTurn with the model behind a local fake
// server that answers at once: the agent's work plus the client's (encoding
// the growing conversation, HTTP over loopback, decoding) and the fake's.
func BenchmarkTurnHTTP(b *testing.B) {
	srv := chattest.NewServer()
	defer srv.Close()
	ag, err := New(Config{BaseURL: srv.URL, Help: "usage: tool"})
	if err != nil {
		b.Fatal(err)
	}
	ag.exec = cannedCommand
	a := benchAttempt(b)
	a.Model = "looper"
	b.ReportAllocs()
	for b.Loop() {
		a.Usage = clitask.Usage{}
		if err := ag.Attempt(context.Background(), a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchTurns), "ns/turn")
}
