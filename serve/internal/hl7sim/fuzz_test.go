package hl7sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assaykit/assay/hl7"
)

// FuzzOutbound feeds POST hl7/outbound's reading of a body, then the
// listener, anything: nothing panics, a body is either refused with an
// HTTP status or gets an ACK, and every ACK is itself a message whose
// MSA.1 is the answer's code.
func FuzzOutbound(f *testing.F) {
	files, _ := filepath.Glob("testdata/seed/hl7/inbox/*.hl7")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // folder.hl7 is a folder
		}
		f.Add("text/plain", data)
		f.Add("", data)
	}
	f.Add("application/json", []byte(`{"payload": "MSH|^~\\&|A|B|C|D|20260101||ADT^A01|1|P|2.5\rPID|1\r"}`))
	f.Add("application/json", []byte(`{"payload": 1}`))
	f.Add("x-application/hl7-v2+er7", []byte("MSH#^~\\&#A#B#C#D#2026##ORM^O01#7#P#2.5\r"))
	f.Add("text/plain; charset=\"", []byte("MSH|"))
	f.Add("", []byte("MSH|^~\\&|\rPID|\\E\\|\r"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		msg, status, problem := payload(contentType, body)
		if problem != "" {
			if status < 400 || status > 499 {
				t.Fatalf("a refusal with status %d", status)
			}
			return
		}
		l := &hl7.Listener{}
		a := l.Submit("fuzz", msg)
		ack, err := hl7.ParseMessage(a.ACK)
		if err != nil {
			t.Fatalf("the ACK of %q does not parse: %v\n%q", msg, err, a.ACK)
		}
		if got := ack.Get(hl7.MustParsePath("MSA.1")).String(); got != a.Code || (a.Code != "AA" && a.Code != "AE" && a.Code != "AR") {
			t.Fatalf("ACK MSA.1 %q, answer code %q", got, a.Code)
		}
		msgs, _ := l.Messages(t.Context())
		if (a.Code == "AA") != (len(msgs) > 0) {
			t.Fatalf("code %s with %d messages kept", a.Code, len(msgs))
		}
	})
}
