package chatagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/internal/chat"
)

// Defaults and limits.
const (
	// DefaultMaxTurns is how many model calls a run may make when its task
	// names no max_turns.
	DefaultMaxTurns = 10
	// DefaultCallTimeout bounds each attempt of one model call.
	DefaultCallTimeout = 5 * time.Minute
	// MaxToolOutput is how many bytes of each of a command's stdout and
	// stderr the model sees; a longer stream is cut and ends with a note.
	MaxToolOutput = 16 << 10
	// ToolName is the one tool the model is given.
	ToolName = "run_command"
)

// Config configures an Agent.
type Config struct {
	// BaseURL is the API's base URL ("http://127.0.0.1:8000/v1";
	// "/chat/completions" is appended).
	BaseURL string
	// APIKey, when not "", is sent as a bearer token to the base URL's
	// origin only; it never appears in errors or conversations.
	APIKey string
	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// CallTimeout bounds each attempt of a model call (default
	// DefaultCallTimeout); the run's own timeout bounds them all.
	CallTimeout time.Duration
	// MaxRetries is how many times a failed model call (408, 429, 5xx, no
	// response) is sent again: 0 means the shared policy's 3, < 0 none.
	MaxRetries int
	// RetryWait is the first backoff step (0: the shared policy's 500 ms).
	// A Retry-After is honoured, up to 30 s.
	RetryWait time.Duration
	// MaxTurns is how many model calls a run may make when its task names
	// no max_turns (default DefaultMaxTurns).
	MaxTurns int
	// Help is the output of the CLI's --help (see Help), put in the system
	// prompt of runs in help mode injected.
	Help string
	// OnConversation, when set, is called with each attempt's conversation
	// as the attempt ends (from the attempt's goroutine).
	OnConversation func(a *clitask.Attempt, c *Conversation)
}

// Agent is a clitask.Agent that works on each task with a model behind a
// Chat Completions API, through the run_command tool. It is safe for
// concurrent use by a Runner's runs.
type Agent struct {
	cfg    Config
	client *chat.Client
	// call sends a model call and exec runs a command: client.Complete and
	// the attempt's shell, replaced by benchmarks that time the agent alone.
	call func(context.Context, chat.Request) (*chat.Response, error)
	exec func(context.Context, *clitask.Attempt, string) (clitask.Command, error)

	reached atomic.Bool // some call got an HTTP response
	mu      sync.Mutex
	failed  error // the first model call that failed, for Unreachable
	down    error // a call that could not reach the server, before any did
}

var _ clitask.Agent = (*Agent)(nil)

// New returns an agent; it fails when the base URL is not an http or https
// URL.
func New(cfg Config) (*Agent, error) {
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	p := chat.RetryPolicy(cfg.MaxRetries, cfg.RetryWait)
	client, err := chat.New(chat.Config{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, HTTPClient: cfg.HTTPClient,
		Timeout: cfg.CallTimeout, Retry: &p})
	if err != nil {
		return nil, fmt.Errorf("chatagent: %w", err)
	}
	ag := &Agent{cfg: cfg, client: client, call: client.Complete}
	ag.exec = func(ctx context.Context, a *clitask.Attempt, command string) (clitask.Command, error) {
		return a.Shell.Run(ctx, command)
	}
	return ag, nil
}

// Endpoint returns the chat-completions URL the agent calls.
func (ag *Agent) Endpoint() string { return ag.client.Endpoint() }

// Reached reports whether some model call got an HTTP response (any
// status) from the server.
func (ag *Agent) Reached() bool { return ag.reached.Load() }

// Unreachable returns why no model call reached the server: the first
// failure, when calls were made and none got a response; nil otherwise.
func (ag *Agent) Unreachable() error {
	if ag.Reached() {
		return nil
	}
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.failed
}

