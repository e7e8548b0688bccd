package hl7_test

import (
	"bufio"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/assaykit/assay/hl7"
)

// TestListenerSubmit: a submitted message follows a frame's rules (AA kept,
// AE and AR refused and recorded), Answered hears of every ACKed input in
// the order of Messages and Rejects, and Admit can refuse with AR.
func TestListenerSubmit(t *testing.T) {
	var mu sync.Mutex
	var heard []hl7.Answer
	budget := int64(1 << 20)
	l := &hl7.Listener{MaxFrameSize: 4096}
	l.Answered = func(a hl7.Answer) {
		mu.Lock()
		heard = append(heard, a)
		mu.Unlock()
	}
	l.Admit = func(n int64) error {
		if n > budget {
			return errors.New("budget spent")
		}
		budget -= n
		return nil
	}
	for _, tc := range []struct {
		name, data          string
		code, id, typ, err8 string
		kept                bool
	}{
		{name: "valid", data: message("S-1"), code: "AA", id: "S-1", typ: "ADT", kept: true},
		{name: "LF terminators", data: strings.ReplaceAll(message("S-2"), "\r", "\n"), code: "AA", id: "S-2", typ: "ADT", kept: true},
		{name: "body does not parse", data: message("S-3", "oops"), code: "AE", id: "S-3", typ: "ADT", err8: "segment ID"},
		{name: "header unreadable", data: "MSH|", code: "AR", err8: "unreadable header"},
		{name: "header unreadable, ~ as field separator", data: "MSH~", code: "AR", err8: "unreadable header"},
		{name: "& as field separator, no MSH.9", data: "MSH&^~\\&&A&B", code: "AR", err8: "MSH.9"},
		{name: "not HL7", data: `{"payload": 1}`, code: "AR", err8: "segment ID"},
		{name: "no control id", data: "MSH|^~\\&|A|B|C|D|20250101||ADT^A01|||2.5\r", code: "AR", typ: "ADT", err8: "MSH.10"},
		{name: "over MaxFrameSize", data: message("S-4", "NTE|1||"+strings.Repeat("x", 5000)), code: "AR", id: "S-4", typ: "ADT", err8: "frame too large"},
		{name: "refused by Admit", data: message("S-5", "NTE|1||"+strings.Repeat("y", 3000)), code: "AR", id: "S-5", typ: "ADT", err8: "budget spent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "refused by Admit" {
				budget = 100
			}
			before := len(controlIDs(t, l))
			a := l.Submit("http 127.0.0.1:1", []byte(tc.data))
			ack, err := hl7.ParseMessage(a.ACK)
			if err != nil {
				t.Fatalf("ACK %q: %v", a.ACK, err)
			}
			if a.Code != tc.code || text(ack, "MSA.1") != tc.code || a.ControlID != tc.id || text(ack, "MSA.2") != tc.id || a.MessageType != tc.typ || !a.Submitted {
				t.Errorf("answer %+v, ACK %q", a, a.ACK)
			}
			if got := text(ack, "ERR.8"); !strings.Contains(got, tc.err8) || (tc.err8 == "") != (got == "") {
				t.Errorf("ERR.8 = %q, want it to say %q", got, tc.err8)
			}
			if (a.Err == nil) != tc.kept {
				t.Errorf("Err = %v", a.Err)
			}
			if got := len(controlIDs(t, l)) - before; got != map[bool]int{true: 1}[tc.kept] {
				t.Errorf("%d messages kept", got)
			}
			mu.Lock()
			last := heard[len(heard)-1]
			mu.Unlock()
			if last.Code != a.Code || last.ControlID != a.ControlID || string(last.ACK) != string(a.ACK) {
				t.Errorf("Answered heard %+v", last)
			}
		})
	}
	if got := strings.Join(controlIDs(t, l), ","); got != "S-1,S-2" {
		t.Errorf("kept %s", got)
	}
	rejects := mustRejects(t, l)
	if len(rejects) != 8 || rejects[0].Index != 2 || rejects[0].From != "http 127.0.0.1:1" || rejects[7].Index != 9 || !errors.Is(rejects[7].Err, hl7.ErrBusy) || !errors.Is(rejects[6].Err, hl7.ErrFrameTooLarge) {
		t.Errorf("rejects %v", rejects)
	}
	if len(heard) != 10 {
		t.Errorf("Answered heard %d inputs, want 10", len(heard))
	}
}

