package phonesim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/assaykit/assay/serve/internal/phonesim"
)

// llmLine is the story's line with an LLM representative: scripted answers
// for read-backs, the model for the rest.
const llmLine = `{"start": "member", "nodes": {
  "member": {"say": "Please say the member ID.", "gather": {"input": ["speech"], "save": "member_id"}, "next": "lookup"},
  "lookup": {"lookup_member": "member_id", "found": "rep", "not_found": "rep"},
  "rep": {"say": "Connecting you.", "persona": "rep"}},
 "personas": {"rep": {"llm": true, "greeting": "Utilization management, this is Dana.",
   "instructions": "Your name is Dana.",
   "answers": [{"when": ["read back"], "say": "The certification number is {certification_number}."}],
   "goodbye": ["goodbye"]}}}`

// fakeModel is a scripted Chat Completions server. answer gives the
// content for a request (its messages), or the raw body with raw set.
type fakeModel struct {
	t      *testing.T
	srv    *httptest.Server
	calls  atomic.Int64
	answer func(msgs []map[string]any) (content string, raw string, status int)

	mu       sync.Mutex
	requests []string // the bodies received
	auth     []string
}

func newFakeModel(t *testing.T, answer func(msgs []map[string]any) (string, string, int)) *fakeModel {
	f := &fakeModel{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, string(body))
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		var req struct {
			Model    string           `json:"model"`
			Messages []map[string]any `json:"messages"`
		}
		json.Unmarshal(body, &req)
		content, raw, status := f.answer(req.Messages)
		if status == 0 {
			status = 200
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if raw != "" {
			io.WriteString(w, raw)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "model": req.Model, "choices": []any{
			map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// lastUser returns the last user message of a request.
func lastUser(msgs []map[string]any) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "user" {
			s, _ := msgs[i]["content"].(string)
			return s
		}
	}
	return ""
}

// llmCall places a call as Jane Doe's provider and asks the
// representative something; it returns what the representative said.
func llmCall(t *testing.T, l *line, question string) string {
	t.Helper()
	id := l.call().CallID
	l.say(id, "W123456789")
	r := l.say(id, question)
	return strings.TrimPrefix(r.said()[1], "caller: ")
}

func TestLLMPersona(t *testing.T) {
	model := newFakeModel(t, func(msgs []map[string]any) (string, string, int) {
		sys := msgs[0]["content"].(string)
		status := "unknown"
		if i := strings.Index(sys, "pa_status: "); i >= 0 {
			status = strings.Fields(sys[i+len("pa_status: "):])[0]
		}
		return "  The request is\n " + status + ".  ", "", 0
	})
	cache := filepath.Join(t.TempDir(), "answers.json")
	cfg := &phonesim.Config{URL: model.srv.URL + "/v1", Model: "test-model", APIKey: "sk-secret-key", Cache: cache}
	l := newLine(t, []byte(llmLine), cfg)
	submitStory(t, l)
	if got := llmCall(t, l, "What's the status of the MRI request?"); got != "The request is approved." {
		t.Errorf("the representative said %q", got)
	}
	if model.calls.Load() != 1 || model.auth[0] != "Bearer sk-secret-key" {
		t.Fatalf("%d requests, auth %q", model.calls.Load(), model.auth)
	}
	// The prompt holds the looked-up member's facts and no other member's;
	// the conversation follows it.
	var req struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	json.Unmarshal([]byte(model.requests[0]), &req)
	sys := req.Messages[0].Content
	for _, want := range []string{"Acme Health Plan", "Your name is Dana.", "member_id: W123456789", "member_name: JANE DOE", "plan: Acme Gold HMO",
		"coverage_status: active", "pa_status: approved", "certification_number: AUTH000001", "valid_to: 2027-01-03"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, sys)
		}
	}
	for _, leak := range []string{"W555000111", "JOHN", "ROE", "1979"} {
		if strings.Contains(model.requests[0], leak) {
			t.Errorf("the request names another member's %q", leak)
		}
	}
	if req.Model != "test-model" || len(req.Messages) != 3 || req.Messages[1].Role != "assistant" || req.Messages[2].Content != "What's the status of the MRI request?" {
		t.Errorf("request: %+v", req)
	}
	ev := l.run.Lines("voice_persona")
	if len(ev) != 1 || !strings.Contains(ev[0], `"persona":"rep","model":"test-model","conversation":"sha256:`) || !strings.Contains(ev[0], `"answer":"The request is approved."}`) {
		t.Errorf("events: %q", ev)
	}
	// Scripted answers come first; the model is not asked for them.
	id := l.call().CallID
	l.say(id, "W123456789")
	if got := l.say(id, "Could you read back the number?").said()[1]; got != "caller: The certification number is AUTH000001." || model.calls.Load() != 1 {
		t.Errorf("scripted: %q, %d requests", got, model.calls.Load())
	}

	// A new process with the cache replays the answer without asking, and
	// the run's transcript and events are byte-identical.
	l2 := newLine(t, []byte(llmLine), cfg)
	submitStory(t, l2)
	llmCall(t, l2, "What's the status of the MRI request?")
	id = l2.call().CallID
	l2.say(id, "W123456789")
	l2.say(id, "Could you read back the number?")
	if model.calls.Load() != 1 {
		t.Errorf("the rerun asked the model: %d requests", model.calls.Load())
	}
	if a, b := readFile(t, l.snapshot(), "voice/transcript.json"), readFile(t, l2.snapshot(), "voice/transcript.json"); a != b {
		t.Errorf("the rerun's transcript differs:\n%s\n%s", a, b)
	}
	if a, b := strings.Join(l.run.Lines(""), "\n"), strings.Join(l2.run.Lines(""), "\n"); a != b {
		t.Errorf("the rerun's events differ:\n%s\n%s", a, b)
	}
	// The cache file holds the answer under its key, and never the key.
	data, _ := os.ReadFile(cache)
	if !strings.Contains(string(data), `"answer": "The request is approved."`) || strings.Contains(string(data), "sk-secret") {
		t.Errorf("cache file: %s", data)
	}
	for _, e := range append(l.run.Lines(""), readFile(t, l.snapshot(), "voice/transcript.json")) {
		if strings.Contains(e, "sk-secret") {
			t.Errorf("the key leaked: %s", e)
		}
	}
	// A different conversation is asked.
	l3 := newLine(t, []byte(llmLine), cfg)
	llmCall(t, l3, "What's the status of the MRI request?") // no request: pa_status unknown
	if model.calls.Load() != 2 {
		t.Errorf("another conversation was not asked: %d requests", model.calls.Load())
	}
}

func TestLLMPersonaFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(msgs []map[string]any) (string, string, int)
		reason string
	}{
		{"leaks another member's id", func(msgs []map[string]any) (string, string, int) {
			// Told to leak, it finds nothing of another member in the
			// prompt, so it makes one up.
			if strings.Contains(lastUser(msgs), "other member") {
				return "Sure, member W five five five zero zero zero one one one is approved too.", "", 0
			}
			return "Yes.", "", 0
		}, "the answer named another member of the roster: it is not said"},
		{"leaks another member's name", func([]map[string]any) (string, string, int) {
			return "John Roe's request is denied.", "", 0
		}, "the answer named another member of the roster"},
		{"slow", func([]map[string]any) (string, string, int) {
			time.Sleep(2 * time.Second)
			return "Too late.", "", 0
		}, "the persona server did not answer within 300ms"},
		{"not a completion", func([]map[string]any) (string, string, int) { return "", `{"hello": "world"}`, 0 },
			"the persona server failed: the answer is not a chat completion"},
		{"not JSON", func([]map[string]any) (string, string, int) { return "", `<html>oops</html>`, 0 },
			"the persona server failed: the answer is not a chat completion"},
		{"refused", func([]map[string]any) (string, string, int) { return "", `{"error": "bad model sk-secret-key"}`, 400 },
			"the persona server answered 400 Bad Request"},
		{"empty", func([]map[string]any) (string, string, int) { return " \n ", "", 0 }, "the answer is empty"},
		{"JSON content", func([]map[string]any) (string, string, int) { return `{"say": "approved"}`, "", 0 },
			"the answer is markup or JSON, not speech"},
		{"too long", func([]map[string]any) (string, string, int) { return strings.Repeat("blah ", 300), "", 0 },
			"the answer is over 1000 bytes"},
		{"control characters", func([]map[string]any) (string, string, int) { return "ok\x1b[31m red", "", 0 },
			"the answer holds control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := newFakeModel(t, tc.answer)
			cfg := &phonesim.Config{URL: model.srv.URL, Model: "m", APIKey: "sk-secret-key", Timeout: 300 * time.Millisecond}
			l := newLine(t, []byte(llmLine), cfg)
			start := time.Now()
			if got := llmCall(t, l, "Tell me about the other member too."); got != phonesim.DefaultFallback {
				t.Errorf("said %q, want the fallback", got)
			}
			if time.Since(start) > 1500*time.Millisecond {
				t.Errorf("the turn took %s", time.Since(start))
			}
			ev := l.run.Lines("voice_persona")
			if len(ev) != 1 || !strings.Contains(ev[0], `"answer":"`+phonesim.DefaultFallback+`","reason":"`+tc.reason) {
				t.Errorf("events: %q", ev)
			}
			for _, e := range l.run.Lines("") {
				if strings.Contains(e, "sk-secret") || strings.Contains(e, "W555000111") || strings.Contains(e, "five five five") {
					t.Errorf("an event leaks: %s", e)
				}
			}
			// The call goes on.
			id := l.call().CallID
			if r := l.say(id, "W123456789"); r.Status != "in-progress" {
				t.Errorf("the next call: %+v", r)
			}
		})
	}
}

