package voice_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/sandbox"
)

const voiceCall = `Agent: Thank you for calling, um, can I get your member’s ID?
Caller: Sure, it's W one two three four five.
Agent: Thanks. Your prior authorization was not approved.
`

func voiceResult(t *testing.T, env *assert.Env, spec string) assert.CriterionResult {
	t.Helper()
	res, err := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Criteria[0]
}

func TestVoiceFolder(t *testing.T) {
	t.Setenv("ASSAY_JUDGE_URL", "")
	t.Setenv("ASSAY_JUDGE_MODEL", "")
	if !slices.Contains(sandbox.Folders(), "voice") {
		t.Fatalf("folders %q", sandbox.Folders())
	}
	spec := `{"assert": "voice-transcript", "speaker": "agent", "contains": ["member ID"], "not_contains": ["approved"]}`
	load := func(files map[string]string) *assert.Env {
		dir := t.TempDir()
		if files != nil {
			os.Mkdir(filepath.Join(dir, "voice"), 0o755)
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, "voice", name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		env, err := sandbox.Load(dir, sandbox.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	// no voice/ folder: the source is missing
	if c := voiceResult(t, load(nil), spec); c.Status != assert.StatusError {
		t.Errorf("no folder: %s %q", c.Status, c.Details)
	}
	// transcript.txt: the agent said "not approved", which not_contains catches
	c := voiceResult(t, load(map[string]string{"transcript.txt": voiceCall}), spec)
	if c.Status != assert.StatusFailed || c.Score != 0.5 || !strings.Contains(c.Details, `"approved" was found in turn 2`) {
		t.Errorf("text: %s %v %q", c.Status, c.Score, c.Details)
	}
	// transcript.json
	c = voiceResult(t, load(map[string]string{"transcript.json": `{"turns": [{"speaker": "Agent", "text": "Your member ID, please."}]}`}), spec)
	if c.Status != assert.StatusPassed {
		t.Errorf("json: %s %q", c.Status, c.Details)
	}
	// both files, or a malformed one: error, saying where
	if c := voiceResult(t, load(map[string]string{"transcript.txt": voiceCall, "transcript.json": "[]"}), spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "both") {
		t.Errorf("both: %s %q", c.Status, c.Details)
	}
	if c := voiceResult(t, load(map[string]string{"transcript.json": "[{\"speaker\": 3}]"}), spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "transcript.json:1:14: /0/speaker") {
		t.Errorf("malformed: %s %q", c.Status, c.Details)
	}
	// an empty folder
	if c := voiceResult(t, load(map[string]string{}), spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "neither") {
		t.Errorf("empty folder: %s %q", c.Status, c.Details)
	}
	// through LoadFS, over the size cap
	env := sandbox.LoadFS(fstest.MapFS{"voice/transcript.txt": {Data: []byte(voiceCall)}}, sandbox.Options{MaxFileSize: 10})
	if c := voiceResult(t, env, spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "cap") {
		t.Errorf("cap: %s %q", c.Status, c.Details)
	}
}

// TestVoiceJudge configures the LLM judge through Options and through the
// environment, against a fake chat-completions server.
func TestVoiceJudge(t *testing.T) {
	var requests atomic.Int64
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		// the phrase asked, found; the control phrases beside it, not
		verdict := `{"verdicts": [{"phrase": "the request was denied", "found": true, "turn": 2, "quote": "not approved", "reason": "a denial"}]}`
		content, _ := json.Marshal(verdict)
		fmt.Fprintf(w, `{"choices": [{"message": {"content": %s}}]}`, content)
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "voice"), 0o755)
	os.WriteFile(filepath.Join(dir, "voice", "transcript.txt"), []byte(voiceCall), 0o644)
	spec := `{"assert": "voice-transcript", "speaker": "agent", "contains": ["the request was denied"]}`

	t.Setenv("ASSAY_JUDGE_URL", "")
	t.Setenv("ASSAY_JUDGE_MODEL", "")
	t.Setenv("ASSAY_JUDGE_API_KEY", "")
	// no judge: the deterministic matcher alone does not find a paraphrase
	env, _ := sandbox.Load(dir, sandbox.Options{})
	if c := voiceResult(t, env, spec); c.Status != assert.StatusFailed || requests.Load() != 0 {
		t.Errorf("no judge: %s %q", c.Status, c.Details)
	}
	// Options
	env, _ = sandbox.Load(dir, sandbox.Options{JudgeURL: srv.URL, JudgeModel: "m", JudgeAPIKey: "k1"})
	c := voiceResult(t, env, spec)
	if c.Status != assert.StatusPassed || requests.Load() != 2 || auth.Load() != "Bearer k1" {
		t.Errorf("options: %s %q after %d requests", c.Status, c.Details, requests.Load())
	}
	ev, _ := json.Marshal(c.Evidence)
	if !strings.Contains(string(ev), `"method":"llm"`) || !strings.Contains(string(ev), `"quote":"not approved"`) {
		t.Errorf("evidence %s", ev)
	}
	// the environment
	t.Setenv("ASSAY_JUDGE_URL", srv.URL)
	t.Setenv("ASSAY_JUDGE_MODEL", "m")
	t.Setenv("ASSAY_JUDGE_API_KEY", "k2")
	env, _ = sandbox.Load(dir, sandbox.Options{})
	if c := voiceResult(t, env, spec); c.Status != assert.StatusPassed || auth.Load() != "Bearer k2" {
		t.Errorf("environment: %s %q", c.Status, c.Details)
	}
	// a judge URL without a model: the voice checks error, saying so
	t.Setenv("ASSAY_JUDGE_MODEL", "")
	env, _ = sandbox.Load(dir, sandbox.Options{})
	if c := voiceResult(t, env, spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "model") {
		t.Errorf("no model: %s %q", c.Status, c.Details)
	}
}
