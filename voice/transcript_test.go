package voice_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/assaykit/assay/check"
	"github.com/assaykit/assay/voice"
)

func TestParseJSON(t *testing.T) {
	data, err := os.ReadFile("testdata/transcript.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := voice.Parse(data, "transcript.json")
	if err != nil {
		t.Fatal(err)
	}
	turns := tr.Turns()
	if len(turns) != 6 {
		t.Fatalf("%d turns", len(turns))
	}
	want := []voice.Speaker{voice.IVR, voice.Agent, voice.Caller, voice.Agent, "supervisor", voice.Agent}
	for i, turn := range turns {
		if turn.Speaker != want[i] {
			t.Errorf("turn %d: speaker %q, want %q", i, turn.Speaker, want[i])
		}
	}
	if turns[0].StartMS == nil || *turns[0].StartMS != 0 || *turns[0].EndMS != 2100 || turns[4].StartMS != nil {
		t.Errorf("times: %+v %+v", turns[0], turns[4])
	}
	if turns[5].Text != "" {
		t.Errorf("a null text reads as empty, got %q", turns[5].Text)
	}
	if u := tr.UnknownSpeakers(); len(u) != 1 || u[0] != "supervisor" {
		t.Errorf("unknown speakers %q", u)
	}
	// an array works as well as {"turns": ...}
	tr, err = voice.ParseJSON([]byte(`[{"speaker": "caller", "text": "hi"}]`), "")
	if err != nil || tr.Len() != 1 {
		t.Fatalf("%v %v", tr, err)
	}
}

func TestParseText(t *testing.T) {
	data, err := os.ReadFile("testdata/transcript.txt")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := voice.Parse(data, "transcript.txt")
	if err != nil {
		t.Fatal(err)
	}
	turns := tr.Turns()
	if len(turns) != 5 {
		t.Fatalf("%d turns: %+v", len(turns), turns)
	}
	if turns[3].Text != "March twelfth at ten thirty. The doctor is in that day." {
		t.Errorf("continuation line: %q", turns[3].Text)
	}
	if turns[4].Speaker != voice.Caller || turns[4].Text != "That's great, thanks." {
		t.Errorf("last turn %+v", turns[4])
	}
	// CR-only line breaks, a BOM, an unknown speaker and a time in the text
	tr, err = voice.ParseText([]byte("\ufeffAGENT: hi\rNurse Joy: at 10:30 then\r\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if turns := tr.Turns(); len(turns) != 2 || turns[1].Speaker != "nurse joy" || turns[1].Text != "at 10:30 then" {
		t.Errorf("%+v", turns)
	}
	// leading times, a parenthetical name
	tr, err = voice.ParseText([]byte("[00:01:02] Agent (Dana): hi\n01:05.25 Caller: hello\n[1:07] IVR: press one\n10:30 is when we open\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	turns = tr.Turns()
	if len(turns) != 3 || turns[0].Speaker != voice.Agent || *turns[0].StartMS != 62000 || *turns[1].StartMS != 65250 ||
		*turns[2].StartMS != 67000 || turns[2].Text != "press one 10:30 is when we open" {
		t.Errorf("times: %+v", turns)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"json syntax", "[\n  {\"speaker\": \"agent\",\n   \"text\": }\n]", "transcript: t:3:12: not JSON: invalid character '}'"},
		{"object without turns", `{"lines": []}`, `has no "turns"`},
		{"turns not an array", `{"turns": {"a": 1}}`, "transcript: t:1:11: /turns: turns must be an array, not an object"},
		{"turn not an object", `[1]`, "t:1:2: /0: a turn must be an object, not a number"},
		{"speaker missing", `[{"text": "hi"}]`, "t:1:2: /0: the turn has no speaker"},
		{"speaker number", `[{"speaker": 7, "text": "hi"}]`, "t:1:14: /0/speaker: speaker must be a string, not a number"},
		{"speaker empty", `[{"speaker": " ", "text": "hi"}]`, "speaker is empty"},
		{"text number", `{"turns": [{"speaker": "agent", "text": 5}]}`, "t:1:41: /turns/0/text: text must be a string, not a number"},
		{"negative time", `[{"speaker": "agent", "text": "x", "start_ms": -1}]`, "/0/start_ms: start_ms must be a number of milliseconds >= 0"},
		{"end before start", `[{"speaker": "agent", "text": "x", "start_ms": 5, "end_ms": 1}]`, "end_ms 1 is before start_ms 5"},
		{"text without speaker", "\n\n  hello there\nAgent: hi", "transcript: t:3:3: expected \"Speaker: text\""},
	}
	for _, tt := range tests {
		_, err := voice.Parse([]byte(tt.in), "t")
		var pe *voice.ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// empty inputs are empty transcripts, not errors
	for _, in := range []string{"", "\n\n", "[]", `{"turns": []}`} {
		if tr, err := voice.Parse([]byte(in), ""); err != nil || tr.Len() != 0 {
			t.Errorf("%q: %v %v", in, tr, err)
		}
	}
}

func TestFolderSource(t *testing.T) {
	ctx := context.Background()
	jsonData, _ := os.ReadFile("testdata/transcript.json")
	textData, _ := os.ReadFile("testdata/transcript.txt")
	tests := []struct {
		name  string
		fsys  fs.FS
		turns int
		err   string
	}{
		{"json", fstest.MapFS{"transcript.json": {Data: jsonData}}, 6, ""},
		{"text", fstest.MapFS{"transcript.txt": {Data: textData}}, 5, ""},
		{"neither", fstest.MapFS{"notes.md": {Data: []byte("x")}}, 0, "neither transcript.json nor transcript.txt"},
		{"both", fstest.MapFS{"transcript.json": {Data: jsonData}, "transcript.txt": {Data: textData}}, 0, "both"},
		{"malformed", fstest.MapFS{"transcript.json": {Data: []byte("[{")}}, 0, "transcript.json:1:3: not JSON"},
		{"folder in its place", fstest.MapFS{"transcript.txt/x": {Data: []byte("x")}}, 0, "not a regular file"},
	}
	for _, tt := range tests {
		src := voice.FolderSource(tt.fsys, 0)
		tr, err := src.Transcript(ctx)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || tr.Len() != tt.turns {
			t.Errorf("%s: %v, %v", tt.name, tr, err)
		}
		// parsed once: the same transcript every time
		if again, _ := src.Transcript(ctx); again != tr {
			t.Errorf("%s: parsed twice", tt.name)
		}
	}
	// over the cap
	_, err := voice.FolderSource(fstest.MapFS{"transcript.txt": {Data: textData}}, 10).Transcript(ctx)
	if !errors.Is(err, check.ErrTooLarge) {
		t.Errorf("cap: %v", err)
	}
	if _, err := voice.MemorySource(nil).Transcript(ctx); err == nil {
		t.Error("a memory source of nothing must fail")
	}
}

func TestParseSpeaker(t *testing.T) {
	for in, want := range map[string]voice.Speaker{"Agent": voice.Agent, " ASSISTANT ": voice.Agent, "customer": voice.Caller,
		"User": voice.Caller, "IVR": voice.IVR, "phone_tree": voice.IVR, "Phone-Menu": voice.IVR} {
		if got, ok := voice.ParseSpeaker(in); !ok || got != want {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
	if got, ok := voice.ParseSpeaker("Nurse  Joy"); ok || got != "nurse joy" {
		t.Errorf("unknown: %q %v", got, ok)
	}
}
