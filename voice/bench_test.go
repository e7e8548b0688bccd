package voice_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/spec"
	"github.com/assaykit/assay/voice"
)

// longCall builds a two-hour call of about 20,000 words: agent and caller
// turns of call-centre talk with IDs, dates, fillers and contractions.
func longCall() (*voice.Transcript, int) {
	r := rand.New(rand.NewPCG(1, 2))
	agent := []string{
		"thank you for calling, um, can I get your member ID please",
		"I've pulled up the prior authorization and it's still under review",
		"your copay for a specialist visit is forty dollars",
		"let me transfer you to the pharmacy team, please hold",
		"I'm gonna check whether the provider is in network",
		"the claim was processed on March fifth and paid at eighty percent",
		"you'll get a letter in the mail within seven to ten business days",
		"is there anything else I can help you with today",
		"your reference number is R dash four four seven one",
		"I can't see any referral on file for that visit",
	}
	caller := []string{
		"yeah, it's W one two three four five six seven eight nine",
		"uh, I wanna know why my claim was denied",
		"my date of birth is July twenty second nineteen eighty",
		"okay so, um, what's the deductible on my plan",
		"can you send me the appeal form by email",
		"that's all, thanks so much",
	}
	var turns []voice.Turn
	words := 0
	for words < 20000 {
		var text string
		sp := voice.Agent
		if len(turns)%2 == 1 {
			sp, text = voice.Caller, caller[r.IntN(len(caller))]
		} else {
			text = agent[r.IntN(len(agent))]
		}
		words += len(strings.Fields(text))
		turns = append(turns, voice.Turn{Speaker: sp, Text: text})
	}
	size := 0
	for _, t := range turns {
		size += len(t.Text)
	}
	return voice.NewTranscript(turns), size
}

// fiftyPhrases mixes phrases said exactly, said loosely, misspelt, and
// never said.
func fiftyPhrases() []string {
	base := []string{
		"member ID", "prior authorization is still under review", "copay is 40 dollars", "transfer you to the pharmacy team",
		"going to check whether the provider is in network", "March 5th", "80 percent", "7 to 10 business days",
		"reference number is R-4471", "I cannot see any referral", "W123456789", "why my claim was denied",
		"July 22nd 1980", "what is the deductible", "send me the appeal form", "thanks so much",
		"prior authorisation", "perscription", "pharmacy teem", "anything else I can help you with",
		"W123456780", "your claim was approved", "member name", "out of network", "call back number",
	}
	out := append([]string(nil), base...)
	for i := 0; len(out) < 50; i++ {
		out = append(out, fmt.Sprintf("%s %d", base[i%len(base)], i))
	}
	return out
}

// BenchmarkLooseLongCall: the default matcher over a two-hour call with 50
// phrases, normalising the transcript anew in every iteration (cold) and
// reusing its normalisation (warm, as every check after the first does).
func BenchmarkLooseLongCall(b *testing.B) {
	phrases := fiftyPhrases()
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		_, size := longCall()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			tr, _ := longCall()
			b.StartTimer()
			if _, err := (voice.Loose{}).Match(ctx, tr, voice.Any, phrases); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		tr, size := longCall()
		voice.Loose{}.Match(ctx, tr, voice.Any, phrases[:1])
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (voice.Loose{}).Match(ctx, tr, voice.Any, phrases); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNormalize measures the normaliser on one long turn.
func BenchmarkNormalize(b *testing.B) {
	text := strings.Repeat("Um, your member’s ID is W one two three, it's March fifth and I'm gonna call you back at five five five, eight six seven, five three oh nine. ", 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		voice.Normalize(text)
	}
}

// BenchmarkLLMCallsAvoided reports, on the labelled set, how many phrases
// the deterministic stages settle (found, or not found with a number that
// occurs nowhere), and so never reach an LLM judge.
func BenchmarkLLMCallsAvoided(b *testing.B) {
	set, trs := loadLabelled(b)
	for b.Loop() {
		avoided, asked := llmCalls(b, set, trs)
		b.ReportMetric(float64(avoided), "avoided")
		b.ReportMetric(float64(asked), "asked")
		b.ReportMetric(float64(avoided)/float64(avoided+asked), "avoided/phrase")
	}
}

// BenchmarkParse reads a two-hour call in both formats.
func BenchmarkParse(b *testing.B) {
	tr, _ := longCall()
	var text strings.Builder
	for _, turn := range tr.Turns() {
		fmt.Fprintf(&text, "%s: %s\n", turn.Speaker, turn.Text)
	}
	jsonData, _ := json.Marshal(tr.Turns())
	for _, in := range []struct {
		name string
		data []byte
	}{{"json", jsonData}, {"text", []byte(text.String())}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := voice.Parse(in.data, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheck runs one voice-transcript check of ten phrases over a
// two-hour call through assert.Run (the transcript's normalisation is
// shared, as in an evaluation of many criteria).
func BenchmarkCheck(b *testing.B) {
	tr, size := longCall()
	env := assert.NewEnv()
	voice.Attach(env, voice.MemorySource(tr))
	a, err := assert.Decode(spec.VoiceTranscript{Speaker: spec.SpeakerAgent,
		Contains:    fiftyPhrases()[:8],
		NotContains: []string{"your claim was approved", "member name"}}.Spec())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if res := assert.Run(ctx, a, env); res.Status == assert.StatusError {
			b.Fatal(res.Details)
		}
	}
}

// BenchmarkExampleChecks runs the bundled example's voice criteria on a
// fresh read of its transcript, as one assay eval does.
func BenchmarkExampleChecks(b *testing.B) {
	data, err := os.ReadFile("../examples/priorauth/sandbox/voice/transcript.json")
	if err != nil {
		b.Fatal(err)
	}
	crit, _ := os.ReadFile("../examples/priorauth/criteria.json")
	cs, err := assert.ParseCriteria(crit)
	if err != nil {
		b.Fatal(err)
	}
	var as []assert.Assertion
	for _, c := range cs {
		if c.Assertion.Kind() == voice.Kind {
			a, err := assert.Decode(c.Assertion)
			if err != nil {
				b.Fatal(err)
			}
			as = append(as, a)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		tr, err := voice.ParseJSON(data, "t.json")
		if err != nil {
			b.Fatal(err)
		}
		env := assert.NewEnv()
		voice.Attach(env, voice.MemorySource(tr))
		for _, a := range as {
			assert.Run(context.Background(), a, env)
		}
	}
}
