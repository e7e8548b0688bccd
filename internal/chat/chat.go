// Package chat is assay's one client of the Chat Completions API: the LLM
// judge of voice transcripts, the model agent of assay run and the LLM
// persona of assay serve's phone line all speak it, to any compatible server
// (hosted gateways, vLLM, llama.cpp's server, Ollama).
//
// A Client sends one completion per Complete call with the shared retry
// policy (408, 429 with Retry-After, 5xx and lost connections are retried;
// POST is retried, since asking again is harmless), bounds each attempt by a
// timeout and each answer by a size cap, sends the API key only to the base
// URL's origin (a redirect elsewhere goes without it), and never lets the key
// into an error, even when a server echoes it back.
package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/internal/origin"
	"github.com/assaykit/assay/internal/retry"
)

// Defaults.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultMaxAnswer = 4 << 20
)

// Config configures a Client.
type Config struct {
	// BaseURL is the API's base ("https://api.openai.com/v1";
	// "/chat/completions" is appended) or the full chat-completions URL.
	BaseURL string
	// Model is sent with every request that names none.
	Model string
	// APIKey, when not "", is sent as "Authorization: Bearer KEY" to the
	// base URL's origin only. It never appears in errors.
	APIKey string
	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Timeout bounds each attempt (default DefaultTimeout).
	Timeout time.Duration
	// Retry is the retry policy; nil means retry.DefaultRetryPolicy() with POST
	// retried (asking again is harmless).
	Retry *retry.RetryPolicy
	// MaxAnswer caps the bytes of one answer read (default
	// DefaultMaxAnswer).
	MaxAnswer int64
}

// Client sends chat completions. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
	shown    string         // endpoint without userinfo
	secret   *origin.Secret // the key and the base URL's password
	home     origin.Origin
	http     *http.Client
	policy   retry.RetryPolicy
	calls    atomic.Int64
}

// New returns a client; it fails when the base URL is not an http or https
// URL.
func New(c Config) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("chat: %q is not an http or https URL", origin.Redact(hideUserinfo(c.BaseURL), c.APIKey))
	}
	endpoint := strings.TrimRight(u.String(), "/")
	if !strings.HasSuffix(endpoint, "/chat/completions") {
		endpoint += "/chat/completions"
	}
	// Requests carry the userinfo (basic auth); what is shown never does.
	var secrets []string
	if pw, ok := u.User.Password(); ok {
		secrets = append(secrets, pw)
	}
	shown, _ := url.Parse(endpoint)
	shown.User = nil
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxAnswer <= 0 {
		c.MaxAnswer = DefaultMaxAnswer
	}
	p := RetryPolicy(0, 0)
	if c.Retry != nil {
		p = *c.Retry
	}
	home := origin.Of(u)
	return &Client{cfg: c, endpoint: endpoint, shown: shown.String(), secret: origin.NewSecret(append(secrets, c.APIKey)...),
		home: home, http: origin.Guard(c.HTTPClient, home, c.APIKey), policy: p.WithDefaults()}, nil
}

// RetryPolicy is retry.DefaultRetryPolicy with POST retried (a completion
// asked again is harmless), as the clients' own settings adjust it:
// maxRetries < 0 retries nothing, > 0 that many times, 0 the default;
// minWait > 0 is the shortest wait between attempts.
func RetryPolicy(maxRetries int, minWait time.Duration) retry.RetryPolicy {
	p := retry.DefaultRetryPolicy()
	p.RetryPOST = true
	switch {
	case maxRetries < 0:
		p.MaxRetries = 0
	case maxRetries > 0:
		p.MaxRetries = maxRetries
	}
	if minWait > 0 {
		p.MinWait = minWait
	}
	return p
}

// hideUserinfo returns raw with what comes before the last "@" of its
// authority (a user name and password) replaced by [REDACTED], for a URL
// that did not parse as one to use.
func hideUserinfo(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "//")
	if !ok {
		scheme, rest = "", raw
	} else {
		scheme += "//"
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return scheme + origin.Redacted + rest[at:]
	}
	return raw
}

// withoutUserinfo returns s with every URL's userinfo that err names (a
// *url.Error's URL, the password already starred by net/http) removed.
func withoutUserinfo(s string, err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return s
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil || u.User == nil {
		return s
	}
	u.User = nil
	return strings.ReplaceAll(s, ue.URL, u.String())
}

// Endpoint returns the chat-completions URL requests go to, without the
// userinfo the base URL may hold.
func (c *Client) Endpoint() string { return c.shown }

// Host names the server in messages (its host and port).
func (c *Client) Host() string { return c.home.Host + ":" + c.home.Port }

// Calls returns how many HTTP requests the client has sent, retries
// included.
func (c *Client) Calls() int64 { return c.calls.Load() }

// Message is one message of a conversation.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// Text returns a message's content, "" when it has none.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// Say returns a message of role with text as its content.
func Say(role, text string) Message { return Message{Role: role, Content: &text} }

