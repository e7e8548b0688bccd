package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/chat"
	"github.com/assaykit/assay/internal/retry"
)

const key = "sk-secret-key-0123456789"

func fastRetry() *retry.RetryPolicy {
	p := retry.DefaultRetryPolicy()
	p.RetryPOST = true
	p.MinWait, p.MaxWait = time.Millisecond, 10*time.Millisecond
	return &p
}

func TestComplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("request %s with %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		var req chat.Request
		json.NewDecoder(r.Body).Decode(&req)
		if req.Model != "m1" || len(req.Tools) != 1 || req.Messages[0].Text() != "hi" {
			t.Errorf("request: %+v", req)
		}
		io.WriteString(w, `{"id":"c1","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
			"tool_calls":[{"id":"t1","type":"function","function":{"name":"run_command","arguments":"{\"command\":\"ls\"}"}}]}}],
			"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`)
	}))
	defer srv.Close()
	c, err := chat.New(chat.Config{BaseURL: srv.URL + "/v1/", Model: "m1", APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), chat.Request{
		Messages: []chat.Message{chat.Say("user", "hi")},
		Tools:    []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "run_command", Parameters: json.RawMessage(`{"type":"object"}`)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tc := resp.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].Function.Name != "run_command" || tc[0].Function.Arguments != `{"command":"ls"}` || resp.Usage.TotalTokens != 15 {
		t.Errorf("response: %+v", resp)
	}
}

func TestRetryAndErrors(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/busy/chat/completions":
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`)
		case "/straddle/chat/completions":
			// The key sits across the 500th byte of the body.
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, strings.Repeat("x", 485)+r.Header.Get("Authorization"))
		case "/echo/chat/completions":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"bad key `+r.Header.Get("Authorization")+`"}`)
		case "/junk/chat/completions":
			io.WriteString(w, `<html>hello</html>`)
		case "/huge/chat/completions":
			n.Add(1)
			io.WriteString(w, strings.Repeat("x", 2048))
		case "/hang/chat/completions":
			io.Copy(io.Discard, r.Body) // so the server sees the client go
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	newClient := func(path string) *chat.Client {
		c, err := chat.New(chat.Config{BaseURL: srv.URL + path, APIKey: key, Retry: fastRetry(), MaxAnswer: 1024, Timeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	resp, err := newClient("/busy").Complete(ctx, chat.Request{})
	if err != nil || resp.Choices[0].Message.Text() != "ok" || n.Load() != 2 {
		t.Errorf("429 then 200: %v %v, %d calls", resp, err, n.Load())
	}
	_, err = newClient("/echo").Complete(ctx, chat.Request{})
	var ce *chat.Error
	if !errors.As(err, &ce) || ce.Status != 400 || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("echoed key: %v", err)
	}
	if _, err = newClient("/straddle").Complete(ctx, chat.Request{}); err == nil || strings.Contains(err.Error(), key[:8]) {
		t.Errorf("a key across the cut of the body: %v", err)
	}
	if _, err = newClient("/junk").Complete(ctx, chat.Request{}); err == nil || !strings.Contains(err.Error(), "not a chat completion") {
		t.Errorf("junk: %v", err)
	}
	n.Store(0)
	if _, err = newClient("/huge").Complete(ctx, chat.Request{}); err == nil || !strings.Contains(err.Error(), "over 1024 bytes") || n.Load() != 1 {
		t.Errorf("an answer over the cap: %v after %d calls (never retried)", err, n.Load())
	}
	start := time.Now()
	c := newClient("/hang")
	if _, err = c.Complete(ctx, chat.Request{}); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("hang: %v after %v", err, time.Since(start))
	}
	if _, err := chat.New(chat.Config{BaseURL: "ftp://x/" + key, APIKey: key}); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("a bad URL: %v", err)
	}
	// Answered tells a server that was reached from one that was not
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tt := range []struct {
		base     string
		answered bool
	}{
		{srv.URL + "/echo", true}, {srv.URL + "/junk", true}, {srv.URL + "/huge", true},
		{srv.URL + "/hang", false}, {closed.URL, false},
	} {
		c, _ := chat.New(chat.Config{BaseURL: tt.base, Retry: fastRetry(), MaxAnswer: 1024, Timeout: 100 * time.Millisecond})
		_, err := c.Complete(ctx, chat.Request{})
		if !errors.As(err, &ce) || ce.Answered != tt.answered {
			t.Errorf("%s: %v, answered %v, want %v", tt.base, err, ce != nil && ce.Answered, tt.answered)
		}
	}
}

