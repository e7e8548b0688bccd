package phonesim_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/serve/internal/phonesim"
)

const menu = "ivr: For eligibility press 1. For prior authorization status press 2."

func TestMemberLookup(t *testing.T) {
	for _, tc := range []struct {
		name, turn string
		found      bool
	}{
		{"spelled digits", `{"text": "W one two three four five six seven eight nine"}`, true},
		{"in a sentence", `{"text": "Sure, my member ID is W123456789, thanks."}`, true},
		{"lower case, dashes", `{"text": "w-123-456-789"}`, true},
		{"as in", `{"text": "W as in William, one two three, four five six, seven eight nine"}`, true},
		{"number words", `{"text": "W one twenty three, four fifty six, seven eighty nine"}`, true},
		{"one digit off", `{"text": "W one two three four five six seven eight eight"}`, false},
		{"another member", `{"text": "W555000111"}`, true},
		{"digits without the letter", `{"dtmf": "123456789#"}`, false},
		{"filler only", `{"text": "um, uh"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLine(t, nil, nil)
			id := l.call().CallID
			r := l.turn(id, tc.turn)
			want := []string{"ivr: Sorry, I could not find that member.", "ivr: Please say or enter the member ID."}
			if tc.found {
				want = []string{menu}
			}
			if got := r.said()[1:]; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// doubleOh is a line whose roster id is spoken with "double oh".
func TestDoubleOh(t *testing.T) {
	policy := strings.Replace(string(readTestdata(t, "policy.json")), "W555000111", "A007", 1)
	seed := fstest.MapFS{"voice/ivr.json": {Data: readTestdata(t, "ivr.json")}, "payer/policy.json": {Data: []byte(policy)}}
	s, err := phonesim.New(seed)
	if err != nil {
		t.Fatal(err)
	}
	p, err := payer.Parse([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	l := serveLine(t, s, newFakeRun(t, p))
	id := l.call().CallID
	if got := l.say(id, "It's A double oh seven.").said(); !slices.Equal(got[1:], []string{menu}) {
		t.Errorf("A double oh seven: %q", got)
	}
	l.turn(id, `{"dtmf": "1"}`)
	// John Roe (A007) has Acme Gold HMO, ended 2025-12-31.
	if got := l.turn(id, `{"dtmf": "1"}`).said(); got[1] != "ivr: The member's Acme Gold HMO coverage is inactive." {
		t.Errorf("eligibility: %q", got)
	}
}

// digitLine gathers a PIN: 4 digits or *, then says what it read.
const digitLine = `{"start": "pin", "nodes": {
  "pin": {"say": "Enter your PIN.", "gather": {"input": ["dtmf"], "num_digits": 4, "finish_on_key": "*", "save": "pin"}, "routes": {"1234": "ok", "12": "short"}, "default": "pin"},
  "ok": {"say": "PIN accepted.", "next": "any"},
  "short": {"say": "Short PIN.", "next": "any"},
  "any": {"say": "Press any keys, then pound.", "gather": {"input": ["dtmf", "speech"]}, "routes": {"2": "two", "007": "bond"}, "next": "end"},
  "two": {"say": "You chose two."},
  "bond": {"say": "Licensed."},
  "end": {"say": "Goodbye."}}}`

func TestDigits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		turns []string
		want  []string // the line's last answer
	}{
		{"num_digits ends the gather, later keys ignored", []string{`{"dtmf": "123456"}`}, []string{"ivr: PIN accepted.", "ivr: Press any keys, then pound."}},
		{"the finish key ends it", []string{`{"dtmf": "12*34"}`}, []string{"ivr: Short PIN.", "ivr: Press any keys, then pound."}},
		{"spaces are ignored", []string{`{"dtmf": "1 2 3 4"}`}, []string{"ivr: PIN accepted.", "ivr: Press any keys, then pound."}},
		{"the end of the keys ends it", []string{`{"dtmf": "12"}`}, []string{"ivr: Short PIN.", "ivr: Press any keys, then pound."}},
		{"no route: default", []string{`{"dtmf": "9999"}`}, []string{"ivr: Enter your PIN."}},
		{"speech to a dtmf gather is repeated", []string{`{"text": "one two three four"}`}, []string{"ivr: Enter your PIN."}},
		{"default finish key", []string{`{"dtmf": "1234"}`, `{"dtmf": "2#5"}`}, []string{"ivr: You chose two."}},
		{"speech takes a route", []string{`{"dtmf": "1234"}`, `{"text": "Two."}`}, []string{"ivr: You chose two."}},
		{"double oh seven", []string{`{"dtmf": "1234"}`, `{"text": "double oh seven"}`}, []string{"ivr: Licensed."}},
		{"no route: next", []string{`{"dtmf": "1234"}`, `{"text": "something else"}`}, []string{"ivr: Goodbye."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLine(t, []byte(digitLine), nil)
			id := l.call().CallID
			var r reply
			for _, turn := range tc.turns {
				r = l.turn(id, turn)
			}
			if got := r.said()[1:]; !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The agent's turn records every key it pressed, the finish key too;
	// a node with nothing after it ends the call.
	l := newLine(t, []byte(digitLine), nil)
	id := l.call().CallID
	r := l.turn(id, `{"dtmf": "12*34"}`)
	if r.Turns[0].Text != "DTMF 1 2 * 3 4" || r.Turns[0].Speaker != "agent" || r.awaiting() != `{"input":["dtmf","speech"]}` {
		t.Errorf("turn: %+v, awaiting %s", r.Turns[0], r.awaiting())
	}
	r = l.turn(id, `{"dtmf": "2"}`)
	if r.Status != "completed" || r.Awaiting != nil {
		t.Errorf("after the last node: %s, awaiting %s", r.Status, r.awaiting())
	}
	if code, r := l.post("/voice/calls/"+id+"/turns", `{"dtmf": "1"}`); code != http.StatusConflict || r.Error.Code != "CONFLICT" {
		t.Errorf("a turn on an ended call: %d %+v", code, r.Error)
	}
}

func TestHoldResolvesDelay(t *testing.T) {
	l := newLine(t, nil, nil)
	// Physical therapy: approved 20 s after submission; the hold is 30 s.
	if _, err := l.run.Payer().Submit(payer.Submission{PatientMemberID: "W123456789", ProcedureCode: "97110", Channel: "web"}); err != nil {
		t.Fatal(err)
	}
	id := l.call().CallID
	l.say(id, "W123456789")
	l.turn(id, `{"dtmf": "2"}`)
	got := l.say(id, "What's the status of the request?").said()
	if !strings.Contains(got[1], "is approved. The certification number is AUTH000001, valid 2026-11-30 through 2027-02-27.") {
		t.Errorf("after the hold: %q", got)
	}
}

func TestPersona(t *testing.T) {
	l := newLine(t, nil, nil)
	id := l.call().CallID
	l.say(id, "W123456789")
	l.turn(id, `{"dtmf": "2"}`)
	for _, tc := range []struct{ turn, want string }{
		// No request yet: every request fact is unknown.
		{`{"text": "Is the member covered?"}`, "caller: JANE DOE has Acme Gold HMO, and the coverage is active."},
		{`{"text": "What's the status?"}`, "caller: Let me pull that up. Request unknown for JANE DOE is unknown. The certification number is unknown, valid unknown through unknown."},
		{`{"dtmf": "2"}`, "caller: Sorry, could you say that again?"},
		{`{"text": "Nice weather today."}`, "caller: Sorry, could you say that again?"},
		// An answer and a goodbye in one turn: the answer first.
		{`{"text": "Can you repeat the number? Then that's all."}`, "caller: Of course. The certification number is unknown, valid unknown through unknown."},
	} {
		r := l.turn(id, tc.turn)
		if got := r.said(); got[1] != tc.want {
			t.Errorf("%s: got %q, want %q", tc.turn, got[1:], tc.want)
		}
	}
	if code, call := l.do(http.MethodGet, "/voice/calls/"+id, ""); code != 200 || call.Status != "completed" || call.said()[len(call.said())-1] != "caller: Thank you for calling Acme. Goodbye." {
		t.Errorf("the whole call: %d %s %q", code, call.Status, call.said())
	}
}

func TestUnknownFact(t *testing.T) {
	l := newLine(t, []byte(`{"start": "a", "nodes": {"a": {"say": "Your {shoe_size} is {member_name}; {not a fact} {}"}}}`), nil)
	r := l.call()
	if got := r.said(); got[0] != "ivr: Your unknown is unknown; {not a fact} {}" || r.Status != "completed" {
		t.Errorf("got %q, %s", got, r.Status)
	}
	ev := l.run.Lines("voice_error")
	if len(ev) != 1 || !strings.Contains(ev[0], `"code":"UNKNOWN_FACT","message":"{shoe_size} names no fact: it reads \"unknown\"`) {
		t.Errorf("events: %q", ev)
	}
}

func TestHangup(t *testing.T) {
	l := newLine(t, nil, nil)
	id := l.call().CallID
	for range 2 { // hanging up twice answers the same
		code, r := l.post("/voice/calls/"+id+"/hangup", "")
		if code != 200 || r.Status != "completed" || r.Awaiting != nil || len(r.Turns) != 2 {
			t.Errorf("hangup: %d %+v", code, r)
		}
	}
	if ev := l.run.Lines("voice_call"); len(ev) != 2 || !strings.Contains(ev[1], `"state":"completed"`) {
		t.Errorf("events: %q", ev)
	}
	// Stop ends calls still in progress, so each has its end event.
	other := l.call().CallID
	l.rs.Stop()
	if ev := l.run.Lines("voice_call"); len(ev) != 4 || ev[3] != `voice voice_call {"call_id":"`+other+`","state":"completed"}` {
		t.Errorf("events after Stop: %q", ev)
	}
}

func TestBadInput(t *testing.T) {
	l := newLine(t, nil, nil)
	id := l.call().CallID
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", phonesim.MaxBody)})
	for _, tc := range []struct {
		method, path, body string
		code               int
		errCode, message   string
	}{
		{"POST", "/voice/calls/" + id + "/turns", `{"dtmf": "12a"}`, 400, "VALIDATION_ERROR", `dtmf: 'a' is not a key: keys are 0-9, * and #`},
		{"POST", "/voice/calls/" + id + "/turns", `{"dtmf": "1٣"}`, 400, "VALIDATION_ERROR", `'٣' is not a key`},
		{"POST", "/voice/calls/" + id + "/turns", `{"dtmf": "  "}`, 400, "VALIDATION_ERROR", `dtmf: no keys`},
		{"POST", "/voice/calls/" + id + "/turns", `{"dtmf": "` + strings.Repeat("1", phonesim.MaxKeys+1) + `"}`, 400, "VALIDATION_ERROR", `more than 256 keys`},
		{"POST", "/voice/calls/" + id + "/turns", `{"text": "hi", "dtmf": "1"}`, 400, "VALIDATION_ERROR", `not both`},
		{"POST", "/voice/calls/" + id + "/turns", `{}`, 400, "VALIDATION_ERROR", `a turn needs "text"`},
		{"POST", "/voice/calls/" + id + "/turns", `{"text": "  "}`, 400, "VALIDATION_ERROR", `a turn needs "text"`},
		{"POST", "/voice/calls/" + id + "/turns", `{"digits": "1"}`, 400, "VALIDATION_ERROR", `unknown field "digits"`},
		{"POST", "/voice/calls/" + id + "/turns", `{"text": 5}`, 400, "VALIDATION_ERROR", `not the expected JSON object`},
		{"POST", "/voice/calls/" + id + "/turns", `{"text": "a"} {}`, 400, "VALIDATION_ERROR", `more than one JSON value`},
		{"POST", "/voice/calls/" + id + "/turns", string(big), 413, "PAYLOAD_TOO_LARGE", `over the 1048576-byte cap`},
		{"POST", "/voice/calls/CA999999/turns", `{"text": "hi"}`, 404, "NOT_FOUND", `no call "CA999999"`},
		{"GET", "/voice/calls/" + id + "/turns", ``, 405, "VALIDATION_ERROR", `GET is not allowed`},
		{"POST", "/voice/calls/" + id, ``, 405, "VALIDATION_ERROR", `use GET`},
		{"POST", "/voice/calls/" + id + "/transfer", ``, 404, "NOT_FOUND", `a call has turns and hangup`},
		{"GET", "/voice/lines", ``, 404, "NOT_FOUND", `the calls API is under /voice/calls`},
		{"GET", "/voicemail", ``, 404, "NOT_FOUND", `no such endpoint`},
		{"POST", "/voice/calls", `{"to": "+15559999"}`, 404, "NOT_FOUND", `no line answers "+15559999": this sandbox's line is +15550100`},
	} {
		code, r := l.do(tc.method, tc.path, tc.body)
		if code != tc.code || r.Error == nil || r.Error.Code != tc.errCode || !strings.Contains(r.Error.Message, tc.message) {
			t.Errorf("%s %s %.40s: %d %+v, want %d %s %q", tc.method, tc.path, tc.body, code, r.Error, tc.code, tc.errCode, tc.message)
		}
	}
	// Every refusal is an event; the call goes on.
	if n := len(l.run.Lines("voice_error")); n != 18 {
		t.Errorf("%d voice_error events, want 18", n)
	}
	if r := l.say(id, "W123456789"); !slices.Equal(r.said()[1:], []string{menu}) {
		t.Errorf("after bad input: %q", r.said())
	}
}

func TestNoLine(t *testing.T) {
	s, err := phonesim.New(fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	l := serveLine(t, s, newFakeRun(t, nil))
	code, r := l.post("/voice/calls", "")
	if code != http.StatusServiceUnavailable || r.Error == nil || !strings.Contains(r.Error.Message, "voice/ivr.json") {
		t.Errorf("a call without a line: %d %+v", code, r.Error)
	}
	// The snapshot still holds a transcript, without turns.
	dir := l.snapshot()
	if data := readFile(t, dir, "voice/transcript.json"); data != "{\"turns\": []}\n" {
		t.Errorf("transcript: %q", data)
	}
}

func TestBounds(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		l := newLine(t, []byte(`{"start": "a", "nodes": {"a": {"say": "hi"}}}`), nil)
		for range phonesim.MaxCalls {
			l.call()
		}
		if code, r := l.post("/voice/calls", ""); code != http.StatusTooManyRequests || r.Error.Code != "RATE_LIMITED" {
			t.Errorf("call %d: %d %+v", phonesim.MaxCalls+1, code, r.Error)
		}
	})
	t.Run("turns", func(t *testing.T) {
		l := newLine(t, []byte(`{"start": "a", "nodes": {"a": {"say": "again", "gather": {"input": ["speech"]}, "next": "a"}}}`), nil)
		id := l.call().CallID
		for range phonesim.MaxTurns/2 - 1 {
			l.say(id, "hello")
		}
		l.say(id, "hello") // the call holds MaxTurns now
		if code, r := l.post("/voice/calls/"+id+"/turns", `{"text": "one more"}`); code != http.StatusTooManyRequests || !strings.Contains(r.Error.Message, "holds 1000 turns") {
			t.Errorf("turn past the cap: %d %+v", code, r.Error)
		}
	})
	t.Run("events", func(t *testing.T) {
		l := newLine(t, nil, nil)
		id := l.call().CallID
		long := strings.Repeat("é", 3000) // 6000 bytes
		l.say(id, long)
		ev := l.run.Lines("voice_turn")
		want := `"text":"` + strings.Repeat("é", 2048) + `","digest":{"size":6000,"sha256":"`
		if len(ev) != 5 || !strings.Contains(ev[2], want) {
			t.Errorf("the long turn's event: %.200s", ev[2])
		}
		// The transcript keeps the whole turn.
		if got := readFile(t, l.snapshot(), "voice/transcript.json"); !strings.Contains(got, `"text":"`+long+`"`) {
			t.Errorf("the transcript lost the long turn")
		}
	})
	t.Run("memory", func(t *testing.T) {
		l := newLine(t, nil, nil)
		l.run.SetBudget(8 << 10)
		id := l.call().CallID
		if code, r := l.post("/voice/calls/"+id+"/turns", `{"text": "`+strings.Repeat("word ", 1000)+`"}`); code != http.StatusInsufficientStorage {
			t.Errorf("past the budget: %d %+v", code, r.Error)
		}
		if code, _ := l.post("/voice/calls/"+id+"/turns", `{"text": "W123456789"}`); code != 200 {
			t.Errorf("within the budget: %d", code)
		}
		// What is held is what the call holds, not the allowances.
		if l.run.Used() > 4<<10 {
			t.Errorf("%d bytes held for a call of 4 short turns", l.run.Used())
		}
	})
}
