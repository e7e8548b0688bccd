package phonesim

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/serve/internal/sim"
	"github.com/assaykit/assay/voice"
)

// Bounds of a run's phone line.
const (
	// MaxBody caps a request body (a turn's utterance with it): past it,
	// 413.
	MaxBody = 1 << 20
	// MaxCalls caps the calls of one run: past it, 429.
	MaxCalls = 1000
	// MaxTurns caps the turns of one call, every speaker's: an agent turn
	// on a call that holds as many is 429.
	MaxTurns = 1000
	// MaxKeys caps the keys of one dtmf.
	MaxKeys = 256
	// MaxTranscript caps a run's transcript.json, so that the snapshot's
	// file stays well within the 64 MiB an evaluation reads: an agent turn
	// that would pass it is 413.
	MaxTranscript = 48 << 20
	// replyAllowance is charged to the memory budget before the line
	// answers a turn; what the answer really held is settled after.
	replyAllowance = 4 << 10
	callCost       = 1 << 10 // a call's own state
)

// Sim is the phone line of every run, built once from the seed.
type Sim struct {
	line  *Line  // nil without voice/ivr.json
	brain *brain // nil until Configure gives LLM personas a model

	rosterOnce sync.Once
	roster     *roster
}

var _ sim.Sim = (*Sim)(nil)

