package voice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/internal/jsonkind"
	"github.com/assaykit/assay/internal/jsonvalue"
	"github.com/tidwall/gjson"
)

// Speaker says who spoke a turn. The three known speakers are Agent,
// Caller and IVR; a transcript may hold others (kept, in lower case, and
// reported by UnknownSpeakers). Any, in a spec, selects every turn.
type Speaker string

// The speakers.
const (
	Agent  Speaker = "agent"
	Caller Speaker = "caller"
	IVR    Speaker = "ivr"
	Any    Speaker = "any"
)

// speakerNames maps the names a transcript may use, folded to lower case
// with runs of spaces, '-' and '_' read as one space, to a speaker.
var speakerNames = wordMap[Speaker]{
	{"agent", Agent}, {"ai", Agent}, {"ai agent", Agent}, {"assistant", Agent},
	{"automated system", IVR}, {"bot", Agent}, {"caller", Caller}, {"client", Caller},
	{"customer", Caller}, {"human", Caller}, {"ivr", IVR}, {"member", Caller},
	{"patient", Caller}, {"phone menu", IVR}, {"phone tree", IVR}, {"rep", Agent},
	{"representative", Agent}, {"system", IVR}, {"user", Caller}, {"voice agent", Agent},
}

// ParseSpeaker maps a speaker name as a transcript writes it to a Speaker:
// case-insensitively, so "Agent", "AGENT", "assistant" and "Agent (Dana)"
// are Agent, "Customer" and "user" are Caller, "IVR" and "system" are IVR.
// Any other name is returned in lower case with ok false.
func ParseSpeaker(name string) (s Speaker, ok bool) {
	// "Agent (Dana)": the role before a parenthetical name
	if k := strings.IndexByte(name, '('); k > 0 && strings.HasSuffix(strings.TrimSpace(name), ")") {
		if sp, ok := ParseSpeaker(name[:k]); ok {
			return sp, true
		}
	}
	key := strings.Join(strings.FieldsFunc(strings.ToLower(strings.TrimSpace(name)), func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_'
	}), " ")
	if sp, ok := speakerNames.get(key); ok {
		return sp, true
	}
	return Speaker(key), false
}

// Turn is one speaker's turn in a call.
type Turn struct {
	// Speaker is Agent, Caller, IVR, or an unknown speaker's name in lower
	// case.
	Speaker Speaker `json:"speaker"`
	// Text is what was said, as transcribed.
	Text string `json:"text"`
	// StartMS and EndMS are the turn's times in milliseconds from the
	// start of the call, when the transcript gives them.
	StartMS *int64 `json:"start_ms,omitempty"`
	EndMS   *int64 `json:"end_ms,omitempty"`
}

// Transcript is a call's turns in order. Build one with Parse, ParseJSON,
// ParseText or NewTranscript; it is immutable and safe for concurrent use,
// and it normalises its turns once, on first use, for every check and
// matcher that reads it.
type Transcript struct {
	turns   []Turn
	unknown []string

	mu    sync.Mutex
	views map[Speaker]*view
}

// NewTranscript returns a transcript of turns (copied). Speakers are
// mapped as ParseSpeaker maps them; invalid UTF-8 in a text reads as
// U+FFFD.
func NewTranscript(turns []Turn) *Transcript {
	t := &Transcript{turns: make([]Turn, len(turns))}
	seen := map[string]bool{}
	for i, turn := range turns {
		sp, ok := ParseSpeaker(string(turn.Speaker))
		if !ok && !seen[string(sp)] {
			seen[string(sp)] = true
			t.unknown = append(t.unknown, string(sp))
		}
		turn.Speaker = sp
		turn.Text = strings.ToValidUTF8(turn.Text, "\uFFFD")
		t.turns[i] = turn
	}
	return t
}

// Turns returns a copy of the turns.
func (t *Transcript) Turns() []Turn { return append([]Turn(nil), t.turns...) }

// Len returns the number of turns.
func (t *Transcript) Len() int { return len(t.turns) }

// UnknownSpeakers returns the speaker names that are not agent, caller or
// IVR, in order of first appearance. Their turns are kept: speaker "any"
// reads them.
func (t *Transcript) UnknownSpeakers() []string { return append([]string(nil), t.unknown...) }

