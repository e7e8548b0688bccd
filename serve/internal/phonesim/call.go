package phonesim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/assaykit/assay/internal/chat"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/voice"
)

// Turn is one turn of a call, as the replies, the call and the snapshot's
// transcript write it.
type Turn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	StartMS int64  `json:"start_ms"`
	EndMS   int64  `json:"end_ms"`
	CallID  string `json:"call_id"`
}

// msPerWord is how long a word takes to say; a turn lasts at least one.
const msPerWord = 300

// call is one call's state. Its fields are guarded by mu, which a request
// holds from the agent's turn to the line's last answer.
type call struct {
	id string

	mu      sync.Mutex
	turns   []Turn
	ended   bool
	node    string            // the gathering node the call waits at
	persona string            // the persona the call is with
	saved   map[string]string // gathered values by their save name
	member  int               // the looked-up member's index in the roster; -1 none
	convo   []chat.Message    // the persona's conversation, greeting on
}

// view is the answer of the calls API: the call's state and some turns.
type view struct {
	CallID   string    `json:"call_id"`
	Status   string    `json:"status"`
	Turns    []Turn    `json:"turns"`
	Awaiting *awaiting `json:"awaiting"`
}

// awaiting says what the line waits for.
type awaiting struct {
	Input       []string `json:"input"`
	NumDigits   int      `json:"num_digits,omitempty"`
	FinishOnKey *string  `json:"finish_on_key,omitempty"`
}

var speechOnly = []string{"speech"}

// view returns the call with turns and what the line waits for; c.mu is
// held.
func (rl *runLine) view(c *call, turns []Turn) view {
	v := view{CallID: c.id, Status: "in-progress", Turns: append([]Turn{}, turns...)}
	switch {
	case c.ended:
		v.Status = "completed"
	case c.persona != "":
		v.Awaiting = &awaiting{Input: speechOnly}
	case c.node != "":
		g := rl.line.Nodes[c.node].Gather
		v.Awaiting = &awaiting{Input: g.Input, NumDigits: g.NumDigits, FinishOnKey: g.FinishOnKey}
	}
	return v
}

// Events of the line.
type (
	callEvent struct {
		CallID string `json:"call_id"`
		State  string `json:"state"`
	}
	turnEvent struct {
		CallID  string      `json:"call_id"`
		Speaker string      `json:"speaker"`
		Text    string      `json:"text"`
		Digest  *sim.Digest `json:"digest,omitempty"`
	}
	personaEvent struct {
		CallID       string `json:"call_id"`
		Persona      string `json:"persona"`
		Model        string `json:"model"`
		Conversation string `json:"conversation"`
		Answer       string `json:"answer"`
		Reason       string `json:"reason,omitempty"`
	}
)

// ms is a run time as transcript times write it: milliseconds since the
// run began.
func (rl *runLine) ms(t time.Time) int64 { return max(t.Sub(rl.run.Started()).Milliseconds(), 0) }

// say appends a turn to the call: it starts at the later of the run's clock
// and the end of the call's previous turn, and lasts msPerWord per word.
func (rl *runLine) say(c *call, speaker, text string) {
	start := rl.ms(rl.run.Now())
	if n := len(c.turns); n > 0 {
		start = max(start, c.turns[n-1].EndMS)
	}
	words := int64(max(len(strings.Fields(text)), 1))
	t := Turn{Speaker: speaker, Text: text, StartMS: start, EndMS: start + words*msPerWord, CallID: c.id}
	c.turns = append(c.turns, t)
	rl.transcript.Add(turnSize(c.id, text))
	ev := turnEvent{CallID: c.id, Speaker: speaker, Text: text}
	if len(text) > sim.MaxEventBody {
		ev.Text = clip(text, sim.MaxEventBody)
		ev.Digest = digest(text)
	}
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_turn", Fields: ev})
}

// end ends the call.
func (rl *runLine) end(c *call) {
	c.ended, c.node, c.persona = true, "", ""
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_call", Fields: callEvent{CallID: c.id, State: "completed"}})
}

// render reads a text of the line with the call's facts; a name that is no
// fact reads Unknown and is recorded as an event.
func (rl *runLine) render(c *call, text string) string {
	out, unknown := rl.facts(c).render(text)
	for _, name := range unknown {
		rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_error", Fields: errorEvent{CallID: c.id, Code: "UNKNOWN_FACT",
			Message: fmt.Sprintf("{%s} names no fact: it reads %q (the facts are %s)", name, Unknown, strings.Join(FactNames, ", "))}})
	}
	return out
}