// Tool call arguments read as a JSON string, or as an object some servers
// send, kept as its text.
func TestToolCallArguments(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"name": "f", "arguments": "{\"command\": \"ls\"}"}`, `{"command": "ls"}`},
		{`{"name": "f", "arguments": {"command": "ls"}}`, `{"command": "ls"}`},
		{`{"name": "f", "arguments": "{not json"}`, `{not json`},
		{`{"name": "f", "arguments": null}`, ``},
		{`{"name": "f"}`, ``},
	} {
		var f chat.FunctionCall
		if err := json.Unmarshal([]byte(tt.in), &f); err != nil || f.Name != "f" || f.Arguments != tt.want {
			t.Errorf("%s: %+v %v, want arguments %q", tt.in, f, err, tt.want)
		}
	}
	var f chat.FunctionCall
	if err := json.Unmarshal([]byte(`{"name": 5}`), &f); err == nil {
		t.Error("a name that is not a string: want an error")
	}
}

// A redirect to another origin is followed without the key.
func TestKeyStaysHome(t *testing.T) {
	var seen atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization") + "|")
		io.WriteString(w, `{"choices":[]}`)
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer home.Close()
	c, _ := chat.New(chat.Config{BaseURL: home.URL + "/v1", APIKey: key})
	if _, err := c.Complete(context.Background(), chat.Request{}); err != nil {
		t.Fatal(err)
	}
	if got := seen.Load(); got != "|" {
		t.Errorf("the other origin saw Authorization %q", got)
	}
}

// FuzzFunctionCall: no input makes the reader panic, and arguments sent
// as a JSON string read as that string.
func FuzzFunctionCall(f *testing.F) {
	for _, s := range []string{`{"name": "f", "arguments": "{}"}`, `{"name": "f", "arguments": {"a": [1]}}`, `{"arguments": null}`, `{"name": 1}`, `[]`, `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var fc chat.FunctionCall
		if json.Unmarshal([]byte(s), &fc) != nil {
			return
		}
		var raw struct{ Arguments any }
		if json.Unmarshal([]byte(s), &raw) == nil {
			if str, ok := raw.Arguments.(string); ok && str != fc.Arguments {
				t.Fatalf("%s: arguments %q, want %q", s, fc.Arguments, str)
			}
		}
	})
}

// A base URL's userinfo authenticates the requests but is never shown: not
// in Endpoint, not in a transport error (net/http stars only the
// password), not in the error for a URL of the wrong scheme; a password
// the server echoes is redacted.
func TestUserinfoNeverShown(t *testing.T) {
	const pw = "pw-secret-98765"
	var user, pass string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ = r.BasicAuth()
		http.Error(w, "bad password "+pass, http.StatusForbidden)
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	hidden := func(t *testing.T, what, s string) {
		t.Helper()
		for _, bad := range []string{"alice", pw, key} {
			if strings.Contains(s, bad) {
				t.Errorf("%s shows %q: %s", what, bad, s)
			}
		}
	}
	answered := strings.Replace(srv.URL, "//", "//alice:"+pw+"@", 1) + "/v1"
	c, err := chat.New(chat.Config{BaseURL: answered, Model: "m", Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	if want := srv.URL + "/v1/chat/completions"; c.Endpoint() != want {
		t.Errorf("Endpoint() = %q, want %q", c.Endpoint(), want)
	}
	_, err = c.Complete(context.Background(), chat.Request{Messages: []chat.Message{chat.Say("user", "hi")}})
	if user != "alice" || pass != pw {
		t.Errorf("the server saw basic auth %q:%q", user, pass)
	}
	if err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("err = %v, want a 403", err)
	}
	hidden(t, "a 403 echoing the password", err.Error())

	refused := strings.Replace(closed.URL, "//", "//alice:"+pw+"@", 1) + "/v1"
	c, err = chat.New(chat.Config{BaseURL: refused, APIKey: key, Model: "m", Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	hidden(t, "Endpoint()", c.Endpoint())
	_, err = c.Complete(context.Background(), chat.Request{Messages: []chat.Message{chat.Say("user", "hi")}})
	if err == nil || !strings.Contains(err.Error(), closed.URL+"/v1/chat/completions") {
		t.Fatalf("err = %v, want one naming the endpoint", err)
	}
	hidden(t, "a refused connection", err.Error())

	for _, bad := range []string{"ftp://alice:" + pw + "@host/v1", "alice:" + pw + "@host:1/v1", "http://alice:" + pw + "@[::1/v1"} {
		_, err := chat.New(chat.Config{BaseURL: bad, APIKey: key})
		if err == nil {
			t.Fatalf("%s: no error", bad)
		}
		hidden(t, "the error for "+bad, err.Error())
	}
}

func TestRetryPolicy(t *testing.T) {
	def := retry.DefaultRetryPolicy()
	for _, tc := range []struct {
		maxRetries int
		minWait    time.Duration
		wantMax    int
		wantMin    time.Duration
	}{
		{0, 0, def.MaxRetries, def.MinWait},
		{-1, 0, 0, def.MinWait},
		{7, 3 * time.Second, 7, 3 * time.Second},
	} {
		p := chat.RetryPolicy(tc.maxRetries, tc.minWait)
		if !p.RetryPOST || p.MaxRetries != tc.wantMax || p.MinWait != tc.wantMin {
			t.Errorf("RetryPolicy(%d, %v) = POST %v, %d retries, min wait %v; want POST, %d, %v",
				tc.maxRetries, tc.minWait, p.RetryPOST, p.MaxRetries, p.MinWait, tc.wantMax, tc.wantMin)
		}
	}
}
