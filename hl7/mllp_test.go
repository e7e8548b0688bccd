package hl7_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

// serve runs l on a loopback port until the test ends and returns its
// address. Cleanup cancels it and fails the test if Serve does not return.
func serve(t *testing.T, l *hl7.Listener) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}

func mustRejects(t *testing.T, l *hl7.Listener) []hl7.Reject {
	t.Helper()
	r, err := l.Rejects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func frame(msg string) []byte { return []byte("\x0b" + msg + "\x1c\r") }

func message(id string, extra ...string) string {
	segs := append([]string{`MSH|^~\&|SENDER|SFAC|RECEIVER|RFAC|20250101120000||ADT^A08^ADT_A01|` + id + `|P|2.5.1`, "PID|1||" + id + "^^^H^MR||DOE^JANE"}, extra...)
	return strings.Join(segs, "\r") + "\r"
}

// readACK reads one MLLP frame and parses it.
func readACK(t *testing.T, r *bufio.Reader) *hl7.Message {
	t.Helper()
	if b, err := r.ReadByte(); err != nil || b != 0x0b {
		t.Fatalf("ACK start: %q %v", b, err)
	}
	body, err := r.ReadBytes(0x1c)
	if err != nil {
		t.Fatalf("ACK body: %v", err)
	}
	if b, err := r.ReadByte(); err != nil || b != '\r' {
		t.Fatalf("ACK end: %q %v", b, err)
	}
	m, err := hl7.ParseMessage(body[:len(body)-1])
	if err != nil {
		t.Fatalf("ACK %q: %v", body, err)
	}
	return m
}

func text(m *hl7.Message, path string) string { return m.Get(hl7.MustParsePath(path)).String() }

func controlIDs(t *testing.T, src hl7.Source) []string {
	t.Helper()
	msgs, err := src.Messages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ControlID()
	}
	return ids
}