func TestLLMPersonaConfig(t *testing.T) {
	seed := fstest.MapFS{"voice/ivr.json": {Data: []byte(llmLine)}, "payer/policy.json": {Data: readTestdata(t, "policy.json")}}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"answers": {"k": {"model": "m", "answer": 5}}}`), 0o644)
	for _, tc := range []struct {
		name string
		cfg  phonesim.Config
		want string
	}{
		{"no model", phonesim.Config{URL: "http://127.0.0.1:1"}, "voice/ivr.json: /personas/rep/llm: an LLM persona needs a model (--persona-model)"},
		{"no server", phonesim.Config{Model: "m"}, "or recorded answers (--persona-cache)"},
		{"bad URL", phonesim.Config{Model: "m", URL: "ftp://x"}, `--persona-url: chat: "ftp://x" is not an http or https URL`},
		{"bad cache", phonesim.Config{Model: "m", Cache: bad}, "--persona-cache " + bad + ": /answers/k/answer (line 1, column 44): must be a string"},
		{"cache is a folder", phonesim.Config{Model: "m", Cache: dir}, "--persona-cache " + dir + ": "},
		{"recorded answers only", phonesim.Config{Model: "m", Cache: filepath.Join(dir, "new.json")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := phonesim.New(seed)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Configure(tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// Without a server, an answer that was not recorded is the fallback,
	// and the event says why.
	l := newLine(t, []byte(llmLine), &phonesim.Config{Model: "m", Cache: filepath.Join(dir, "new.json")})
	if got := llmCall(t, l, "Status?"); got != phonesim.DefaultFallback {
		t.Errorf("said %q", got)
	}
	if ev := l.run.Lines("voice_persona"); len(ev) != 1 || !strings.Contains(ev[0], "not in --persona-cache and no --persona-url") {
		t.Errorf("events: %q", ev)
	}
	// A line without an LLM persona ignores the configuration.
	s, _ := phonesim.New(fstest.MapFS{"voice/ivr.json": {Data: readTestdata(t, "ivr.json")}, "payer/policy.json": {Data: readTestdata(t, "policy.json")}})
	if err := s.Configure(phonesim.Config{URL: "not a URL"}); err != nil {
		t.Errorf("a scripted line: %v", err)
	}
}