// Conversation is the record of one attempt: the messages as sent and
// answered, the usage, and how the attempt ended. It is what assay run
// writes to conversations/RUN.json.
type Conversation struct {
	Run      string    `json:"run"`
	TaskID   string    `json:"task_id"`
	Model    string    `json:"model"`
	HelpMode string    `json:"help_mode"`
	Messages []Message `json:"messages"`
	// Usage holds the model calls and their tokens; WallMS the attempt's
	// wall time.
	Usage clitask.Usage `json:"usage"`
	// Stop says how the attempt ended: StopAnswered, StopMaxTurns,
	// StopTimeout or StopError.
	Stop string `json:"stop"`
	// Error is the attempt's error when Stop is StopError.
	Error string `json:"error,omitempty"`
}

// How an attempt ends.
const (
	// StopAnswered: the model answered without a tool call.
	StopAnswered = "answered"
	// StopMaxTurns: the run made its max_turns model calls.
	StopMaxTurns = "max_turns"
	// StopTimeout: the run reached its timeout (it is judged on what it
	// did).
	StopTimeout = "timeout"
	// StopError: a model call failed, or the attempt was cancelled.
	StopError = "error"
)

// Message is one message of a conversation, as the Chat Completions API
// has it.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a model's call of a tool; Arguments is JSON text as the model
// wrote it.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// tools is the one tool the model gets.
var tools = []chat.Tool{{Type: "function", Function: chat.ToolFunction{
	Name: ToolName,
	Description: "Run a shell command (sh -c) in the task's working directory. " +
		"Returns JSON: {\"exit_code\", \"stdout\", \"stderr\"}; a stream over 16 KiB is cut.",
	Parameters: json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string", "description": "the shell command to run"}}, "required": ["command"], "additionalProperties": false}`),
}}}

// Attempt works on the task: it sends the prompt, runs the commands the
// model asks for through the attempt's shell, and returns the results to
// it, until the model answers without a tool call, the run has made its
// max_turns calls (the task's, else Config.MaxTurns), or ctx ends. It
// returns an error when a model call failed (after retries) or the model
// answered no choices; the run then counts as failed. A run that reaches
// its timeout (ctx's cause clitask.ErrRunTimeout) ends without an error,
// to be judged on what it did.
func (ag *Agent) Attempt(ctx context.Context, a *clitask.Attempt) (err error) {
	start := time.Now()
	conv := &Conversation{Run: a.Run, TaskID: a.Task.ID, Model: a.Model, HelpMode: a.HelpMode}
	msgs := []chat.Message{chat.Say("system", systemPrompt(a, ag.cfg.Help)), chat.Say("user", a.Task.Intent)}
	defer func() {
		if ag.cfg.OnConversation == nil {
			return
		}
		conv.Usage = a.Usage
		conv.Usage.WallMS = time.Since(start).Milliseconds()
		if err != nil {
			conv.Stop, conv.Error = StopError, a.Redact(err.Error())
		}
		conv.Messages = exported(msgs, a.Redact)
		ag.cfg.OnConversation(a, conv)
	}()
	turns := a.Task.MaxTurns
	if turns <= 0 {
		turns = ag.cfg.MaxTurns
	}
	for turn := 1; turn <= turns; turn++ {
		resp, err := ag.complete(ctx, chat.Request{Model: a.Model, Messages: msgs, Tools: tools})
		if err != nil {
			if timedOut(ctx) {
				conv.Stop, a.Stopped = StopTimeout, clitask.StoppedTimeout
				return nil
			}
			return fmt.Errorf("model call %d: %w", turn, err)
		}
		a.Usage.Turns++
		a.Usage.PromptTokens += resp.Usage.PromptTokens
		a.Usage.CompletionTokens += resp.Usage.CompletionTokens
		if len(resp.Choices) == 0 {
			return fmt.Errorf("model call %d: %s answered a completion without choices", turn, ag.client.Host())
		}
		msg := resp.Choices[0].Message
		msg.Role = "assistant"
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", turn, i+1)
			}
			if msg.ToolCalls[i].Type == "" {
				msg.ToolCalls[i].Type = "function"
			}
		}
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			conv.Stop = StopAnswered
			return nil
		}
		for _, tc := range msg.ToolCalls {
			result, ok := ag.runTool(ctx, a, tc)
			if !ok {
				if timedOut(ctx) {
					conv.Stop = StopTimeout
					return nil
				}
				return fmt.Errorf("running %s: %w", ToolName, context.Cause(ctx))
			}
			m := chat.Say("tool", result)
			m.ToolCallID = tc.ID
			msgs = append(msgs, m)
		}
	}
	conv.Stop, a.Stopped = StopMaxTurns, clitask.StoppedMaxTurns
	return nil
}