// ParseError is a transcript that cannot be read, with where.
type ParseError struct {
	// Location is where in the input: line and column for text and JSON
	// syntax, a JSON pointer for a JSON value of the wrong shape.
	Location assert.Location
	// Message says what is wrong.
	Message string
}

// Error renders "transcript: LOCATION: message".
func (e *ParseError) Error() string { return "transcript: " + e.Location.Prefix(e.Message) }

// Parse reads a transcript in either format: JSON when its first
// non-space character is '[' or '{', else "Speaker: text" lines. name, if
// not "", names the input in errors.
func Parse(data []byte, name string) (*Transcript, error) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		return ParseJSON(data, name)
	}
	return ParseText(data, name)
}

// ParseJSON reads a transcript written as a JSON array of turns, or as an
// object whose "turns" member is one: [{"speaker", "text", "start_ms"?,
// "end_ms"?}]. Other members of a turn are ignored; a turn without text (or
// with text null) is an empty turn. name, if not "", names the input in
// errors.
func ParseJSON(data []byte, name string) (*Transcript, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	fail := func(offset int, ptr, format string, args ...any) error {
		loc := assert.Location{File: name, Pointer: ptr}
		if offset >= 0 {
			loc.Line, loc.Column = assert.LineColumn(data, offset)
		}
		return &ParseError{Location: loc, Message: fmt.Sprintf(format, args...)}
	}
	if !jsonvalue.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset) - 1 // the offending character
			if int(se.Offset) >= len(data) {
				off = len(data) // the input ended early
			}
			return nil, fail(off, "", "not JSON: %v", se)
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fail(len(data), "", "not JSON: %v", err)
	}
	root := gjson.ParseBytes(data)
	turnsV, base := root, ""
	if root.IsObject() {
		turnsV, base = root.Get("turns"), "/turns"
		if !turnsV.Exists() {
			return nil, fail(root.Index, "", `a JSON transcript is an array of turns or an object with "turns"; this object has no "turns"`)
		}
	}
	if !turnsV.IsArray() {
		return nil, fail(turnsV.Index, base, "turns must be an array, not %s", jsonkind.OfResult(turnsV))
	}
	var turns []Turn
	var err error
	i := 0
	turnsV.ForEach(func(_, v gjson.Result) bool {
		// The pointer is written only for an error: most turns have none.
		n := i
		ptr := func() string { return base + "/" + strconv.Itoa(n) }
		i++
		if !v.IsObject() {
			err = fail(v.Index, ptr(), "a turn must be an object, not %s", jsonkind.OfResult(v))
			return false
		}
		// One pass over the turn's members; a repeated key reads as its
		// first, as gjson's Get does.
		var sp, text, startMS, endMS gjson.Result
		v.ForEach(func(k, m gjson.Result) bool {
			var dst *gjson.Result
			switch k.Str {
			case "speaker":
				dst = &sp
			case "text":
				dst = &text
			case "start_ms":
				dst = &startMS
			case "end_ms":
				dst = &endMS
			}
			if dst != nil && !dst.Exists() {
				*dst = m
			}
			return true
		})
		if sp.Type != gjson.String {
			if !sp.Exists() {
				err = fail(v.Index, ptr(), "the turn has no speaker")
			} else {
				err = fail(sp.Index, ptr()+"/speaker", "speaker must be a string, not %s", jsonkind.OfResult(sp))
			}
			return false
		}
		if strings.TrimSpace(sp.Str) == "" {
			err = fail(sp.Index, ptr()+"/speaker", "speaker is empty")
			return false
		}
		turn := Turn{Speaker: Speaker(sp.Str)}
		switch text.Type {
		case gjson.String:
			turn.Text = text.Str
		case gjson.Null:
		default:
			err = fail(text.Index, ptr()+"/text", "text must be a string, not %s", jsonkind.OfResult(text))
			return false
		}
		for _, key := range [...]string{"start_ms", "end_ms"} {
			t := startMS
			if key == "end_ms" {
				t = endMS
			}
			if !t.Exists() || t.Type == gjson.Null {
				continue
			}
			f := t.Float()
			if t.Type != gjson.Number || f < 0 || f > math.MaxInt64/2 || math.IsNaN(f) {
				err = fail(t.Index, ptr()+"/"+key, "%s must be a number of milliseconds >= 0, not %s", key, assert.Truncate(t.Raw))
				return false
			}
			ms := int64(f)
			if key == "start_ms" {
				turn.StartMS = &ms
			} else {
				turn.EndMS = &ms
			}
		}
		if turn.StartMS != nil && turn.EndMS != nil && *turn.EndMS < *turn.StartMS {
			err = fail(v.Index, ptr(), "end_ms %d is before start_ms %d", *turn.EndMS, *turn.StartMS)
			return false
		}
		turns = append(turns, turn)
		return true
	})
	if err != nil {
		return nil, err
	}
	return NewTranscript(turns), nil
}