// facts reads the call's facts now.
func (rl *runLine) facts(c *call) *facts {
	f := &facts{now: rl.run.Now(), ledger: rl.run.Payer()}
	if f.ledger != nil {
		f.policy = f.ledger.Policy()
	}
	if c.member >= 0 && f.policy != nil && c.member < len(f.policy.Members) {
		f.member = &f.policy.Members[c.member]
	}
	return f
}

// enter runs the line from node name until it waits for the agent or ends
// the call: each node says its say, holds, then gathers, hands the call to
// its persona, looks a member up, goes to next, or ends the call.
func (rl *runLine) enter(ctx context.Context, c *call, name string) {
	// Parse rejects a cycle of nodes that do not wait, so the line waits
	// or ends within as many steps as it has nodes; the bound is a guard.
	for range len(rl.line.Nodes) + 1 {
		n := rl.line.Nodes[name]
		c.node = ""
		if n.Say != "" {
			rl.say(c, string(voice.IVR), rl.render(c, n.Say))
		}
		if n.HoldSeconds > 0 {
			rl.run.Advance(time.Duration(n.HoldSeconds) * time.Second)
		}
		switch {
		case n.Gather != nil:
			c.node = name
			return
		case n.Persona != "":
			c.persona = n.Persona
			p := rl.line.Personas[n.Persona]
			if p.Greeting != "" {
				rl.personaSays(c, p, rl.render(c, p.Greeting))
			}
			return
		case n.LookupMember != "":
			c.member = -1
			name = n.NotFound
			if i, ok := rl.sim.roster.find(c.saved[n.LookupMember]); ok {
				c.member, name = i, n.Found
			}
		case n.Next != "":
			name = n.Next
		default:
			rl.end(c)
			return
		}
	}
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_error", Fields: errorEvent{CallID: c.id, Code: "INTERNAL", Message: "the line went round without waiting: the call is ended"}})
	rl.end(c)
}

// personaSays says text as the persona and adds it to the conversation.
func (rl *runLine) personaSays(c *call, p Persona, text string) {
	rl.say(c, p.Speaker, text)
	c.convo = append(c.convo, chat.Say("assistant", text))
}

// keys answers a dtmf turn.
func (rl *runLine) keys(ctx context.Context, c *call, keys string) {
	if c.persona != "" {
		// A person on the line hears tones, not words.
		p := rl.line.Personas[c.persona]
		c.convo = append(c.convo, chat.Say("user", keysText(keys)))
		rl.personaSays(c, p, rl.render(c, p.Fallback))
		return
	}
	n, ok := rl.line.Nodes[c.node]
	if !ok || n.Gather == nil {
		return // not waiting: cannot happen on a call in progress
	}
	if !n.Gather.takes("dtmf") {
		rl.repeat(c, n)
		return
	}
	rl.gathered(ctx, c, n, readDigits(keys, n.Gather.NumDigits, n.Gather.finishKey()), "dtmf")
}

// readDigits reads a gather's value from the keys pressed: up to
// numDigits keys (0: no limit) or the finish key, which is not part of it.
func readDigits(keys string, numDigits int, finish string) string {
	for i := 0; i < len(keys); i++ {
		if finish != "" && keys[i] == finish[0] {
			return keys[:i]
		}
		if numDigits > 0 && i+1 == numDigits {
			return keys[:i+1]
		}
	}
	return keys
}

// speech answers a spoken turn.
func (rl *runLine) speech(ctx context.Context, c *call, text string) {
	if c.persona != "" {
		rl.personaHears(ctx, c, text)
		return
	}
	n, ok := rl.line.Nodes[c.node]
	if !ok || n.Gather == nil {
		return // not waiting: cannot happen on a call in progress
	}
	if !n.Gather.takes("speech") {
		rl.repeat(c, n)
		return
	}
	rl.gathered(ctx, c, n, voice.Normalize(text), "speech")
}

// repeat says the node's say again and waits again.
func (rl *runLine) repeat(c *call, n Node) {
	if n.Say != "" {
		rl.say(c, string(voice.IVR), rl.render(c, n.Say))
	}
}

