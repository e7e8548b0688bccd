package voice_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assaykit/assay/voice"
)

func TestLooseStages(t *testing.T) {
	long := strings.Repeat("please listen carefully because our menu options have changed recently ", 10)
	tests := []struct {
		name, transcript, phrase string
		speaker                  voice.Speaker
		found                    bool
		method                   voice.Method
		turn                     int
		quote                    string
	}{
		{"word boundaries, not substrings", "Caller: how do I undo items", "do it", voice.Any, false, voice.MethodNone, -1, ""},
		{"exact after normalising", "Agent: Your member’s ID, um, please?", "member ID please", voice.Any, true, voice.MethodExact, 0, "member’s ID, um, please"},
		{"fuzzy misspelling", "Agent: the perscription is ready", "prescription is ready", voice.Any, true, voice.MethodFuzzy, 0, "perscription is ready"},
		{"fuzzy joins split words", "Agent: your co pay is due", "copay is due", voice.Any, true, voice.MethodFuzzy, 0, "co pay is due"},
		{"numbers never fuzzy", "Agent: member W123456789 verified", "W123456788", voice.Any, false, voice.MethodNone, -1, ""},
		{"a pronoun never fuzzy", "Caller: so I don't need to call back", "you don't need to call back", voice.Any, false, voice.MethodNone, -1, ""},
		{"a negation never fuzzy", "Agent: your prior authorization request was not approved today", "your prior authorization request was approved today", voice.Any, false, voice.MethodNone, -1, ""},
		{"short phrases exact only", "Agent: yet", "yes", voice.Any, false, voice.MethodNone, -1, ""},
		{"split across turns of one speaker", "Agent: I'll transfer you to\nAgent: the billing team", "transfer you to the billing team", voice.Agent, true, voice.MethodExact, 0, "transfer you to / the billing team"},
		{"not across another speaker", "Agent: I'll transfer you to\nCaller: okay\nAgent: the billing team", "transfer you to the billing team", voice.Agent, false, voice.MethodNone, -1, ""},
		{"a number split across turns", "Caller: it's five five five\nCaller: one two one two", "555-1212", voice.Caller, true, voice.MethodExact, 0, "five five five / one two one two"},
		{"speaker filter", "Agent: hello\nCaller: goodbye", "goodbye", voice.Agent, false, voice.MethodNone, -1, ""},
		{"turn index in the whole transcript", "IVR: press one\nCaller: agent\nAgent: hello there", "hello there", voice.Agent, true, voice.MethodExact, 2, "hello there"},
		{"long phrase, exact", "IVR: " + long, long, voice.IVR, true, voice.MethodExact, 0, strings.TrimSpace(long)},
		{"long phrase, no fuzzy", "IVR: " + long, strings.Replace(long, "menu", "manu", 1), voice.IVR, false, voice.MethodNone, -1, ""},
		{"empty turn", "Agent:\nCaller:", "hello", voice.Any, false, voice.MethodNone, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := match(t, voice.Loose{}, tt.transcript, tt.speaker, tt.phrase)
			m := ms[0]
			if m.Found != tt.found || m.Method != tt.method || m.Turn != tt.turn || m.Quote != tt.quote {
				t.Errorf("got %+v\nwant found=%v method=%s turn=%d quote=%q", m, tt.found, tt.method, tt.turn, tt.quote)
			}
		})
	}
}

func TestLooseThreshold(t *testing.T) {
	text := "Agent: the perscription is ready"
	if m := match(t, voice.Loose{Threshold: 0.99}, text, voice.Any, "prescription is ready")[0]; m.Found {
		t.Errorf("0.99: %+v", m)
	}
	if m := match(t, voice.Loose{Threshold: 2}, text, voice.Any, "prescription is ready")[0]; m.Found {
		t.Errorf("fuzzy off: %+v", m)
	}
	if m := match(t, voice.Loose{Threshold: 2}, text, voice.Any, "perscription is ready")[0]; !m.Found || m.Method != voice.MethodExact {
		t.Errorf("exact with fuzzy off: %+v", m)
	}
}

// TestLooseWorstCase bounds the time of a phrase that anchors everywhere
// but matches nowhere.
func TestLooseWorstCase(t *testing.T) {
	text := "Agent: " + strings.Repeat("the the the a a the ", 4000)
	tr, _ := voice.Parse([]byte(text), "")
	start := time.Now()
	ms, _ := voice.Loose{}.Match(context.Background(), tr, voice.Any, []string{"the the thf the a b", strings.Repeat("the ", 64) + "x"})
	if ms[0].Found && ms[0].Method != voice.MethodFuzzy || time.Since(start) > 5*time.Second {
		t.Errorf("%+v after %v", ms, time.Since(start))
	}
}