// TestListenerAnsweredOverMLLP: frames are heard with Submitted false,
// including the ones Admit refuses, and inputs without an ACK are not.
func TestListenerAnsweredOverMLLP(t *testing.T) {
	var mu sync.Mutex
	var heard []string
	l := &hl7.Listener{
		Admit: func(n int64) error {
			if n <= 0 {
				t.Errorf("Admit(%d)", n)
			}
			return nil
		},
		Answered: func(a hl7.Answer) {
			mu.Lock()
			heard = append(heard, a.Code+" "+a.ControlID+" "+a.MessageType+" "+map[bool]string{true: "submitted", false: "mllp"}[a.Submitted])
			mu.Unlock()
		},
	}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	c.Write(frame(message("M-1")))
	readACK(t, r)
	c.Write([]byte("stray"))
	c.Write(frame(message("M-2", "bad")))
	readACK(t, r)
	l.Submit("http", []byte(message("H-1")))
	mu.Lock()
	got := strings.Join(heard, "; ")
	mu.Unlock()
	if want := "AA M-1 ADT mllp; AE M-2 ADT mllp; AA H-1 ADT submitted"; got != want {
		t.Errorf("heard %q, want %q", got, want)
	}
	if ids := strings.Join(controlIDs(t, l), ","); ids != "M-1,H-1" {
		t.Errorf("kept %s", ids)
	}
	if n := l.RejectCount(); n != 2 {
		t.Errorf("%d rejects, want the stray bytes and M-2", n)
	}
}

// A header field holding a control character (an MLLP end block, say) is
// not echoed into the ACK: the ACK would end its frame or segment there.
// Every ACK parses, and the clean fields are echoed.
func TestListenerACKEchoesNoControls(t *testing.T) {
	l := &hl7.Listener{}
	for _, tc := range []struct {
		name, data, controlID string
	}{
		{"end block in MSH.3 of an unreadable header", "MSH||\x1c0", ""},
		{"start block in MSH.4", "MSH|^~\\&|APP|\x0bFAC|RECV|RFAC|20260101||ADT^A01|C-1|P|2.5\rPID|1\r", "C-1"},
		{"end block in the control id", "MSH|^~\\&|APP|FAC|RECV|RFAC|20260101||ADT^A01|C\x1c2|P|2.5\rPID|1\r", ""},
	} {
		a := l.Submit("test", []byte(tc.data))
		m, err := hl7.ParseMessage(a.ACK)
		if err != nil {
			t.Errorf("%s: the ACK %q does not parse: %v", tc.name, a.ACK, err)
			continue
		}
		if got := m.Get(hl7.MustParsePath("MSA.2")).String(); got != tc.controlID {
			t.Errorf("%s: MSA.2 %q, want %q", tc.name, got, tc.controlID)
		}
		if strings.ContainsAny(string(a.ACK), "\x0b\x1c") {
			t.Errorf("%s: the ACK holds a block character: %q", tc.name, a.ACK)
		}
	}
	a := l.Submit("test", []byte("MSH|^~\\&|APP|\x0bFAC|RECV|RFAC|20260101||ADT^A01|C-1|P|2.5\rPID|1\r"))
	m, _ := hl7.ParseMessage(a.ACK)
	if got := m.Get(hl7.MustParsePath("MSH.5")).String() + " " + m.Get(hl7.MustParsePath("MSH.6")).String(); got != "APP " {
		t.Errorf("MSH.5 and MSH.6 of the ACK: %q, want the clean sender and no facility", got)
	}
}
