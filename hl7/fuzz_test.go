package hl7

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func addSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/*/*.hl7")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("MSH|^~\\&#|\\P\\|\\X41\\|\\X4\\|\\E\\T\\E\\|\\.br\\\r"))
	f.Add([]byte("FHS|^~\\&\rBHS|^~\\&\rMSH|^~\\&\rBTS|1\rFTS|1"))
	// The readings of the hardening issue: a byte-order mark, a lone LF
	// in a CR segment, leading whitespace, frames that choose their own
	// terminators, a bare header, junk frames.
	f.Add([]byte("\xef\xbb\xbfMSH|^~\\&|A|B|C|D|1||ADT^A01|1|P|2.5\r"))
	f.Add([]byte("MSH|^~\\&|A\rNTE|1||a\nb\r\n\n \tPID|1\n\r"))
	f.Add([]byte("\x0bMSH|^~\\&|A\rNTE|a\nb\r\x1c\r\x0bMSH|^~\\&|B\nPID|1\n\x1c\r"))
	f.Add([]byte("MSH|^~\\&|"))
	f.Add([]byte("\x0bab\x1c\x0b\x00\x01\x1c\rnoise\x0b\xef\xbb\xbf"))
	f.Add([]byte("MSH|^~\\&|A\x0bPID|1\x1cOBX|2\r"))
}

// FuzzParse checks that no input makes the parser or a path read panic,
// that Select reads what Parse does, and that every parsed message
// re-parses on its own to the same segments.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	paths := make([]Path, len(selectPaths))
	for i, s := range selectPaths {
		paths[i] = MustParsePath(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSelect(t, "input", data, paths)
		b, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			if pe.Location.Segment > 0 && (pe.Offset < 0 || pe.Offset > len(data) || pe.Location.Line < 1) {
				t.Fatalf("bad location %+v", pe)
			}
			_ = err.Error()
			return
		}
		if b.Len() == 0 {
			t.Fatal("parsed with no message")
		}
		names := map[string]bool{}
		for s := range b.Segments() {
			names[s.Name()] = true
		}
		var buf []byte
		for name := range names {
			for field := 0; field <= 6; field++ {
				for comp := 0; comp <= 3; comp++ {
					for sub := 0; sub <= 2; sub++ {
						if comp == 0 && sub > 0 || field == 0 && comp > 0 {
							continue
						}
						p := Path{Segment: name, Occurrence: Any, Field: field, Repetition: Any, Component: comp, Subcomponent: sub}
						for _, v := range b.GetAll(p, nil) {
							buf = v.AppendText(buf[:0])
							if s := v.String(); s != string(buf) {
								t.Fatalf("%s: String %q != AppendText %q", p, s, buf)
							}
							v.IsNull()
						}
					}
				}
			}
		}
		for _, m := range b.Messages() {
			if crOnlyBefore(b, m) || bytes.IndexByte(m.Bytes(), mllpEnd) >= 0 {
				// Terminators are chosen per input (per frame, when
				// framed): a message cut from an input that has CR, whose
				// own bytes hold none, reads its lone LFs as line breaks on
				// its own; and one whose bytes cross an end block spans
				// frames that may each choose differently, which its
				// bytes alone no longer say.
				continue
			}
			again, err := ParseMessage(m.Bytes())
			if err != nil {
				t.Fatalf("message %q does not re-parse: %v", m.Bytes(), err)
			}
			if len(again.segs) != len(m.segs) || again.ControlID() != m.ControlID() {
				t.Fatalf("message %q re-parses to %d segments (was %d)", m.Bytes(), len(again.segs), len(m.segs))
			}
		}
	})
}

// FuzzParsePath checks that no path text makes ParsePath or a read panic,
// and that a parsed path's canonical form parses back to it.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"PID", "PID.3[2].1", "OBX[*].5", "PID-5-1", "MSH.9.1", "PID.3[*].4.2", "ZZ1[3]-2[4]-1-1", "pid.5", "PID..1", "PID.3[", "PID.0", "PID.99999999999"} {
		f.Add(s)
	}
	data, err := os.ReadFile("testdata/own/adt_a01_crlf.hl7")
	if err != nil {
		f.Fatal(err)
	}
	b, err := Parse(data)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) {
				t.Fatalf("error %v", err)
			}
			return
		}
		back, err := ParsePath(p.String())
		if err != nil || back != normal(p) {
			t.Fatalf("%q -> %q -> %+v, %v", s, p.String(), back, err)
		}
		for _, v := range b.GetAll(p, nil) {
			_ = v.String()
		}
	})
}

// normal drops an explicit 1 for the occurrence or repetition, which
// String omits.
func normal(p Path) Path {
	if p.Occurrence == 1 {
		p.Occurrence = 0
	}
	if p.Repetition == 1 {
		p.Repetition = 0
	}
	return p
}

// crOnlyBefore reports whether m was read with CR terminators while the
// first frame region of its own bytes holds no CR.
func crOnlyBefore(b *Batch, m *Message) bool {
	start := int(m.segs[0].start)
	rs := max(0, bytes.LastIndexByte(b.data[:start], mllpEnd))
	p := parser{data: b.data, nextCR: -1, nextLF: -1, nextEB: -1, noCR: !bytes.Contains(b.data, []byte{'\r'})}
	if _, cr := p.region(rs); !cr {
		return false
	}
	data := m.Bytes()
	if i := bytes.IndexByte(data, mllpEnd); i >= 0 {
		data = data[:i]
	}
	return !bytes.Contains(data, []byte{'\r'})
}

// FuzzListenerStream feeds a byte stream to the MLLP listener's connection
// handler: nothing may panic or hang, every frame gets at most one ACK,
// and every captured message has a control id.
func FuzzListenerStream(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("\x0bMSH|^~\\&|A|B|C|D|1||ADT^A01|C1|P|2.5\r\x1c\r\x0bMSH|^~\\&|\x1c\x0bab\x1cjunk\x0bMSH|^~\\&|A"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := &Listener{MaxFrameSize: 4096, MaxPendingBytes: 8192, MaxRejectBytes: 4096, IdleTimeout: 5 * time.Second}
		server, client := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			l.handle(context.Background(), server)
			server.Close()
		}()
		acks := make(chan int, 1)
		go func() {
			all, _ := io.ReadAll(client)
			acks <- bytes.Count(all, []byte{mllpEnd})
		}()
		client.Write(data)
		client.Close()
		<-done
		n := <-acks
		if frames := bytes.Count(data, []byte{mllpStart}); n > frames {
			t.Fatalf("%d ACKs for %d start blocks", n, frames)
		}
		msgs, _ := l.Messages(context.Background())
		for _, m := range msgs {
			if m.ControlID() == "" || m.Get(pathMessageType).String() == "" {
				t.Fatalf("captured a message without a control id: %q", m.Bytes())
			}
		}
	})
}
