package voice_test

import (
	"context"
	"encoding/json"
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