// ParseText reads "Speaker: text" lines. A line whose text before its
// first ':' is a speaker name (a letter, then at most 40 letters, digits,
// spaces, parentheses, '.', '-' or '_') starts a turn; any other non-blank
// line continues the turn before it (joined with a space), and is an error
// before the first turn. A time before the name ("[00:01:02] Agent: ...",
// "01:02.5 Agent: ...") is the turn's StartMS. Blank lines are skipped. name, if not "", names the input in
// errors.
func ParseText(data []byte, name string) (*Transcript, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var turns []Turn
	offset := 0
	for offset <= len(data) {
		end := bytes.IndexAny(data[offset:], "\r\n")
		var line []byte
		next := len(data) + 1
		if end < 0 {
			line = data[offset:]
		} else {
			line = data[offset : offset+end]
			next = offset + end + 1
			if data[offset+end] == '\r' && next < len(data) && data[next] == '\n' {
				next++
			}
		}
		text := strings.TrimSpace(strings.ToValidUTF8(string(line), "\uFFFD"))
		if text != "" {
			start, rest, timed := timestamp(text)
			if who, said, ok := speakerLine(rest); ok {
				turn := Turn{Speaker: Speaker(who), Text: said}
				if timed {
					turn.StartMS = &start
				}
				turns = append(turns, turn)
			} else if len(turns) == 0 {
				lead := len(line) - len(bytes.TrimLeft(line, " \t"))
				l, c := assert.LineColumn(data, offset+lead)
				return nil, &ParseError{Location: assert.Location{File: name, Line: l, Column: c},
					Message: fmt.Sprintf("expected \"Speaker: text\", got %q", assert.Truncate(text))}
			} else {
				last := &turns[len(turns)-1]
				if last.Text == "" {
					last.Text = text
				} else {
					last.Text += " " + text
				}
			}
		}
		offset = next
	}
	return NewTranscript(turns), nil
}

// timestamp reads a time at the start of a line, "[00:01:02]",
// "00:01:02.5" or "[1:02]", as milliseconds, and returns the rest of the
// line.
func timestamp(line string) (ms int64, rest string, ok bool) {
	s := line
	bracket := strings.HasPrefix(s, "[")
	if bracket {
		s = s[1:]
	}
	var parts []int64
	frac := int64(0)
	i := 0
	for len(parts) < 3 {
		j := i
		for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, line, false
		}
		v, _ := strconv.ParseInt(s[i:j], 10, 64)
		parts = append(parts, v)
		i = j
		if i < len(s) && s[i] == ':' {
			i++
			continue
		}
		break
	}
	if len(parts) < 2 {
		return 0, line, false
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && j-i <= 3 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		digits := s[i+1 : j]
		f, _ := strconv.ParseInt((digits + "000")[:3], 10, 64)
		frac, i = f, j
	}
	if bracket {
		if i >= len(s) || s[i] != ']' {
			return 0, line, false
		}
		i++
	}
	if i >= len(s) || (s[i] != ' ' && s[i] != '\t') {
		return 0, line, false
	}
	for _, p := range parts[1:] {
		if p >= 60 {
			return 0, line, false
		}
	}
	secs := int64(0)
	for _, p := range parts {
		secs = secs*60 + p
	}
	return secs*1000 + frac, strings.TrimSpace(s[i:]), true
}

// speakerLine splits "Speaker: text".
func speakerLine(line string) (who, said string, ok bool) {
	k := strings.IndexByte(line, ':')
	if k <= 0 || k > 40 {
		return "", "", false
	}
	who = strings.TrimSpace(line[:k])
	r, _ := utf8.DecodeRuneInString(who)
	if !unicode.IsLetter(r) {
		return "", "", false
	}
	for _, r := range who {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '.' || r == '-' || r == '_' || r == '(' || r == ')') {
			return "", "", false
		}
	}
	return who, strings.TrimSpace(line[k+1:]), true
}