// New reads the seed's voice/ivr.json, when there is one (without it every
// call is 503 naming the file). A line that looks members up needs the
// seed's payer/policy.json.
func New(seed fs.FS) (*Sim, error) {
	data, err := check.ReadFile(seed, File, check.DefaultMaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return &Sim{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	line, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	if line.looksUp != "" {
		if _, err := fs.Stat(seed, "payer/policy.json"); err != nil {
			return nil, fmt.Errorf("%s: %s: looking a member up needs the seed's payer/policy.json, which it lacks", File, line.looksUp)
		}
	}
	return &Sim{line: line}, nil
}

// Configure gives the line's LLM personas their model: it is an error for
// a line with an LLM persona to have no model, or neither a server nor
// recorded answers. A line without one ignores c.
func (s *Sim) Configure(c Config) error {
	if s.line == nil || s.line.llm == "" {
		return nil
	}
	if c.Model == "" || (c.URL == "" && c.Cache == "") {
		return fmt.Errorf("%s: %s: an LLM persona needs a model (--persona-model) and a Chat Completions server (--persona-url) or recorded answers (--persona-cache)", File, s.line.llm)
	}
	b, err := newBrain(c)
	if err != nil {
		return err
	}
	s.brain = b
	return nil
}

// NewRun returns the run's phone line: no calls yet.
func (s *Sim) NewRun(r sim.Run) (sim.RunSim, error) {
	s.rosterOnce.Do(func() {
		if l := r.Payer(); l != nil {
			s.roster = newRoster(l.Policy())
		} else {
			s.roster = newRoster(nil)
		}
	})
	return &runLine{sim: s, line: s.line, run: r, calls: map[string]*call{}}, nil
}

// runLine is one run's phone line: its calls.
type runLine struct {
	sim  *Sim
	line *Line
	run  sim.Run

	mu    sync.Mutex
	calls map[string]*call
	order []*call // in creation order

	transcript atomic.Int64 // bytes of the transcript's JSON
}

func (rl *runLine) Mounts() []string { return []string{"voice"} }

func (rl *runLine) Endpoints(base string, into map[string]string) { into["voice"] = base + "/voice" }

func (rl *runLine) Attach(env *assert.Env) { voice.Attach(env, liveSource{rl}) }

// Stop ends every call still in progress: each call's start and end are
// events.
func (rl *runLine) Stop() {
	for _, c := range rl.snapshotCalls() {
		c.mu.Lock()
		if !c.ended {
			rl.end(c)
		}
		c.mu.Unlock()
	}
}

func (rl *runLine) snapshotCalls() []*call {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return slices.Clone(rl.order)
}

// turns returns every turn of every call, ordered by start, ties by call
// creation then turn order.
func (rl *runLine) turns() []Turn {
	var all []Turn
	for _, c := range rl.snapshotCalls() {
		c.mu.Lock()
		all = append(all, c.turns...)
		c.mu.Unlock()
	}
	slices.SortStableFunc(all, func(a, b Turn) int { return cmp.Compare(a.StartMS, b.StartMS) })
	return all
}

// Snapshot writes voice/transcript.json, {"turns": [...]}, one turn a
// line; a run without calls writes no turns.
func (rl *runLine) Snapshot(d sim.Dir) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	turns := rl.turns()
	b.WriteString(`{"turns": [`)
	for i, t := range turns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		if err := enc.Encode(t); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	if len(turns) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return d.WriteFile("voice/"+voice.JSONFile, b.Bytes())
}

// liveSource is the run's transcript as it is when a check reads it.
type liveSource struct{ rl *runLine }

func (s liveSource) Transcript(context.Context) (*voice.Transcript, error) {
	turns := s.rl.turns()
	out := make([]voice.Turn, len(turns))
	for i, t := range turns {
		out[i] = voice.Turn{Speaker: voice.Speaker(t.Speaker), Text: t.Text, StartMS: &t.StartMS, EndMS: &t.EndMS}
	}
	return voice.NewTranscript(out), nil
}

// --- HTTP ---

// ServeHTTP serves the calls API under /voice.
func (rl *runLine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/voice")
	if !ok || (rest != "" && rest[0] != '/') {
		rl.fail(w, "", http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+r.URL.Path)
		return
	}
	if rl.line == nil {
		rl.fail(w, "", http.StatusServiceUnavailable, "UNAVAILABLE", "this sandbox has no phone line: its seed has no "+File)
		return
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if parts[0] != "calls" || len(parts) > 3 {
		rl.fail(w, "", http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+r.URL.Path+" (the calls API is under /voice/calls)")
		return
	}
	want := http.MethodPost
	if len(parts) == 2 {
		want = http.MethodGet
	}
	if len(parts) == 3 && parts[2] != "turns" && parts[2] != "hangup" {
		rl.fail(w, parts[1], http.StatusNotFound, "NOT_FOUND", "no such endpoint: "+r.URL.Path+" (a call has turns and hangup)")
		return
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		rl.fail(w, "", http.StatusMethodNotAllowed, "VALIDATION_ERROR", r.Method+" is not allowed on "+r.URL.Path+"; use "+want)
		return
	}
	if len(parts) == 1 {
		rl.create(w, r)
		return
	}
	c := rl.call(parts[1])
	if c == nil {
		rl.fail(w, parts[1], http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("no call %q in this run", parts[1]))
		return
	}
	switch {
	case len(parts) == 2:
		c.mu.Lock()
		v := rl.view(c, c.turns)
		c.mu.Unlock()
		sim.WriteJSON(w, http.StatusOK, v)
	case parts[2] == "hangup":
		c.mu.Lock()
		if !c.ended {
			rl.end(c)
		}
		v := rl.view(c, c.turns)
		c.mu.Unlock()
		sim.WriteJSON(w, http.StatusOK, v)
	default:
		rl.turn(w, r, c)
	}
}

func (rl *runLine) call(id string) *call {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.calls[id]
}

// errorEvent is the event of a request the line refused.
type errorEvent struct {
	CallID  string `json:"call_id,omitempty"`
	Status  int    `json:"status,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// fail answers an error and records it as a voice_error event.
func (rl *runLine) fail(w http.ResponseWriter, callID string, status int, code, message string) {
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_error", Fields: errorEvent{CallID: clip(callID, 64), Status: status, Code: code, Message: message}})
	sim.WriteJSONError(w, status, code, message, nil)
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// decode reads a JSON object body strictly into v: an empty body is {}.
func (rl *runLine) decode(w http.ResponseWriter, r *http.Request, callID string, v any) bool {
	body, err := sim.ReadBody(w, r, MaxBody)
	if errors.Is(err, sim.ErrTooLarge) {
		rl.fail(w, callID, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", err.Error())
		return false
	}
	if err != nil {
		rl.fail(w, callID, http.StatusBadRequest, "VALIDATION_ERROR", err.Error())
		return false
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		rl.fail(w, callID, http.StatusBadRequest, "VALIDATION_ERROR", "the body is not the expected JSON object: "+err.Error())
		return false
	}
	if dec.More() {
		rl.fail(w, callID, http.StatusBadRequest, "VALIDATION_ERROR", "the body holds more than one JSON value")
		return false
	}
	return true
}

// reserve charges n bytes to the sandbox's memory budget, answering 507
// when it is spent.
func (rl *runLine) reserve(w http.ResponseWriter, callID string, n int64) bool {
	if err := rl.run.Reserve(n); err != nil {
		rl.fail(w, callID, http.StatusInsufficientStorage, "INSUFFICIENT_STORAGE", err.Error())
		return false
	}
	return true
}

func (rl *runLine) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		To *string `json:"to"`
	}
	if !rl.decode(w, r, "", &req) {
		return
	}
	if req.To != nil && rl.line.Number != "" && *req.To != rl.line.Number {
		rl.fail(w, "", http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("no line answers %q: this sandbox's line is %s", clip(*req.To, 64), rl.line.Number))
		return
	}
	rl.mu.Lock()
	if len(rl.order) >= MaxCalls {
		rl.mu.Unlock()
		rl.fail(w, "", http.StatusTooManyRequests, "RATE_LIMITED", fmt.Sprintf("this run has placed %d calls, the most a run may", MaxCalls))
		return
	}
	if !rl.reserve(w, "", callCost+replyAllowance) {
		rl.mu.Unlock()
		return
	}
	c := &call{id: fmt.Sprintf("CA%06d", rl.run.Next("voice_call")), saved: map[string]string{}, member: -1}
	rl.calls[c.id] = c
	rl.order = append(rl.order, c)
	// The call is locked before others can find it, so its first events
	// come first.
	c.mu.Lock()
	rl.mu.Unlock()
	defer c.mu.Unlock()
	rl.run.Emit(sim.Event{Sim: "voice", Type: "voice_call", Fields: callEvent{CallID: c.id, State: "started"}})
	before := rl.transcript.Load()
	rl.enter(context.WithoutCancel(r.Context()), c, rl.line.Start)
	rl.settle(replyAllowance, rl.transcript.Load()-before)
	sim.WriteJSON(w, http.StatusCreated, rl.view(c, c.turns))
}

// settle charges what a reply really held (the bytes its turns added to
// the transcript) against what was reserved for it.
func (rl *runLine) settle(reserved, used int64) {
	switch {
	case used > reserved:
		if err := rl.run.Reserve(used - reserved); err != nil {
			// The reply is said: the seed's text made it long, not the
			// agent. The budget is passed by at most one reply.
			rl.run.Logf("voice: the line's answer (%d bytes) passes the memory budget: %v", used, err)
		}
	case used < reserved:
		rl.run.Release(reserved - used)
	}
}

// turnRequest is the body of an agent turn.
type turnRequest struct {
	Text *string `json:"text"`
	DTMF *string `json:"dtmf"`
}

func (rl *runLine) turn(w http.ResponseWriter, r *http.Request, c *call) {
	var req turnRequest
	if !rl.decode(w, r, c.id, &req) {
		return
	}
	var text, keys string
	switch {
	case req.Text != nil && req.DTMF != nil:
		rl.fail(w, c.id, http.StatusBadRequest, "VALIDATION_ERROR", `a turn is "text" (speech) or "dtmf" (keys), not both`)
		return
	case req.DTMF != nil:
		var err error
		if keys, err = parseKeys(*req.DTMF); err != nil {
			rl.fail(w, c.id, http.StatusBadRequest, "VALIDATION_ERROR", "dtmf: "+err.Error())
			return
		}
		text = keysText(keys)
	case req.Text != nil && strings.TrimSpace(*req.Text) != "":
		text = strings.ToValidUTF8(*req.Text, "\uFFFD")
	default:
		rl.fail(w, c.id, http.StatusBadRequest, "VALIDATION_ERROR", `a turn needs "text" (what the agent says) or "dtmf" (the keys it presses)`)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.ended:
		rl.fail(w, c.id, http.StatusConflict, "CONFLICT", fmt.Sprintf("call %s has ended: place a new call", c.id))
		return
	case len(c.turns) >= MaxTurns:
		rl.fail(w, c.id, http.StatusTooManyRequests, "RATE_LIMITED", fmt.Sprintf("call %s holds %d turns, the most a call may: hang up and place a new call", c.id, MaxTurns))
		return
	case rl.transcript.Load()+turnSize(c.id, text)+replyAllowance > MaxTranscript:
		rl.fail(w, c.id, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE", fmt.Sprintf("the run's transcript would pass %d bytes, the most a snapshot's transcript.json holds", MaxTranscript))
		return
	}
	if !rl.reserve(w, c.id, turnSize(c.id, text)+replyAllowance) {
		return
	}
	// The line answers whole even when the agent stops listening: what
	// the transcript holds never depends on a connection.
	ctx := context.WithoutCancel(r.Context())
	from := len(c.turns)
	rl.say(c, string(voice.Agent), text)
	before := rl.transcript.Load()
	if req.DTMF != nil {
		rl.keys(ctx, c, keys)
	} else {
		rl.speech(ctx, c, text)
	}
	rl.settle(replyAllowance, rl.transcript.Load()-before)
	sim.WriteJSON(w, http.StatusOK, rl.view(c, c.turns[from:]))
}

// parseKeys reads the keys of a dtmf: 0-9, * and #, spaces ignored.
func parseKeys(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isKey(c):
			if b.Len() == MaxKeys {
				return "", fmt.Errorf("more than %d keys", MaxKeys)
			}
			b.WriteByte(c)
		case c == ' ':
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return "", fmt.Errorf("%q is not a key: keys are 0-9, * and #", r)
		}
	}
	if b.Len() == 0 {
		return "", errors.New("no keys: keys are 0-9, * and #")
	}
	return b.String(), nil
}

// keysText is how a dtmf turn reads in the transcript: "DTMF 1 2 3 #".
func keysText(keys string) string {
	var b strings.Builder
	b.WriteString("DTMF")
	for i := 0; i < len(keys); i++ {
		b.WriteByte(' ')
		b.WriteByte(keys[i])
	}
	return b.String()
}