// timedOut reports whether ctx ended at the run's timeout.
func timedOut(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), clitask.ErrRunTimeout)
}

// complete sends one model call. Once a call has failed to reach the
// server, and none has reached it, later calls fail at once with that
// error: a server no run can reach is not asked again run after run.
func (ag *Agent) complete(ctx context.Context, req chat.Request) (*chat.Response, error) {
	ag.mu.Lock()
	down := ag.down
	ag.mu.Unlock()
	if down != nil && !ag.Reached() {
		return nil, down
	}
	resp, err := ag.call(ctx, req)
	if err == nil {
		ag.reached.Store(true)
		return resp, nil
	}
	var ce *chat.Error
	answered := errors.As(err, &ce) && ce.Answered
	if answered {
		ag.reached.Store(true)
	}
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if ag.failed == nil {
		ag.failed = err
		if timedOut(ctx) {
			ag.failed = fmt.Errorf("%s gave no answer before the run's timeout", ag.client.Host())
		}
	}
	if !answered && ctx.Err() == nil && ag.down == nil {
		ag.down = err
	}
	return nil, err
}

// runTool runs one tool call and returns what the model is told. ok is
// false when ctx ended while the command ran.
func (ag *Agent) runTool(ctx context.Context, a *clitask.Attempt, tc chat.ToolCall) (result string, ok bool) {
	if tc.Function.Name != ToolName {
		return toolError(fmt.Sprintf("there is no tool %q; the only tool is %s", tc.Function.Name, ToolName)), true
	}
	var args struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
		return toolError(fmt.Sprintf(`the arguments of %s must be a JSON object {"command": "..."}; these are not: %v`, ToolName, err)), true
	}
	if args.Command == nil || strings.TrimSpace(*args.Command) == "" {
		return toolError(fmt.Sprintf(`the arguments of %s need "command", the shell command to run`, ToolName)), true
	}
	rec, err := ag.exec(ctx, a, *args.Command)
	if err != nil && !errors.Is(err, clitask.ErrTimeout) {
		if ctx.Err() != nil {
			return "", false
		}
		return toolError("the command could not run: " + a.Redact(err.Error())), true
	}
	return toolResult(rec.ExitCode, cut(a.Redact(rec.Stdout), MaxToolOutput), cut(a.Redact(rec.Stderr), MaxToolOutput)), true
}

// toolResult is {"exit_code", "stdout", "stderr"} as JSON text.
func toolResult(code int, stdout, stderr string) string {
	return jsonText(struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
	}{code, stdout, stderr})
}

// toolError is {"error": msg} as JSON text.
func toolError(msg string) string {
	return jsonText(struct {
		Error string `json:"error"`
	}{msg})
}

// jsonText writes v as one line of JSON without HTML escaping, so that the
// model reads "<" and "&" as written.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// cut keeps at most limit bytes of s (at a rune boundary), ending a cut
// stream with "[... N bytes cut]".
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	keep := limit
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return fmt.Sprintf("%s\n[... %d bytes cut]", s[:keep], len(s)-keep)
}

// exported converts the conversation for the record, redacted.
func exported(msgs []chat.Message, redact func(string) string) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		e := Message{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != nil {
			text := redact(*m.Content)
			e.Content = &text
		}
		for _, tc := range m.ToolCalls {
			var c ToolCall
			c.ID, c.Type = tc.ID, tc.Type
			c.Function.Name, c.Function.Arguments = redact(tc.Function.Name), redact(tc.Function.Arguments)
			e.ToolCalls = append(e.ToolCalls, c)
		}
		out[i] = e
	}
	return out
}
