package voice_test

import (
	"context"
	"fmt"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/voice"
)

// A voice-transcript check over a transcript held in memory: the member ID
// spelled out digit by digit is found by the caller, and the agent's
// contraction and speech-to-text spelling are read loosely.
func Example() {
	tr, err := voice.Parse([]byte(`Agent: Hi, um, can I get your member’s ID?
Caller: Sure, it's W one two three four five.
Agent: Thanks. I'm gonna check your prior authorisation now.`), "transcript.txt")
	if err != nil {
		panic(err)
	}
	env := assert.NewEnv()
	voice.Attach(env, voice.MemorySource(tr))

	a, err := assert.Decode([]byte(`{"assert": "voice-transcript", "speaker": "agent",
		"contains": ["member ID", "going to check your prior authorization"], "not_contains": ["W12345"]}`))
	if err != nil {
		panic(err)
	}
	res := assert.Run(context.Background(), a, env)
	fmt.Println(res.Status, res.Score)
	fmt.Println(res.Details)
	// Output:
	// passed 1
	// 3 of 3 phrases satisfied in the agent's turns.
}

// Negation under loose presence: "not approved" contains "approved", so a
// contains check for "approved" passes on a denial. Say what must not be
// said with not_contains, which catches it.
func Example_negation() {
	tr, _ := voice.Parse([]byte("Agent: I'm sorry, your request was not approved."), "")
	env := assert.NewEnv()
	voice.Attach(env, voice.MemorySource(tr))
	for _, spec := range []string{
		`{"assert": "voice-transcript", "contains": ["approved"]}`,
		`{"assert": "voice-transcript", "contains": ["approved"], "not_contains": ["not approved"]}`,
	} {
		a, _ := assert.Decode([]byte(spec))
		res := assert.Run(context.Background(), a, env)
		fmt.Println(res.Status, res.Details)
	}
	// Output:
	// passed 1 of 1 phrases satisfied in the transcript.
	// failed 1 of 2 phrases satisfied in the transcript; "not approved" was found in turn 0 ("not approved", exact).
}

// Normalize shows how the default matcher reads text.
func ExampleNormalize() {
	for _, s := range []string{
		"Um, your member’s ID is W one two three",
		"It's twenty-one",
		"thirty six",
		"five five five, eight six seven, five three oh nine",
		"March fifth",
		"I'm gonna call you back",
		"The claim's been approved",
	} {
		fmt.Printf("%s -> %s\n", s, voice.Normalize(s))
	}
	// Output:
	// Um, your member’s ID is W one two three -> your member id is w 123
	// It's twenty-one -> it is 21
	// thirty six -> 36
	// five five five, eight six seven, five three oh nine -> 5558675309
	// March fifth -> 3/5
	// I'm gonna call you back -> i am going to call you back
	// The claim's been approved -> the claim has been approved
}

// The deterministic matcher's answer says which stage found each phrase,
// in which turn, and quotes the words.
func ExampleLoose() {
	tr, _ := voice.Parse([]byte(`Agent: Your prior authorisation was aproved.
Agent: I'll transfer you to
Agent: the billing team.`), "")
	ms, _ := voice.Loose{}.Match(context.Background(), tr, voice.Agent,
		[]string{"prior authorization was approved", "I will transfer you to the billing team", "billing department"})
	for _, m := range ms {
		fmt.Printf("%s: found=%v method=%s turn=%d quote=%q\n", m.Phrase, m.Found, m.Method, m.Turn, m.Quote)
	}
	// Output:
	// prior authorization was approved: found=true method=fuzzy turn=0 quote="prior authorisation was aproved"
	// I will transfer you to the billing team: found=true method=exact turn=1 quote="I'll transfer you to / the billing team"
	// billing department: found=false method=none turn=-1 quote=""
}