// gathered saves a gather's value and goes on: the route the value
// names, else default, else next; with none of them it asks again.
func (rl *runLine) gathered(ctx context.Context, c *call, n Node, value, kind string) {
	if n.Gather.Save != "" {
		c.saved[n.Gather.Save] = value
	}
	next, ok := n.Routes[value]
	if !ok && kind == "speech" {
		// Route keys are read as speech is: "two" takes route "2".
		for _, k := range sortedKeys(n.Routes) {
			if voice.Normalize(k) == value {
				next, ok = n.Routes[k], true
				break
			}
		}
	}
	switch {
	case ok:
	case n.Default != "":
		next = n.Default
	case n.Next != "":
		next = n.Next
	default:
		rl.repeat(c, n)
		return
	}
	rl.enter(ctx, c, next)
}

// personaHears answers an agent's spoken turn to a persona: the first
// answer one of whose when phrases the turn contains, else (an LLM
// persona) the model's answer, else the fallback; a goodbye phrase ends the
// call after the farewell, the answer first when one matched.
func (rl *runLine) personaHears(ctx context.Context, c *call, text string) {
	p := rl.line.Personas[c.persona]
	c.convo = append(c.convo, chat.Say("user", text))
	var phrases []string
	for _, a := range p.Answers {
		phrases = append(phrases, a.When...)
	}
	phrases = append(phrases, p.Goodbye...)
	found := make([]bool, len(phrases))
	if len(phrases) > 0 {
		t := voice.NewTranscript([]voice.Turn{{Speaker: voice.Agent, Text: text}})
		ms, err := voice.Loose{}.Match(ctx, t, voice.Any, phrases)
		if err == nil {
			for i, m := range ms {
				found[i] = m.Found
			}
		}
	}
	answer := -1
	k := 0
	for i, a := range p.Answers {
		for range a.When {
			if found[k] && answer < 0 {
				answer = i
			}
			k++
		}
	}
	bye := false
	for ; k < len(phrases); k++ {
		bye = bye || found[k]
	}
	switch {
	case answer >= 0:
		rl.personaSays(c, p, rl.render(c, p.Answers[answer].Say))
	case bye:
	case p.LLM:
		rl.personaSays(c, p, rl.ask(ctx, c, p))
	default:
		rl.personaSays(c, p, rl.render(c, p.Fallback))
	}
	if bye {
		rl.personaSays(c, p, rl.render(c, p.Farewell))
		rl.end(c)
	}
}

// ask returns an LLM persona's answer: recorded or the model's, checked
// as speech and for other members' ids and names, else the fallback. Every
// answer is a voice_persona event saying why when it is the fallback.
func (rl *runLine) ask(ctx context.Context, c *call, p Persona) string {
	b := rl.sim.brain
	f := rl.facts(c)
	var payerName string
	if f.policy != nil {
		payerName = f.policy.Payer.Name
	}
	msgs := make([]chat.Message, 0, len(c.convo)+1)
	msgs = append(msgs, chat.Say("system", systemPrompt(payerName, p.Instructions, f)))
	msgs = append(msgs, c.convo...)
	ev := personaEvent{CallID: c.id, Persona: c.persona}
	var o outcome
	if b == nil {
		o.Reason = "no model is configured for LLM personas (--persona-model)"
	} else {
		ev.Model = b.model
		ev.Conversation = conversationKey(b.model, msgs)
		var err error
		o, err = b.ask(ctx, ev.Conversation, msgs)
		if err != nil {
			rl.run.Logf("voice: %v", err)
		}
	}
	if o.Reason == "" && rl.sim.roster.others(o.Answer, c.member) {
		o = outcome{Reason: "the answer named another member of the roster: it is not said"}
	}
	ev.Answer, ev.Reason = o.Answer, o.Reason
	if o.Reason != "" {
		ev.Answer = rl.render(c, p.Fallback)
	}
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_persona", Fields: ev})
	return ev.Answer
}

// turnSize is the bytes a turn adds to the transcript's JSON, one turn a
// line with SetEscapeHTML(false).
func turnSize(callID, text string) int64 {
	// {"speaker":"caller","text":"","start_ms":N,"end_ms":N,"call_id":""},\n plus indent
	n := int64(96 + len(callID) + 2*20)
	for _, r := range text {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
			n += 2
		case r < 0x20 || r == utf8.RuneError || r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += int64(utf8.RuneLen(r))
		}
	}
	return n
}

func digest(s string) *sim.Digest {
	sum := sha256.Sum256([]byte(s))
	return &sim.Digest{Size: len(s), SHA256: hex.EncodeToString(sum[:])}
}
