package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/internal/specjson"
)

// Kind is the discriminator of the voice transcript assertion.
const Kind = "voice-transcript"

const schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "voice-transcript",
  "type": "object",
  "required": ["assert"],
  "additionalProperties": false,
  "properties": {
    "assert": {"const": "voice-transcript"},
    "speaker": {"enum": ["agent", "caller", "ivr", "any"]},
    "contains": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "not_contains": {"type": "array", "items": {"type": "string", "minLength": 1}}
  }
}`

// Register adds voice-transcript to r, saying where it comes from and what
// it reads (the voice/ folder of a snapshot).
func Register(r *assert.Registry) {
	r.Register(Kind, []byte(schema), decode, assert.From("github.com/assaykit/assay/voice"),
		assert.Reads[Source](assert.Evidence{Name: "voice", Folder: "voice", Attach: "voice.Attach"}),
		assert.Reports("phrase_results", "speaker", "turns"))
}

func init() { Register(assert.DefaultRegistry()) }

// AttachMatcher sets the Matcher that env's voice-transcript checks use
// (an LLM-assisted one, say). Without one they use Loose{}.
func AttachMatcher(env *assert.Env, m Matcher) { assert.Attach[Matcher](env, m) }

// transcriptCheck is a decoded voice-transcript assertion. It is
// immutable: the decoder builds it once from a validated spec.
type transcriptCheck struct {
	speaker Speaker
	phrases []string // contains, then not_contains
	present int      // phrases[:present] must be present
}

func decode(spec assert.Spec) (assert.Assertion, error) {
	obj := gjson.ParseBytes(spec)
	contains := specjson.Strings(specjson.Member(obj, "contains"))
	c := &transcriptCheck{speaker: Any, present: len(contains)}
	if s := specjson.Member(obj, "speaker").String(); s != "" {
		c.speaker = Speaker(s)
	}
	c.phrases = append(contains, specjson.Strings(specjson.Member(obj, "not_contains"))...)
	if len(c.phrases) == 0 {
		return nil, errors.New("voice-transcript needs at least one phrase in contains or not_contains")
	}
	for i, p := range c.phrases {
		if Normalize(p) == "" {
			key, j := "contains", i
			if i >= c.present {
				key, j = "not_contains", i-c.present
			}
			return nil, fmt.Errorf("%s[%d] %q has no words to match once normalised (fillers and punctuation are ignored)", key, j, p)
		}
	}
	return c, nil
}

// Kind returns "voice-transcript".
func (c *transcriptCheck) Kind() string { return Kind }

// PhraseResult is one phrase's line of the evidence.
type PhraseResult struct {
	Phrase string `json:"phrase"`
	// Expected is "present" (contains) or "absent" (not_contains).
	Expected string `json:"expected"`
	Found    bool   `json:"found"`
	// Turn is the 0-based turn index of the match, null when not found.
	Turn   *int   `json:"turn"`
	Quote  string `json:"quote"`
	Method Method `json:"method"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"`
}

// evidence is the Result.Evidence of voice-transcript.
type evidence struct {
	PhraseResults   []PhraseResult `json:"phrase_results"`
	Speaker         Speaker        `json:"speaker"`
	Turns           int            `json:"turns"`
	UnknownSpeakers []string       `json:"unknown_speakers,omitempty"`
}

// FieldDiffs lists the failing phrases, as a report reads them from the
// evidence's JSON: the phrase, what was expected, and what was found
// (with its quote).
func (e evidence) FieldDiffs() []check.FieldDiff {
	var out []check.FieldDiff
	for _, r := range e.PhraseResults {
		if r.Passed {
			continue
		}
		d := check.FieldDiff{Name: "phrase " + jsonString(r.Phrase), Expected: r.Expected, Actual: "absent", Reason: r.Reason}
		if r.Found {
			d.Actual = "present"
			if r.Quote != "" {
				d.Actual += " (" + jsonString(r.Quote) + ")"
			}
		}
		out = append(out, d)
	}
	return out
}

// jsonString is s as encoding/json writes it in the evidence.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Check matches every phrase in the speaker's turns. Evidence:
// {"phrase_results": [...], "speaker", "turns", "unknown_speakers"?}.
func (c *transcriptCheck) Check(ctx context.Context, env *assert.Env) assert.Result {
	src, err := assert.Lookup[Source](env)
	if err != nil {
		return assert.Errored(err)
	}
	t, err := src.Transcript(ctx)
	if err != nil {
		return assert.Errored(err)
	}
	var m Matcher = Loose{}
	if found, err := assert.Lookup[Matcher](env); err == nil && found != nil {
		m = found
	}
	matches, err := m.Match(ctx, t, c.speaker, c.phrases)
	if err != nil {
		return assert.Errored(fmt.Errorf("voice-transcript: %w", err))
	}
	if len(matches) != len(c.phrases) {
		return assert.Errorf("voice-transcript: the matcher answered %d phrases of %d", len(matches), len(c.phrases))
	}
	results := make([]PhraseResult, len(c.phrases))
	satisfied := 0
	var firstFail *PhraseResult
	for i, p := range c.phrases {
		m := matches[i]
		r := PhraseResult{Phrase: p, Expected: "present", Found: m.Found, Quote: m.Quote, Method: m.Method, Reason: m.Reason}
		if i >= c.present {
			r.Expected = "absent"
		}
		if m.Found {
			turn := m.Turn
			r.Turn = &turn
		}
		r.Passed = m.Found == (i < c.present)
		if r.Passed {
			satisfied++
		}
		results[i] = r
		if !r.Passed && firstFail == nil {
			firstFail = &results[i]
		}
	}
	ev := evidence{PhraseResults: results, Speaker: c.speaker, Turns: t.Len(), UnknownSpeakers: t.UnknownSpeakers()}
	whose := "the transcript"
	if c.speaker != Any {
		whose = "the " + string(c.speaker) + "'s turns"
	}
	if t.Len() == 0 {
		whose += " (the transcript has no turns)"
	}
	total := len(c.phrases)
	if firstFail == nil {
		return assert.Pass(fmt.Sprintf("%d of %d phrases satisfied in %s.", satisfied, total, whose), ev)
	}
	var why string
	if firstFail.Expected == "present" {
		why = fmt.Sprintf("%s was not found", strconv.Quote(firstFail.Phrase))
	} else {
		why = fmt.Sprintf("%s was found in turn %d (%s, %s)", strconv.Quote(firstFail.Phrase), *firstFail.Turn,
			strconv.Quote(firstFail.Quote), firstFail.Method)
	}
	return assert.Fail(float64(satisfied)/float64(total),
		assert.Truncate(fmt.Sprintf("%d of %d phrases satisfied in %s; %s.", satisfied, total, whose, why)), ev)
}