func TestListenerAcknowledges(t *testing.T) {
	l := &hl7.Listener{Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	msg := message("MSG-1", "PV1|1|O")
	c.Write(frame(msg))
	ack := readACK(t, r)
	want := map[string]string{
		"MSH.3": "RECEIVER", "MSH.4": "RFAC", "MSH.5": "SENDER", "MSH.6": "SFAC", "MSH.7": "20250102030405",
		"MSH.9": "ACK^A08^ACK", "MSH.11": "P", "MSH.12": "2.5.1", "MSA.1": "AA", "MSA.2": "MSG-1",
	}
	for path, v := range want {
		if got := text(ack, path); got != v {
			t.Errorf("ACK %s = %q, want %q", path, got, v)
		}
	}
	if ack.Get(hl7.MustParsePath("ERR")).Exists() {
		t.Errorf("AA with an ERR segment")
	}
	msgs, _ := l.Messages(context.Background())
	if len(msgs) != 1 || string(msgs[0].Bytes()) != msg {
		t.Fatalf("captured %v", msgs)
	}
	if n := l.RejectCount(); n != 0 {
		t.Errorf("%d rejects", n)
	}
}

func TestListenerCustomDelimiters(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	c.Write(frame("MSH#$%!@#APP#FAC#RIS#RFAC#20250101##ORM$O01#CUST-9#T#2.3\rPID#1##X\r"))
	ack := readACK(t, bufio.NewReader(c))
	if d := ack.Delimiters(); d.Field != '#' || d.Component != '$' {
		t.Errorf("ACK delimiters %+v", d)
	}
	if text(ack, "MSA.2") != "CUST-9" || text(ack, "MSH.9.2") != "O01" || text(ack, "MSH.11") != "T" {
		t.Errorf("ACK %q", ack.Bytes())
	}
}

func TestListenerBackToBackAndSplitFrames(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	// Three frames in one write.
	var burst []byte
	for i := 1; i <= 3; i++ {
		burst = append(burst, frame(message(fmt.Sprintf("B-%d", i)))...)
	}
	c.Write(burst)
	for i := 1; i <= 3; i++ {
		if got := text(readACK(t, r), "MSA.2"); got != fmt.Sprintf("B-%d", i) {
			t.Fatalf("ACK %d for %q", i, got)
		}
	}
	// One frame a few bytes at a time, split between FS and CR too, then
	// the next frame's first bytes in the same write as the previous CR.
	f1, f2 := frame(message("S-1")), frame(message("S-2"))
	stream := append(append([]byte{}, f1...), f2...)
	cuts := []int{1, 2, 7, 50, len(f1) - 2, len(f1) - 1, len(f1) + 3, len(stream)}
	prev := 0
	for _, cut := range cuts {
		if _, err := c.Write(stream[prev:cut]); err != nil {
			t.Fatal(err)
		}
		prev = cut
		time.Sleep(5 * time.Millisecond)
	}
	for _, id := range []string{"S-1", "S-2"} {
		if got := text(readACK(t, r), "MSA.2"); got != id {
			t.Fatalf("ACK for %q, want %q", got, id)
		}
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "B-1 B-2 B-3 S-1 S-2" {
		t.Fatalf("captured %s", got)
	}
}

func TestListenerConcurrentConnections(t *testing.T) {
	l := &hl7.Listener{}
	addr := serve(t, l)
	const conns, each = 20, 25
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			r := bufio.NewReader(c)
			for j := range each {
				id := fmt.Sprintf("C%02d-%03d", i, j)
				if _, err := c.Write(frame(message(id))); err != nil {
					errs <- err
					return
				}
				if _, err := r.ReadByte(); err != nil {
					errs <- err
					return
				}
				body, err := r.ReadBytes(0x1c)
				if err != nil {
					errs <- err
					return
				}
				r.ReadByte()
				ack, err := hl7.ParseMessage(body[:len(body)-1])
				if err != nil {
					errs <- err
					return
				}
				if text(ack, "MSA.1") != "AA" || text(ack, "MSA.2") != id {
					errs <- fmt.Errorf("ACK %q for %s", ack.Bytes(), id)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Everything acknowledged was captured, each message once.
	seen := map[string]bool{}
	for _, id := range controlIDs(t, l) {
		if seen[id] {
			t.Fatalf("%s captured twice", id)
		}
		seen[id] = true
	}
	if len(seen) != conns*each {
		t.Fatalf("captured %d messages, want %d", len(seen), conns*each)
	}
}

func TestListenerRefusals(t *testing.T) {
	l := &hl7.Listener{MaxFrameSize: 1024}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	tests := []struct {
		name, frame string
		code, id    string
		is          error
		errText     string
	}{
		{"body does not parse", message("BAD-BODY", "pv1|1"), "AE", "BAD-BODY", hl7.ErrStructure, `segment ID "pv1"`},
		{"segment before MSH", "EVN|A01\r" + message("BAD-ORDER"), "AE", "BAD-ORDER", hl7.ErrStructure, "EVN before the first header"},
		{"encoding characters repeated", "MSH|^^\\&|A|B|C|D|1||ADT^A01|BAD-ENC|P|2.5\r", "AR", "BAD-ENC", hl7.ErrHeader, "appears twice"},
		{"no MSH", "PID|1\r", "AR", "", hl7.ErrStructure, "PID before"},
		{"binary", "\x00\x01\x02\xff\xfe", "AR", "", hl7.ErrStructure, "segment 1"},
		{"too large", message("BIG", "NTE|1||"+strings.Repeat("x", 2000)), "AR", "BIG", hl7.ErrFrameTooLarge, "more than the limit of 1024"},
	}
	var errTexts []string
	for _, tt := range tests {
		c.Write(frame(tt.frame))
		ack := readACK(t, r)
		errTexts = append(errTexts, text(ack, "ERR.8"))
		if got := text(ack, "MSA.1"); got != tt.code {
			t.Errorf("%s: MSA.1 %q, want %q", tt.name, got, tt.code)
		}
		if got := text(ack, "MSA.2"); got != tt.id {
			t.Errorf("%s: MSA.2 %q, want %q", tt.name, got, tt.id)
		}
		if got := text(ack, "ERR.4"); got != "E" {
			t.Errorf("%s: ERR.4 %q", tt.name, got)
		}
		if got := text(ack, "ERR.3.3"); got != "HL70357" {
			t.Errorf("%s: ERR.3 %q", tt.name, ack.Get(hl7.MustParsePath("ERR.3")))
		}
		if got := text(ack, "ERR.8"); !strings.Contains(got, tt.errText) {
			t.Errorf("%s: ERR.8 %q does not say %q", tt.name, got, tt.errText)
		}
	}
	// The connection still works after every refusal.
	c.Write(frame(message("GOOD")))
	if got := text(readACK(t, r), "MSA.1"); got != "AA" {
		t.Fatalf("after refusals: %s", got)
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "GOOD" {
		t.Fatalf("captured %q", got)
	}
	rejects := mustRejects(t, l)
	if len(rejects) != len(tests) || l.RejectCount() != len(tests) {
		t.Fatalf("%d rejects: %v", len(rejects), rejects)
	}
	for i, tt := range tests {
		rj := rejects[i]
		if rj.Code != tt.code || rj.ControlID != tt.id || !errors.Is(rj.Err, tt.is) || !strings.HasPrefix(rj.From, "127.0.0.1:") {
			t.Errorf("%s: reject %+v", tt.name, rj)
		}
		// The ERR text decodes back to the reason, delimiters and all.
		if rj.Err.Error() != errTexts[i] {
			t.Errorf("%s: ERR.8 %q, reject says %q", tt.name, errTexts[i], rj.Err)
		}
		if !strings.Contains(rj.String(), tt.code) {
			t.Errorf("%s: %s", tt.name, rj)
		}
	}
	if rejects[5].Size != len(tests[5].frame) {
		t.Errorf("too-large reject size %d, want %d", rejects[5].Size, len(tests[5].frame))
	}
}

func TestListenerStrayBytesAndTruncation(t *testing.T) {
	var mu sync.Mutex
	var unanswered []hl7.Reject
	l := &hl7.Listener{Unanswered: func(r hl7.Reject) {
		mu.Lock()
		defer mu.Unlock()
		unanswered = append(unanswered, r)
	}}
	addr := serve(t, l)
	// Stray bytes before a frame are reported; whitespace is not.
	c := dial(t, addr)
	c.Write([]byte("\r\nhello"))
	c.Write(frame(message("AFTER-NOISE")))
	if got := text(readACK(t, bufio.NewReader(c)), "MSA.2"); got != "AFTER-NOISE" {
		t.Fatalf("ACK %q", got)
	}
	// A frame cut off by the sender closing.
	c2 := dial(t, addr)
	c2.Write([]byte("\x0b" + message("CUT")[:30]))
	c2.Close()
	// A start block and nothing else.
	c3 := dial(t, addr)
	c3.Write([]byte{0x0b})
	c3.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, c3)
	// Trailing junk then close.
	c4 := dial(t, addr)
	c4.Write([]byte("junk"))
	c4.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, c4)
	deadline := time.Now().Add(5 * time.Second)
	for l.RejectCount() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	rejects := mustRejects(t, l)
	if len(rejects) != 4 {
		t.Fatalf("rejects: %v", rejects)
	}
	kinds := map[error]int{}
	for _, r := range rejects {
		for _, e := range []error{hl7.ErrOutsideFrame, hl7.ErrTruncatedFrame} {
			if errors.Is(r.Err, e) {
				kinds[e]++
			}
		}
		if r.Code != "" {
			t.Errorf("reject with an ACK code: %v", r)
		}
	}
	if kinds[hl7.ErrOutsideFrame] != 2 || kinds[hl7.ErrTruncatedFrame] != 2 {
		t.Fatalf("rejects: %v", rejects)
	}
	if rejects[0].Size != 5 {
		t.Errorf("stray bytes counted %d, want 5", rejects[0].Size)
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "AFTER-NOISE" {
		t.Fatalf("captured %q", got)
	}
	// Unanswered heard each of them, the frame with an ACK not.
	mu.Lock()
	defer mu.Unlock()
	if !slices.EqualFunc(unanswered, rejects, func(a, b hl7.Reject) bool { return a.Index == b.Index && a.Err.Error() == b.Err.Error() }) {
		t.Errorf("Unanswered heard %v, the rejects are %v", unanswered, rejects)
	}
}

func TestListenerBatchFrame(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	batch := "BHS|^~\\&|S|F|R|F|20250101\r" + message("IN-BATCH-1") + message("IN-BATCH-2") + "BTS|2\r"
	c.Write(frame(batch))
	if got := text(readACK(t, bufio.NewReader(c)), "MSA.2"); got != "IN-BATCH-1" {
		t.Fatalf("ACK for %q", got)
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "IN-BATCH-1 IN-BATCH-2" {
		t.Fatalf("captured %q", got)
	}
}

func TestListenerShutdownWithIdleClients(t *testing.T) {
	l := &hl7.Listener{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Serve(ctx, ln) }()
	idle := dial(t, ln.Addr().String())
	half := dial(t, ln.Addr().String())
	half.Write([]byte("\x0bMSH|^~\\&|A"))
	busy := dial(t, ln.Addr().String())
	busy.Write(frame(message("BEFORE-STOP")))
	readACK(t, bufio.NewReader(busy))
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve blocked by idle clients")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v", d)
	}
	// The idle client sees its connection closed.
	idle.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err == nil {
		t.Error("idle connection still open")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Error("still accepting after shutdown")
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "BEFORE-STOP" {
		t.Fatalf("captured %q", got)
	}
}

func TestListenerServeReturnsAcceptError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	l := &hl7.Listener{}
	go func() { done <- l.Serve(context.Background(), ln) }()
	time.Sleep(10 * time.Millisecond)
	ln.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
}

func TestListenAndServe(t *testing.T) {
	l := &hl7.Listener{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- l.ListenAndServe(ctx, "127.0.0.1:0", ready) }()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	c := dial(t, addr.String())
	c.Write(frame(message("LAS-1")))
	readACK(t, bufio.NewReader(c))
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := l.ListenAndServe(context.Background(), "256.0.0.1:x", nil); err == nil {
		t.Fatal("bad address accepted")
	}
}

// TestListenerAsSource runs hl7-structural against what a listener
// captured, with its rejects in the evidence.
func TestListenerAsSource(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	c.Write(frame(message("OK-1")))
	readACK(t, r)
	c.Write(frame(message("BAD-1", "oops")))
	readACK(t, r)
	env := assert.NewEnv()
	hl7.Attach(env, l)
	a, err := registry(t).Decode([]byte(`{"assert":"hl7-structural","correlate_by":{"trigger_event":"A08"},"fields":[{"path":"PID.5.2","expected":"JANE"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res := a.Check(context.Background(), env)
	from := c.LocalAddr().String()
	want := `{"matched":"OK-1","field_results":[{"path":"PID.5.2","expected":"JANE","actual":"JANE","passed":true}],"candidates":1,"message_index":0,"captured":1,` +
		`"rejected":[{"index":1,"from":"` + from + `","code":"AE","control_id":"BAD-1","reason":"hl7: 3:1: segment 3: malformed segment structure: segment ID \"oop\" is not three upper-case letters or digits"}]}`
	if res.Status != assert.StatusPassed || compactJSON(t, res.Evidence) != want {
		t.Fatalf("%s %q %s", res.Status, res.Details, compactJSON(t, res.Evidence))
	}
}

func TestRejectString(t *testing.T) {
	r := hl7.Reject{From: "127.0.0.1:9", Size: 3, Err: hl7.ErrOutsideFrame}
	if got := r.String(); got != "no ACK from 127.0.0.1:9 (3 bytes): bytes outside a frame" {
		t.Fatal(got)
	}
	if !bytes.Contains([]byte(hl7.Reject{Code: "AE", Err: hl7.ErrNoMessage}.String()), []byte("AE from")) {
		t.Fatal("code not shown")
	}
}
