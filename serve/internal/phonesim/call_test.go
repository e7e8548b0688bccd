package phonesim_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/payer"
	"github.com/assaykit/assay/voice"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to rewrite it); got:\n%s", name, got)
	}
}

// submitStory records the story's request: Jane Doe's knee MRI, approved.
func submitStory(t *testing.T, l *line) payer.Row {
	t.Helper()
	row, err := l.run.Payer().Submit(payer.Submission{
		RequestID: "PA-2026-0417", PatientMemberID: "W123456789", ProcedureCode: "73721",
		ProviderNPI: "1234567893", ServiceDate: "2026-12-05", Channel: "api",
	})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// placeStoryCall is the story's scripted agent: it says the member id,
// picks prior authorization status from the menu, asks the representative
// for the status, has the certification number read back, and says
// goodbye.
func placeStoryCall(t *testing.T, l *line) []reply {
	r0 := l.call()
	id := r0.CallID
	return []reply{
		r0,
		l.say(id, "W one two three four five six seven eight nine."),
		l.turn(id, `{"dtmf": "2"}`),
		l.say(id, "Hi Dana, I'm calling from Springfield Orthopedics about a prior authorization for Jane Doe, an MRI of the right knee, CPT seven three seven two one. What is its status?"),
		l.say(id, "Great, so the authorization is approved. Could you confirm the certification number? I have AUTH000001."),
		l.say(id, "Thanks, that's all. Goodbye."),
	}
}

func TestStoryCall(t *testing.T) {
	l := newLine(t, nil, nil)
	submitStory(t, l)
	replies := placeStoryCall(t, l)
	want := [][]string{
		{"ivr: Thank you for calling Acme Health Plan provider services.", "ivr: Please say or enter the member ID."},
		{"agent: W one two three four five six seven eight nine.",
			"ivr: For eligibility press 1. For prior authorization status press 2."},
		{"agent: DTMF 2", "ivr: Connecting you to a utilization management representative.",
			"caller: Utilization management, this is Dana. How can I help?"},
		{replies[3].said()[0], "caller: Let me pull that up. Request PA-000001 for JANE DOE is approved. The certification number is AUTH000001, valid 2026-12-05 through 2027-01-03."},
		{replies[4].said()[0], "caller: Of course. The certification number is AUTH000001, valid 2026-12-05 through 2027-01-03."},
		{"agent: Thanks, that's all. Goodbye.", "caller: Thank you for calling Acme. Goodbye."},
	}
	for i, r := range replies {
		if !slices.Equal(r.said(), want[i]) {
			t.Errorf("reply %d:\n got %q\nwant %q", i, r.said(), want[i])
		}
	}
	// What the line waits for, reply by reply.
	awaits := []string{`{"input":["dtmf","speech"]}`, `{"input":["dtmf"],"num_digits":1}`,
		`{"input":["speech"]}`, `{"input":["speech"]}`, `{"input":["speech"]}`, `null`}
	for i, r := range replies {
		if got := r.awaiting(); got != awaits[i] {
			t.Errorf("reply %d awaits %s, want %s", i, got, awaits[i])
		}
	}
	if last := replies[len(replies)-1]; last.Status != "completed" {
		t.Errorf("after goodbye the call is %s", last.Status)
	}
	// Times: each turn starts where the one before ends, but the
	// greeting, which waits for the 30 s hold.
	prev := int64(0)
	for _, r := range replies {
		for _, turn := range r.Turns {
			if turn.StartMS < prev || turn.EndMS-turn.StartMS < 300 || (turn.EndMS-turn.StartMS)%300 != 0 {
				t.Errorf("turn %q: %d-%d after %d", turn.Text, turn.StartMS, turn.EndMS, prev)
			}
			prev = turn.EndMS
		}
	}
	if g := replies[2].Turns[2]; g.StartMS != 30000 {
		t.Errorf("the greeting starts at %d ms, want 30000 (after the hold)", g.StartMS)
	}

	dir := l.snapshot()
	data, err := os.ReadFile(filepath.Join(dir, "voice", "transcript.json"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "story.transcript.json", data)
	golden(t, "story.events.txt", []byte(strings.Join(l.run.Lines(""), "\n")+"\n"))

	// The story's voice criteria pass on the snapshot, and on the live
	// evidence; the certification number is the one this run minted.
	criteria := []byte(`[
	  {"id": "confirmed", "assertion": {"assert": "voice-transcript", "speaker": "agent",
	    "contains": ["authorization is approved", "certification number", "AUTH000001"]}},
	  {"id": "no_ssn", "assertion": {"assert": "voice-transcript", "speaker": "agent",
	    "not_contains": ["social security number"]}},
	  {"id": "rep_said", "assertion": {"assert": "voice-transcript", "speaker": "caller",
	    "contains": ["is approved", "certification number is AUTH000001"]}},
	  {"id": "ivr_menu", "assertion": {"assert": "voice-transcript", "speaker": "ivr",
	    "contains": ["press two"]}}]`)
	crits, err := assert.ParseCriteria(criteria)
	if err != nil {
		t.Fatal(err)
	}
	envs := map[string]*assert.Env{"snapshot": assert.NewEnv(), "live": assert.NewEnv()}
	voice.Attach(envs["snapshot"], voice.FolderSource(check.DirFS(filepath.Join(dir, "voice")), 0))
	l.rs.Attach(envs["live"])
	for name, env := range envs {
		res, err := assert.DefaultRegistry().Evaluate(context.Background(), crits, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Criteria) != 4 {
			t.Fatalf("%s: %d results", name, len(res.Criteria))
		}
		for _, c := range res.Criteria {
			if !c.Passed {
				t.Errorf("%s: criterion %s failed: %s", name, c.CriterionID, c.Details)
			}
		}
	}
}