// ToolCall is a model's request to call a tool.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function a tool call calls and holds its
// arguments: JSON text, as the model wrote it (not necessarily valid).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// UnmarshalJSON reads a function call whose arguments are a JSON string
// (the API's form) or, as some servers send them, a JSON object, kept as
// its text.
func (f *FunctionCall) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	f.Name, f.Arguments = raw.Name, ""
	switch a := bytes.TrimSpace(raw.Arguments); {
	case len(a) == 0 || string(a) == "null":
	case a[0] == '"':
		return json.Unmarshal(a, &f.Arguments)
	default:
		f.Arguments = string(a)
	}
	return nil
}

// Tool describes a function the model may call.
type Tool struct {
	Type     string       `json:"type"` // "function"
	Function ToolFunction `json:"function"`
}

// ToolFunction is a tool's name, description and JSON Schema of arguments.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one completion request. Model defaults to Config.Model.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

// Response is a completion as the server answered it.
type Response struct {
	ID      string   `json:"id"`
	Model   string   `json:"model"`
	Choices []Choice `json:"choices"`
	Usage   Usage    `json:"usage"`
}

// Choice is one of a response's choices.
type Choice struct {
	Index        int     `json:"index"`
	Message      Message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// Usage is a response's token counts.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Error is a request that got no usable completion: a status other than
// 2xx (Status set, Body a redacted snippet of what came back), a transport
// failure or timeout (Err), or an answer that is not a chat completion.
type Error struct {
	Host   string
	Status int
	Body   string
	Reason string
	Err    error
	// Answered says the server sent an HTTP response (any status) to some
	// attempt of the request: it was reached, whatever went wrong after.
	Answered bool
}

func (e *Error) Error() string {
	switch {
	case e.Status != 0 && e.Body != "":
		return fmt.Sprintf("%s answered %d %s: %s", e.Host, e.Status, http.StatusText(e.Status), e.Body)
	case e.Status != 0:
		return fmt.Sprintf("%s answered %d %s", e.Host, e.Status, http.StatusText(e.Status))
	case e.Reason != "":
		return e.Host + ": " + e.Reason
	}
	return fmt.Sprintf("%s: %v", e.Host, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Complete sends req and returns the server's completion. Its errors are
// *Error, or ctx's error when ctx ended first.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	if req.Model == "" {
		req.Model = c.cfg.Model
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("chat: encoding the request: %w", err)
	}
	data, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil || resp.Choices == nil {
		return nil, &Error{Host: c.Host(), Reason: "the answer is not a chat completion", Answered: true}
	}
	return &resp, nil
}

// post sends body with the retry policy and returns a 2xx answer's body.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	p := c.policy
	answered := false
	fail := func(status int, body []byte, err error) error {
		e := c.fail(status, body, err)
		e.Answered = answered
		return e
	}
	for attempt := 0; ; attempt++ {
		c.calls.Add(1)
		resp, data, err := c.once(ctx, body)
		answered = answered || resp != nil || errors.Is(err, errTooLarge)
		if attempt < p.MaxRetries && !errors.Is(err, errTooLarge) {
			if resp != nil {
				resp.Body = io.NopCloser(bytes.NewReader(data))
			}
			again, cerr := p.CheckRetry(ctx, resp, err)
			if cerr != nil {
				return nil, fail(0, nil, cerr)
			}
			if again {
				if err := retry.Sleep(ctx, retry.CapWait(p.Backoff(p.MinWait, p.MaxWait, attempt, resp), p.MaxWait)); err != nil {
					return nil, fail(0, nil, err)
				}
				continue
			}
		}
		switch {
		case err != nil:
			return nil, fail(0, nil, err)
		case resp.StatusCode/100 != 2:
			return nil, fail(resp.StatusCode, data, nil)
		}
		return data, nil
	}
}

var errTooLarge = errors.New("answer too large")

// fail builds an *Error with everything the key could hide in redacted.
func (c *Client) fail(status int, body []byte, err error) *Error {
	e := &Error{Host: c.Host(), Status: status}
	if len(body) > 0 {
		// Redact before cutting: a key that straddles the cut would
		// otherwise leave its first half behind.
		snippet := strings.TrimSpace(c.secret.Redact(string(body)))
		if len(snippet) > 500 {
			snippet = strings.ToValidUTF8(snippet[:500], "") + " [...]"
		}
		e.Body = snippet
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			e.Err = err
			e.Reason = err.Error()
		} else {
			e.Reason = c.secret.Redact(withoutUserinfo(err.Error(), err))
			e.Err = errors.New(e.Reason)
		}
	}
	return e
}

// once sends one attempt, bounded by the timeout, and reads at most
// MaxAnswer bytes of the answer.
func (c *Client) once(ctx context.Context, body []byte) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	origin.Authorize(req, c.home, c.cfg.APIKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxAnswer+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > c.cfg.MaxAnswer {
		return nil, nil, fmt.Errorf("the answer is over %d bytes: %w", c.cfg.MaxAnswer, errTooLarge)
	}
	return resp, data, nil
}
