package voice_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/assaykit/assay/voice"
)

// labelledSet is testdata/labelled.json: transcripts by name and
// (transcript, phrase, speaker, present) cases, written by hand with the
// truth as a listener would judge it (see testdata/README.md).
type labelledSet struct {
	Transcripts map[string]string `json:"transcripts"`
	Cases       []struct {
		Transcript string `json:"transcript"`
		Phrase     string `json:"phrase"`
		Speaker    string `json:"speaker"`
		Present    bool   `json:"present"`
		Category   string `json:"category"`
	} `json:"cases"`
}

func loadLabelled(t testing.TB) (labelledSet, map[string]*voice.Transcript) {
	t.Helper()
	data, err := os.ReadFile("testdata/labelled.json")
	if err != nil {
		t.Fatal(err)
	}
	var set labelledSet
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	trs := map[string]*voice.Transcript{}
	for name, text := range set.Transcripts {
		tr, err := voice.ParseText([]byte(text), name)
		if err != nil {
			t.Fatal(err)
		}
		if u := tr.UnknownSpeakers(); len(u) > 0 {
			t.Fatalf("%s: unknown speakers %q", name, u)
		}
		trs[name] = tr
	}
	return set, trs
}

// TestLabelledSet measures the default matcher on the labelled set and
// fails below 0.95 precision or 0.90 recall. Every miss and false alarm
// is logged with its category.
func TestLabelledSet(t *testing.T) {
	set, trs := loadLabelled(t)
	if len(set.Cases) < 150 {
		t.Fatalf("the labelled set has %d cases; it needs at least 150", len(set.Cases))
	}
	var tp, fp, fn, tn int
	for i, c := range set.Cases {
		tr, ok := trs[c.Transcript]
		if !ok {
			t.Fatalf("case %d names transcript %q, which the set lacks", i, c.Transcript)
		}
		ms, err := voice.Loose{}.Match(context.Background(), tr, voice.Speaker(c.Speaker), []string{c.Phrase})
		if err != nil {
			t.Fatal(err)
		}
		m := ms[0]
		switch {
		case m.Found && c.Present:
			tp++
		case m.Found && !c.Present:
			fp++
			t.Logf("false alarm #%d [%s] %q (%s) in %s: %s %q", i, c.Category, c.Phrase, c.Speaker, c.Transcript, m.Method, m.Quote)
		case !m.Found && c.Present:
			fn++
			t.Logf("miss #%d [%s] %q (%s) in %s", i, c.Category, c.Phrase, c.Speaker, c.Transcript)
		default:
			tn++
		}
	}
	precision := float64(tp) / float64(max(tp+fp, 1))
	recall := float64(tp) / float64(max(tp+fn, 1))
	t.Logf("%d cases: %d true positives, %d false positives, %d false negatives, %d true negatives; precision %.3f, recall %.3f",
		len(set.Cases), tp, fp, fn, tn, precision, recall)
	if precision < 0.95 || recall < 0.90 {
		t.Errorf("precision %.3f (minimum 0.95), recall %.3f (minimum 0.90)", precision, recall)
	}
}

// llmCalls runs the labelled set through an LLMMatcher whose judge always
// answers "not found" and counts the phrases sent to it (asked) and those
// the deterministic stages settled (avoided).
func llmCalls(t testing.TB, set labelledSet, trs map[string]*voice.Transcript) (avoided, asked int) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"choices": [{"message": {"content": "{\"found\": false, \"turn\": -1, \"quote\": \"\", \"reason\": \"no\"}"}}]}`)
	}))
	defer srv.Close()
	m, err := voice.NewLLMMatcher(voice.LLMConfig{URL: srv.URL, Model: "counter"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Cases {
		if _, err := m.Match(context.Background(), trs[c.Transcript], voice.Speaker(c.Speaker), []string{c.Phrase}); err != nil {
			t.Fatal(err)
		}
	}
	asked = m.Calls()
	return len(set.Cases) - asked, asked
}

// TestLLMCallsAvoided reports how many of the labelled phrases the
// deterministic stages settle without a judge.
func TestLLMCallsAvoided(t *testing.T) {
	set, trs := loadLabelled(t)
	avoided, asked := llmCalls(t, set, trs)
	t.Logf("%d of %d phrases settled without the judge (%.0f%%); %d would be asked", avoided, len(set.Cases),
		100*float64(avoided)/float64(len(set.Cases)), asked)
	if asked == 0 || avoided < len(set.Cases)/2 {
		t.Errorf("avoided %d, asked %d", avoided, asked)
	}
}
