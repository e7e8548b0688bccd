package voice_test

import (
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/internal/golden"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/spec"
	"github.com/assaykit/assay/voice"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func evaluate(t testing.TB, env *assert.Env, spec string) assert.CriterionResult {
	t.Helper()
	res, err := assert.Evaluate(context.Background(), []assert.Criterion{{Assertion: assert.Spec(spec)}}, env)
	if err != nil {
		t.Fatal(err)
	}
	return res.Criteria[0]
}

func memEnv(t testing.TB, text string) *assert.Env {
	t.Helper()
	tr, err := voice.Parse([]byte(text), "")
	if err != nil {
		t.Fatal(err)
	}
	env := assert.NewEnv()
	voice.Attach(env, voice.MemorySource(tr))
	return env
}

const call = `Agent: Hi, this is Dana. Can I get your member’s ID?
Caller: Sure, it's W one two three four five.
Agent: Thanks. Your prior authorization was not approved.
Agent: I'm gonna transfer you to
Agent: the appeals team.
Supervisor: Listening in.`

func TestVoiceTranscript(t *testing.T) {
	env := memEnv(t, call)
	tests := []struct {
		name    string
		spec    string
		status  assert.Status
		score   float64
		details string
	}{
		{"every phrase found",
			`{"assert": "voice-transcript", "speaker": "agent", "contains": ["member ID", "going to transfer you to the appeals team"]}`,
			assert.StatusPassed, 1, "2 of 2 phrases satisfied in the agent's turns."},
		{"the caller said it, not the agent",
			`{"assert": "voice-transcript", "speaker": "agent", "contains": ["W12345", "member ID"]}`,
			assert.StatusFailed, 0.5, `1 of 2 phrases satisfied in the agent's turns; "W12345" was not found.`},
		{"speaker any finds it",
			`{"assert": "voice-transcript", "contains": ["W 1 2 3 4 5"]}`,
			assert.StatusPassed, 1, "1 of 1 phrases satisfied in the transcript."},
		{"negation: not_contains catches \"not approved\"",
			`{"assert": "voice-transcript", "speaker": "agent", "contains": ["approved"], "not_contains": ["approved"]}`,
			assert.StatusFailed, 0.5, `1 of 2 phrases satisfied in the agent's turns; "approved" was found in turn 2 ("approved", exact).`},
		{"absent phrase passes not_contains",
			`{"assert": "voice-transcript", "speaker": "caller", "not_contains": ["approved", "I can't help"]}`,
			assert.StatusPassed, 1, "2 of 2 phrases satisfied in the caller's turns."},
		{"ivr has no turns",
			`{"assert": "voice-transcript", "speaker": "ivr", "contains": ["press one"], "not_contains": ["goodbye"]}`,
			assert.StatusFailed, 0.5, `1 of 2 phrases satisfied in the ivr's turns; "press one" was not found.`},
		{"no phrases is a bad spec",
			`{"assert": "voice-transcript", "speaker": "agent"}`,
			assert.StatusFailed, 0, "at least one phrase"},
		{"a phrase of fillers is a bad spec",
			`{"assert": "voice-transcript", "contains": ["um, uh"]}`,
			assert.StatusFailed, 0, `contains[0] "um, uh" has no words to match`},
		{"unknown speaker value",
			`{"assert": "voice-transcript", "speaker": "nurse", "contains": ["x"]}`,
			assert.StatusFailed, 0, "speaker"},
		{"unknown key",
			`{"assert": "voice-transcript", "contain": ["x"]}`,
			assert.StatusFailed, 0, "contain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := evaluate(t, env, tt.spec)
			if c.Status != tt.status || c.Score != tt.score || !strings.Contains(c.Details, tt.details) {
				t.Errorf("got %s %v %q\nwant %s %v %q", c.Status, c.Score, c.Details, tt.status, tt.score, tt.details)
			}
		})
	}
}

func TestVoiceTranscriptErrors(t *testing.T) {
	spec := `{"assert": "voice-transcript", "contains": ["hello"]}`
	// no source
	if c := evaluate(t, assert.NewEnv(), spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "voice") {
		t.Errorf("no source: %s %q", c.Status, c.Details)
	}
	// a malformed file
	env := assert.NewEnv()
	voice.Attach(env, voice.FolderSource(fstest.MapFS{"transcript.json": {Data: []byte(`[{"speaker": 1}]`)}}, 0))
	if c := evaluate(t, env, spec); c.Status != assert.StatusError || !strings.Contains(c.Details, "transcript.json:1:14: /0/speaker") {
		t.Errorf("malformed: %s %q", c.Status, c.Details)
	}
	// an empty transcript is evidence: contains fails, not_contains passes
	env = memEnv(t, "")
	c := evaluate(t, env, `{"assert": "voice-transcript", "contains": ["hello"], "not_contains": ["bye"]}`)
	if c.Status != assert.StatusFailed || c.Score != 0.5 || !strings.Contains(c.Details, "the transcript has no turns") {
		t.Errorf("empty: %s %v %q", c.Status, c.Score, c.Details)
	}
	// non-UTF-8 bytes read as U+FFFD and do not stop the match
	env = memEnv(t, "Agent: your claim \xff\xfe was approved")
	if c := evaluate(t, env, `{"assert": "voice-transcript", "contains": ["claim was approved"]}`); c.Status != assert.StatusPassed {
		t.Errorf("non-UTF-8: %s %q", c.Status, c.Details)
	}
}

// TestGoldenEvidence pins the evidence of one check in
// testdata/golden/evidence.json (rewrite with -update).
func TestGoldenEvidence(t *testing.T) {
	env := memEnv(t, call)
	c := evaluate(t, env, `{"assert": "voice-transcript", "speaker": "any", "contains": ["member ID", "W12345", "transfer you to the appeals team", "prior authorisation was not aproved"], "not_contains": ["approved", "member name"]}`)
	got := golden.JSON(t, map[string]any{"status": c.Status, "score": c.Score, "details": c.Details, "evidence": c.Evidence})
	golden.Compare(t, filepath.Join("testdata", "golden", "evidence.json"), got, *update)
}

// TestSpecBuilder decodes the typed builder's output: the schema accepts
// exactly what package spec writes.
func TestSpecBuilder(t *testing.T) {
	for _, v := range []spec.VoiceTranscript{
		{Contains: []string{"hello"}},
		{Speaker: spec.SpeakerIVR, NotContains: []string{"goodbye"}},
		{Speaker: spec.SpeakerCaller, Contains: []string{"a"}, NotContains: []string{"b"}},
	} {
		if _, err := assert.Decode(v.Spec()); err != nil {
			t.Errorf("%s: %v", v.Spec(), err)
		}
	}
	if kinds := assert.Kinds(); !slices.Contains(kinds, voice.Kind) {
		t.Errorf("kinds %q", kinds)
	}
	schema, _ := assert.Schema(voice.Kind)
	for _, key := range []string{`"speaker"`, `"contains"`, `"not_contains"`} {
		if !strings.Contains(string(schema), key) {
			t.Errorf("schema lacks %s", key)
		}
	}
}
