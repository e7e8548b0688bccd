// Package chattest serves a scripted Chat Completions API for tests of the
// model agent and of assay run: the model named in a request decides the
// answer, so one server plays every behaviour a test needs (see Server).
package chattest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a fake Chat Completions server on 127.0.0.1. Its models, named
// by the last segment of a request's model ("local/solver" is solver):
//
//   - solver runs, one per call, each command written between backticks in
//     the task (the first user message), then answers "Done." without a
//     tool call. It counts the commands done by the tool results that hold
//     an exit code, so it carries on after an error message.
//   - quitter answers at once, without a tool call.
//   - looper calls run_command with "true" on every call.
//   - badjson first calls run_command with arguments that are not JSON,
//     unknowntool first calls a tool that does not exist, toolobject sends
//     its arguments as a JSON object; then each plays solver.
//   - batch asks for every command of the task in one answer.
//   - ratelimited answers the first call of each conversation 429 with
//     Retry-After: 1, then plays solver.
//   - hang never answers (until the client goes away).
//   - nochoices answers a completion without choices.
//   - echoauth answers 401 with the request's Authorization header in the
//     body, as a careless server might.
//   - failing answers 500 to everything.
//
// Any other model is a 404, unless WithFallback names a model it plays.
// Every answer counts usage: 10 prompt tokens per message sent and 5
// completion tokens.
type Server struct {
	// URL is the API's base URL, ending in /v1.
	URL string

	srv      *httptest.Server
	latency  time.Duration
	fallback string
	slept    atomic.Int64

	mu       sync.Mutex
	requests []Seen
	limited  map[string]bool
}

// Seen is what the server saw of one request.
type Seen struct {
	Model         string
	Authorization string
	Messages      int
	Tools         []string
}

// Option configures a Server.
type Option func(*Server)

// WithLatency makes every answer wait d first (the model "thinking").
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency = d } }

// WithFallback makes every model the server does not know play model (one
// of Server's), as a stand-in for real models a test cannot reach.
func WithFallback(model string) Option { return func(s *Server) { s.fallback = model } }

// models are the models Server plays.
var models = map[string]bool{"solver": true, "quitter": true, "looper": true, "badjson": true, "unknowntool": true,
	"toolobject": true, "batch": true, "ratelimited": true, "hang": true, "nochoices": true, "echoauth": true, "failing": true}

// NewServer starts a server; Close stops it.
func NewServer(opts ...Option) *Server {
	s := &Server{limited: map[string]bool{}}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns what the server saw, in order.
func (s *Server) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.requests...)
}

// Slept returns the latency the server has added, summed over requests.
func (s *Server) Slept() time.Duration { return time.Duration(s.slept.Load()) }

type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type request struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var req request
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error": {"message": "not found"}}`, http.StatusNotFound)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	seen := Seen{Model: req.Model, Authorization: r.Header.Get("Authorization"), Messages: len(req.Messages)}
	for _, t := range req.Tools {
		seen.Tools = append(seen.Tools, t.Function.Name)
	}
	s.mu.Lock()
	s.requests = append(s.requests, seen)
	s.mu.Unlock()
	if s.latency > 0 {
		select {
		case <-time.After(s.latency):
			s.slept.Add(int64(s.latency))
		case <-r.Context().Done():
			return
		}
	}
	model := req.Model[strings.LastIndex(req.Model, "/")+1:]
	if !models[model] && s.fallback != "" {
		model = s.fallback
	}
	var reply message
	switch model {
	case "hang":
		<-r.Context().Done()
		return
	case "nochoices":
		fmt.Fprintf(w, `{"id": "x", "choices": [], "usage": {"prompt_tokens": %d, "completion_tokens": 5}}`, 10*len(req.Messages))
		return
	case "echoauth":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error": {"message": %s}}`, mustString("invalid key in "+r.Header.Get("Authorization")))
		return
	case "failing":
		http.Error(w, `{"error": {"message": "the model crashed"}}`, http.StatusInternalServerError)
		return
	case "ratelimited":
		key := conversation(req)
		s.mu.Lock()
		first := !s.limited[key]
		s.limited[key] = true
		s.mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error": {"message": "slow down"}}`, http.StatusTooManyRequests)
			return
		}
		reply = solve(req, 1)
	case "solver":
		reply = solve(req, 1)
	case "batch":
		reply = solve(req, 1<<20)
	case "quitter":
		reply = say("I would rather not.")
	case "looper":
		reply = call("call_"+fmt.Sprint(len(req.Messages)), "run_command", `{"command": "true"}`)
	case "badjson", "unknowntool", "toolobject":
		if !answered(req) {
			switch model {
			case "badjson":
				reply = call("call_bad", "run_command", `{"command": "ls`)
			case "unknowntool":
				reply = call("call_unknown", "delete_everything", `{"path": "/"}`)
			default:
				reply = solve(req, 1)
				for i, tc := range reply.ToolCalls {
					var args string
					json.Unmarshal(tc.Function.Arguments, &args)
					reply.ToolCalls[i].Function.Arguments = json.RawMessage(args) // the object itself
				}
			}
		} else {
			reply = solve(req, 1)
		}
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error": {"message": %s}}`, mustString("model "+req.Model+" not found"))
		return
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": reply, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 10 * len(req.Messages), "completion_tokens": 5, "total_tokens": 10*len(req.Messages) + 5},
	})
}

var backticked = regexp.MustCompile("`([^`]+)`")

// solve asks for the next commands of the task, at most n, or says it is
// done.
func solve(req request, n int) message {
	var task string
	for _, m := range req.Messages {
		if m.Role == "user" && m.Content != nil {
			task = *m.Content
			break
		}
	}
	var commands []string
	for _, m := range backticked.FindAllStringSubmatch(task, -1) {
		commands = append(commands, m[1])
	}
	done := toolResults(req)
	if done >= len(commands) {
		return say("Done.")
	}
	out := message{Role: "assistant"}
	for i, c := range commands[done:min(len(commands), done+n)] {
		args, _ := json.Marshal(map[string]string{"command": c})
		out.ToolCalls = append(out.ToolCalls, call(fmt.Sprintf("call_%d_%d", len(req.Messages), i), "run_command", string(args)).ToolCalls...)
	}
	return out
}

// answered reports whether the conversation holds a tool message.
func answered(req request) bool {
	for _, m := range req.Messages {
		if m.Role == "tool" {
			return true
		}
	}
	return false
}

// toolResults counts the tool messages that report a command's exit code.
func toolResults(req request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "tool" && m.Content != nil && strings.HasPrefix(*m.Content, `{"exit_code"`) {
			n++
		}
	}
	return n
}

func say(text string) message { return message{Role: "assistant", Content: &text} }

// call asks for one tool call, its arguments (JSON text) as a JSON string.
func call(id, name, args string) message {
	var tc toolCall
	tc.ID, tc.Type = id, "function"
	tc.Function.Name = name
	tc.Function.Arguments = json.RawMessage(mustString(args))
	return message{Role: "assistant", ToolCalls: []toolCall{tc}}
}

// mustString is s in JSON.
func mustString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// conversation identifies a conversation by its first two messages.
func conversation(req request) string {
	h := sha256.New()
	for _, m := range req.Messages[:min(2, len(req.Messages))] {
		if m.Content != nil {
			h.Write([]byte(*m.Content))
		}
		h.Write([]byte{0})
	}
	return req.Model + hex.EncodeToString(h.Sum(nil))
}
