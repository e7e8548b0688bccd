package chatagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/clitask/chatagent"
	"github.com/assaykit/assay/internal/chat/chattest"
)

const key = "sk-test-key-0123456789abcdef"

// outcome is what one run came to.
type outcome struct {
	run  clitask.RunResult
	conv *chatagent.Conversation
}

// runSuite runs the test suite's task with model against srv, and returns
// each run and its conversation.
func runSuite(t *testing.T, srv *chattest.Server, cfg chatagent.Config, r clitask.Runner, model, task string) (*chatagent.Agent, []outcome) {
	t.Helper()
	s, err := clitask.LoadSuite("testdata/cli-bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	convs := map[string]*chatagent.Conversation{}
	cfg.BaseURL = srv.URL
	if cfg.RetryWait == 0 {
		cfg.RetryWait = time.Millisecond
	}
	if cfg.Help == "" {
		cfg.Help = "usage: sh [-c COMMAND]"
	}
	cfg.OnConversation = func(a *clitask.Attempt, c *chatagent.Conversation) {
		mu.Lock()
		defer mu.Unlock()
		convs[a.Run] = c
	}
	agent, err := chatagent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Agent, r.Models, r.TempDir = agent, []string{model}, t.TempDir()
	r.Secrets = append(r.Secrets, cfg.APIKey)
	rep, err := r.Run(context.Background(), s, task)
	if err != nil {
		t.Fatal(err)
	}
	var out []outcome
	for _, run := range rep.Runs {
		out = append(out, outcome{run, convs[clitask.RunName(len(out), run.TaskID)]})
	}
	return agent, out
}

// toolMessages returns the content of the conversation's tool messages.
func toolMessages(c *chatagent.Conversation) []string {
	var out []string
	for _, m := range c.Messages {
		if m.Role == "tool" {
			out = append(out, *m.Content)
		}
	}
	return out
}

func TestModels(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	tests := []struct {
		model, task string
		passed      bool
		turns       int
		stop        string
		commands    int
		tools       []string // prefixes of the tool messages, in order
		err         string
	}{
		{"solver", "hello", true, 3, chatagent.StopAnswered, 2, []string{`{"exit_code":0,"stdout":"","stderr":""}`, `{"exit_code":0,"stdout":"hello\n"`}, ""},
		{"local/quitter", "hello", false, 1, chatagent.StopAnswered, 0, nil, ""},
		{"looper", "loop", true, 3, chatagent.StopMaxTurns, 3, []string{`{"exit_code":0`, `{"exit_code":0`, `{"exit_code":0`}, ""},
		{"badjson", "hello", true, 4, chatagent.StopAnswered, 2, []string{`{"error":"the arguments of run_command must be a JSON object {\"command\": \"...\"}; these are not: unexpected end of JSON input"}`, `{"exit_code":0`, `{"exit_code":0`}, ""},
		{"unknowntool", "hello", true, 4, chatagent.StopAnswered, 2, []string{`{"error":"there is no tool \"delete_everything\"; the only tool is run_command"}`, `{"exit_code":0`, `{"exit_code":0`}, ""},
		{"toolobject", "hello", true, 3, chatagent.StopAnswered, 2, []string{`{"exit_code":0`, `{"exit_code":0`}, ""},
		{"batch", "hello", true, 2, chatagent.StopAnswered, 2, []string{`{"exit_code":0`, `{"exit_code":0`}, ""},
		{"nochoices", "hello", false, 1, chatagent.StopError, 0, nil, "answered a completion without choices"},
		{"failing", "hello", false, 0, chatagent.StopError, 0, nil, "answered 500 Internal Server Error"},
		{"nosuchmodel", "hello", false, 0, chatagent.StopError, 0, nil, `answered 404 Not Found: {"error": {"message": "model nosuchmodel not found"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			_, out := runSuite(t, srv, chatagent.Config{}, clitask.Runner{}, tt.model, tt.task)
			run, conv := out[0].run, out[0].conv
			if run.Passed != tt.passed || run.Usage.Turns != tt.turns || conv.Stop != tt.stop || len(run.Trace.Commands) != tt.commands {
				t.Errorf("passed %v, %d turns, stop %q, %d commands; want %v, %d, %q, %d (%+v)", run.Passed, run.Usage.Turns, conv.Stop,
					len(run.Trace.Commands), tt.passed, tt.turns, tt.stop, tt.commands, run)
			}
			if !strings.Contains(run.Error, tt.err) || (tt.err == "") != (run.Error == "") || conv.Error != run.Error {
				t.Errorf("error %q (conversation %q), want %q", run.Error, conv.Error, tt.err)
			}
			tools := toolMessages(conv)
			if len(tools) != len(tt.tools) {
				t.Fatalf("tool messages %q, want %d", tools, len(tt.tools))
			}
			for i, want := range tt.tools {
				if !strings.HasPrefix(tools[i], want) {
					t.Errorf("tool message %d: %s, want %s...", i, tools[i], want)
				}
			}
			// usage: the fake counts 10 prompt tokens a message, 5 a completion
			if run.Usage.CompletionTokens != 5*tt.turns || (tt.turns > 0 && run.Usage.PromptTokens < 20*tt.turns) {
				t.Errorf("usage %+v", run.Usage)
			}
		})
	}
}

// TestPrompt: the system prompt names the CLI and the working directory and
// holds the help of help mode injected, or where the help is, or neither,
// then the suite's system prompt; the intent is the user message.
func TestPrompt(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	_, out := runSuite(t, srv, chatagent.Config{Help: "usage: sh [-c COMMAND]"},
		clitask.Runner{HelpModes: []string{clitask.HelpInjected, clitask.HelpDiscoverable, clitask.HelpNone}}, "quitter", "hello")
	if len(out) != 3 {
		t.Fatalf("%d runs", len(out))
	}
	for _, o := range out {
		sys, user := *o.conv.Messages[0].Content, *o.conv.Messages[1].Content
		if !strings.Contains(sys, "command-line tool sh") || !strings.Contains(sys, o.run.Trace.Workdir) ||
			!strings.Contains(sys, "run_command") || !strings.HasSuffix(sys, "\n\nBe brief.") || !strings.HasPrefix(user, "Write hello") {
			t.Errorf("%s: prompt %q / %q", o.run.HelpMode, sys, user)
		}
		injected := strings.Contains(sys, "usage: sh [-c COMMAND]")
		discoverable := strings.Contains(sys, "run `sh --help`, and `sh COMMAND --help`")
		if injected != (o.run.HelpMode == clitask.HelpInjected) || discoverable != (o.run.HelpMode == clitask.HelpDiscoverable) {
			t.Errorf("%s: prompt %q", o.run.HelpMode, sys)
		}
	}
	for _, seen := range srv.Requests() {
		if len(seen.Tools) != 1 || seen.Tools[0] != "run_command" || seen.Authorization != "" {
			t.Errorf("request %+v: want the one tool and no key", seen)
		}
	}
}

// TestRedactionAndCaps: the model sees the suite's redactions and at most
// 16 KiB of a stream; the key never reaches a tool result, a trace or a
// conversation, though the commands' environment held it.
func TestRedactionAndCaps(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	environ := append(os.Environ(), "ASSAY_LLM_API_KEY="+key)
	_, out := runSuite(t, srv, chatagent.Config{APIKey: key}, clitask.Runner{Environ: environ}, "solver", "secret")
	tools := toolMessages(out[0].conv)
	if len(tools) != 2 || tools[0] != `{"exit_code":0,"stdout":"token=[REDACTED] pass=[REDACTED]\n","stderr":""}` ||
		!strings.Contains(tools[1], "ASSAY_LLM_API_KEY=[REDACTED]") {
		t.Errorf("tool messages %q", tools)
	}
	data, _ := json.Marshal(out[0].conv)
	trace, _ := json.Marshal(out[0].run.Trace)
	if strings.Contains(string(data), key) || strings.Contains(string(trace), key) {
		t.Errorf("the key is in the conversation or the trace")
	}
	_, out = runSuite(t, srv, chatagent.Config{APIKey: key}, clitask.Runner{}, "solver", "long")
	tools = toolMessages(out[0].conv)
	var res struct{ Stdout, Stderr string }
	if len(tools) != 1 || json.Unmarshal([]byte(tools[0]), &res) != nil {
		t.Fatalf("tool messages %q", tools)
	}
	if len(res.Stdout) != 16<<10+len("\n[... 23616 bytes cut]") || !strings.HasSuffix(res.Stdout, "a\n[... 23616 bytes cut]") || res.Stderr != "oops\n" {
		t.Errorf("a long stream reads %d bytes ending %q; stderr %q", len(res.Stdout), res.Stdout[len(res.Stdout)-30:], res.Stderr)
	}
	// the trace keeps the whole stream (the shell's own cap is 1 MiB)
	if got := len(out[0].run.Trace.Commands[0].Stdout); got != 40000 {
		t.Errorf("the trace holds %d bytes of stdout", got)
	}
	for _, seen := range srv.Requests() {
		if seen.Authorization != "Bearer "+key {
			t.Errorf("request without the key: %+v", seen)
		}
	}
}

// TestKeyNeverShown: a server that echoes the Authorization header in its
// error: the run's error and conversation hold no key.
func TestKeyNeverShown(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	_, out := runSuite(t, srv, chatagent.Config{APIKey: key}, clitask.Runner{}, "echoauth", "hello")
	run := out[0].run
	data, _ := json.Marshal(out[0].conv)
	if !strings.Contains(run.Error, "401") || strings.Contains(run.Error, key) || strings.Contains(string(data), key) ||
		!strings.Contains(run.Error, "[REDACTED]") {
		t.Errorf("error %q, conversation %s", run.Error, data)
	}
}

// TestRateLimited: a 429 with Retry-After is waited out and retried; the
// retried call counts once.
func TestRateLimited(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	start := time.Now()
	_, out := runSuite(t, srv, chatagent.Config{}, clitask.Runner{}, "ratelimited", "hello")
	run := out[0].run
	if !run.Passed || run.Usage.Turns != 3 || time.Since(start) < time.Second || len(srv.Requests()) != 4 {
		t.Errorf("passed %v after %d turns, %v, %d requests", run.Passed, run.Usage.Turns, time.Since(start), len(srv.Requests()))
	}
}

// TestHangingServer: the run's timeout ends a call the server never
// answers; the run is judged on what it did, and the agent says it never
// reached the server.
func TestHangingServer(t *testing.T) {
	srv := chattest.NewServer()
	defer srv.Close()
	start := time.Now()
	agent, out := runSuite(t, srv, chatagent.Config{}, clitask.Runner{RunTimeout: 300 * time.Millisecond}, "hang", "hello")
	run, conv := out[0].run, out[0].conv
	if time.Since(start) > 10*time.Second || run.Error != "" || conv.Stop != chatagent.StopTimeout || run.Passed {
		t.Errorf("after %v: %+v, stop %q", time.Since(start), run, conv.Stop)
	}
	if agent.Reached() || agent.Unreachable() == nil || !strings.Contains(agent.Unreachable().Error(), "gave no answer before the run's timeout") {
		t.Errorf("reached %v: %v", agent.Reached(), agent.Unreachable())
	}
}

// TestUnreachable: a base URL no call reaches fails the runs, each saying
// why, and after the first the agent stops asking.
func TestUnreachable(t *testing.T) {
	srv := chattest.NewServer()
	srv.Close()
	s, _ := clitask.LoadSuite("testdata/cli-bench.yaml")
	agent, err := chatagent.New(chatagent.Config{BaseURL: srv.URL, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := (&clitask.Runner{Agent: agent, Models: []string{"solver"}, TempDir: t.TempDir(), Concurrency: 1}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range rep.Runs {
		if run.Passed && run.TaskID != "loop" || !strings.Contains(run.Error, "connection refused") {
			t.Errorf("%s: %+v", run.TaskID, run)
		}
	}
	if agent.Reached() || agent.Unreachable() == nil {
		t.Errorf("reached %v: %v", agent.Reached(), agent.Unreachable())
	}
	var ce interface{ Unwrap() error }
	if !errors.As(agent.Unreachable(), &ce) {
		t.Errorf("unreachable: %v", agent.Unreachable())
	}
}

func TestNew(t *testing.T) {
	if _, err := chatagent.New(chatagent.Config{BaseURL: "ftp://x/" + key, APIKey: key}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("ftp: %v", err)
	}
}
