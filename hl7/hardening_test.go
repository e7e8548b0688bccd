package hl7_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/assert"
	"github.com/assaykit/assay/hl7"
)

// flakyListener fails Accept with EMFILE, as a process out of file
// descriptors sees it: the first `first` calls, then every `every`-th.
type flakyListener struct {
	net.Listener
	first, every int32
	calls, fails atomic.Int32
}

func (f *flakyListener) Accept() (net.Conn, error) {
	n := f.calls.Add(1)
	if n <= f.first || f.every > 0 && n%f.every == 0 {
		f.fails.Add(1)
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: f.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return f.Listener.Accept()
}

// serveOn runs l on ln until the test ends.
func serveOn(t *testing.T, l *hl7.Listener, ln net.Listener) {
	t.Helper()
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
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
}

func loopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// TestListenerKeepsServingAfterEMFILE: accept failing for lack of file
// descriptors is waited out, not the end of the listener.
func TestListenerKeepsServingAfterEMFILE(t *testing.T) {
	ln := &flakyListener{Listener: loopback(t), first: 5}
	l := &hl7.Listener{}
	serveOn(t, l, ln)
	for i := range 3 {
		c := dial(t, ln.Addr().String())
		c.Write(frame(message(fmt.Sprintf("AFTER-EMFILE-%d", i))))
		if got := text(readACK(t, bufio.NewReader(c)), "MSA.1"); got != "AA" {
			t.Fatalf("ACK %q", got)
		}
	}
	if n := ln.fails.Load(); n != 5 {
		t.Fatalf("%d accept failures, want 5", n)
	}
	if got := strings.Join(controlIDs(t, l), " "); got != "AFTER-EMFILE-0 AFTER-EMFILE-1 AFTER-EMFILE-2" {
		t.Fatalf("captured %q", got)
	}
}

// TestListenerConnectionCap: past MaxConns, a connection waits until one
// closes.
func TestListenerConnectionCap(t *testing.T) {
	l := &hl7.Listener{MaxConns: 2}
	addr := serve(t, l)
	first := dial(t, addr)
	second := dial(t, addr)
	for _, c := range []net.Conn{first, second} {
		c.Write(frame(message("HELD")))
		readACK(t, bufio.NewReader(c))
	}
	third := dial(t, addr)
	third.Write(frame(message("WAITING")))
	r := bufio.NewReader(third)
	third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("a third connection was served past MaxConns 2")
	}
	first.Close()
	third.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got := text(readACK(t, r), "MSA.2"); got != "WAITING" {
		t.Fatalf("ACK for %q", got)
	}
}

// TestListenerIdleTimeout: a silent connection, and one that stops inside
// a frame, are closed after IdleTimeout; the cut frame is a reject.
func TestListenerIdleTimeout(t *testing.T) {
	l := &hl7.Listener{IdleTimeout: 150 * time.Millisecond}
	addr := serve(t, l)
	silent := dial(t, addr)
	half := dial(t, addr)
	half.Write([]byte("\x0bMSH|^~\\&|A"))
	start := time.Now()
	for _, c := range []net.Conn{silent, half} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("read after idle: %v, want EOF", err)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("closed after %v", d)
	}
	rj := mustRejects(t, l)
	if len(rj) != 1 || !errors.Is(rj[0].Err, hl7.ErrTruncatedFrame) || !strings.Contains(rj[0].Err.Error(), "idle") {
		t.Fatalf("rejects %v", rj)
	}
}

// TestListenerRejectListBounded: junk frames are counted, but the list of
// rejects stops growing at MaxRejectBytes.
func TestListenerRejectListBounded(t *testing.T) {
	l := &hl7.Listener{MaxRejectBytes: 32 << 10}
	c := dial(t, serve(t, l))
	const junk = 2000
	go func() {
		w := bufio.NewWriter(c)
		for range junk {
			w.Write([]byte("\x0bab\x1c"))
		}
		w.Flush()
	}()
	r := bufio.NewReader(c)
	for range junk {
		if got := text(readACK(t, r), "MSA.1"); got != "AR" {
			t.Fatalf("junk frame: %s", got)
		}
	}
	listed := mustRejects(t, l)
	if l.RejectCount() != junk || len(listed) == 0 || len(listed) > (32<<10)/160 {
		t.Fatalf("%d rejects counted, %d listed", l.RejectCount(), len(listed))
	}
	for i, rj := range listed {
		if rj.Index != i || rj.Code != "AR" {
			t.Fatalf("reject %d: %+v", i, rj)
		}
	}
	// The check's evidence lists the first 100 and says how many were not
	// listed.
	env := assert.NewEnv()
	hl7.Attach(env, l)
	a, err := assert.Decode([]byte(`{"assert":"hl7-structural"}`))
	if err != nil {
		t.Fatal(err)
	}
	res := assert.Run(context.Background(), a, env)
	ev := compactJSON(t, res.Evidence)
	if res.Status != assert.StatusFailed || strings.Count(ev, `"code":"AR"`) != 100 || !strings.HasSuffix(ev, `,"rejects_not_listed":1900}`) {
		t.Fatalf("%s %q %s", res.Status, res.Details, ev[max(0, len(ev)-200):])
	}
}

// TestListenerHeaderOnly: a bare MSH, or one without MSH.9 or MSH.10,
// cannot be acknowledged as a message: AR, not captured.
func TestListenerHeaderOnly(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	r := bufio.NewReader(c)
	for _, f := range []string{"MSH|^~\\&|", "MSH|^~\\&|\r", "MSH|^~\\&|A|B|C|D|20250101||ADT^A01||P|2.5\r", "MSH|^~\\&|A|B|C|D|20250101||^A01|NOTYPE|P|2.5\r"} {
		c.Write(frame(f))
		ack := readACK(t, r)
		if got := text(ack, "MSA.1"); got != "AR" {
			t.Errorf("%q: %s", f, got)
		}
		if got := text(ack, "ERR.3.1"); got != "101" {
			t.Errorf("%q: ERR.3 %q", f, ack.Get(hl7.MustParsePath("ERR.3")))
		}
	}
	if ids := controlIDs(t, l); len(ids) != 0 {
		t.Fatalf("captured %q", ids)
	}
	for _, rj := range mustRejects(t, l) {
		if !errors.Is(rj.Err, hl7.ErrMissingField) || rj.Code != "AR" {
			t.Errorf("reject %v", rj)
		}
	}
}

// TestListenAndServeReadyHonoursContext: nobody receiving from ready must
// not block ListenAndServe past its context.
func TestListenAndServeReadyHonoursContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- (&hl7.Listener{}).ListenAndServe(ctx, "127.0.0.1:0", make(chan net.Addr)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ListenAndServe blocked on ready past its context")
	}
}

// TestListenerBOM: a byte-order mark before MSH is skipped.
func TestListenerBOM(t *testing.T) {
	l := &hl7.Listener{}
	c := dial(t, serve(t, l))
	c.Write(frame("\xEF\xBB\xBF" + message("BOM-1")))
	if got := text(readACK(t, bufio.NewReader(c)), "MSA.1"); got != "AA" {
		t.Fatalf("ACK %s", got)
	}
}

// heapPeak samples the heap in use until stop is closed and returns the
// peak above the level when it started.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	go func() {
		var peak uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak {
				peak = ms.HeapInuse - base
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// bigFrame is a frame of about size bytes whose body does not parse (so
// the listener keeps nothing of it and all memory is in flight).
func bigFrame(size int) []byte {
	msg := message("BIG") + "NTE|1||" + strings.Repeat("x", size) + "\rzz|1\r"
	return frame(msg)
}

// TestListenerMemoryBound sends many large frames at once: the frames
// being received stay within MaxPendingBytes (refused with AR ErrBusy
// beyond it) instead of each connection holding its own.
func TestListenerMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 128 MiB over loopback")
	}
	senders, size, budget := 32, 4<<20, 8<<20
	l := &hl7.Listener{MaxFrameSize: size + 4096, MaxPendingBytes: int64(budget)}
	if os.Getenv("HL7_MLLP_FULL") != "" {
		// The case with the default limits: 50 concurrent frames
		// of 16 MiB (run with HL7_MLLP_FULL=1; it sends 800 MiB).
		senders, size, budget = 50, 16<<20-8192, hl7.DefaultMaxPendingBytes
		l = &hl7.Listener{}
	}
	addr := serve(t, l)
	data := bigFrame(size)
	stop := make(chan struct{})
	peakc := heapPeak(stop)
	var wg sync.WaitGroup
	var aa, ae, busy atomic.Int32
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(60 * time.Second))
			go c.Write(data)
			r := bufio.NewReader(c)
			r.ReadByte()
			body, err := r.ReadBytes(0x1c)
			if err != nil {
				t.Error(err)
				return
			}
			ack, err := hl7.ParseMessage(body[:len(body)-1])
			if err != nil {
				t.Error(err)
				return
			}
			switch {
			case text(ack, "MSA.1") == "AE":
				ae.Add(1)
			case strings.Contains(text(ack, "ERR.8"), "busy"):
				busy.Add(1)
			default:
				aa.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	peak := <-peakc
	t.Logf("%d senders of %d MiB frames, budget %d MiB: %d AE, %d AR busy; heap peak %.1f MiB above the start", senders, size>>20, budget>>20, ae.Load(), busy.Load(), float64(peak)/(1<<20))
	if ae.Load() == 0 || aa.Load() != 0 {
		t.Errorf("AE %d, AA %d: every frame that fits is read whole and refused for its body", ae.Load(), aa.Load())
	}
	// Without the budget each connection holds its frame (and more while
	// its buffer grows): 32 x 4 MiB is 128 MiB. With it, what is in flight
	// stays near the budget; garbage awaiting collection may double it,
	// and on a loaded machine the collector lags further (40.7 MiB was
	// seen against 3 budgets and 16 MiB): 4 budgets and 16 MiB still
	// tell a bounded listener from an unbounded one (128 MiB).
	if limit := uint64(4*budget + 16<<20); peak > limit {
		t.Errorf("heap peak %d MiB, want under %d MiB", peak>>20, limit>>20)
	}
}

// TestListenerUnderLoadWithFaults runs well-behaved senders beside junk,
// half frames, slow clients and large frames, on a listener whose accept
// fails with EMFILE every few calls and whose limits are small: every
// message acknowledged AA is captured exactly once, nothing is captured
// that was not acknowledged or sent, and memory stays under its bound.
func TestListenerUnderLoadWithFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	ln := &flakyListener{Listener: loopback(t), every: 7}
	const budget = 2 << 20
	l := &hl7.Listener{MaxConns: 24, IdleTimeout: time.Second, MaxFrameSize: 512 << 10, MaxPendingBytes: budget, MaxRejectBytes: 64 << 10}
	serveOn(t, l, ln)
	addr := ln.Addr().String()
	stop := make(chan struct{})
	peakc := heapPeak(stop)
	var (
		mu    sync.Mutex
		acked = map[string]int{}
		sent  = map[string]bool{}
		wg    sync.WaitGroup
	)
	connect := func() (net.Conn, *bufio.Reader, error) {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			return nil, nil, err
		}
		c.SetDeadline(time.Now().Add(60 * time.Second))
		return c, bufio.NewReader(c), nil
	}
	ackOf := func(r *bufio.Reader) (code, id string, err error) {
		if _, err = r.ReadBytes(0x0b); err != nil {
			return
		}
		body, err := r.ReadBytes(0x1c)
		if err != nil {
			return
		}
		m, err := hl7.ParseMessage(body[:len(body)-1])
		if err != nil {
			return
		}
		return text(m, "MSA.1"), text(m, "MSA.2"), nil
	}
	// Good senders: 6 x 150 messages, a new connection every 50; an AR
	// (busy) is sent again, a broken exchange is given up.
	for s := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c net.Conn
			var r *bufio.Reader
			for i := 0; i < 150; i++ {
				if c == nil || i%50 == 0 {
					if c != nil {
						c.Close()
					}
					var err error
					if c, r, err = connect(); err != nil {
						t.Error(err)
						return
					}
				}
				id := fmt.Sprintf("G%d-%03d", s, i)
				mu.Lock()
				sent[id] = true
				mu.Unlock()
				if _, err := c.Write(frame(message(id))); err != nil {
					c = nil
					continue
				}
				code, got, err := ackOf(r)
				if err != nil {
					c = nil
					continue
				}
				switch {
				case code == "AA" && got == id:
					mu.Lock()
					acked[id]++
					mu.Unlock()
				case code == "AR":
					i-- // busy: send it again
				default:
					t.Errorf("%s: %s for %q", id, code, got)
				}
			}
			c.Close()
		}()
	}
	// Slow senders: a frame a few bytes at a time.
	for s := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 {
				c, r, err := connect()
				if err != nil {
					t.Error(err)
					return
				}
				id := fmt.Sprintf("SLOW%d-%d", s, i)
				mu.Lock()
				sent[id] = true
				mu.Unlock()
				f := frame(message(id))
				for len(f) > 0 {
					n := min(7, len(f))
					c.Write(f[:n])
					f = f[n:]
					time.Sleep(time.Millisecond)
				}
				if code, got, err := ackOf(r); err == nil && code == "AA" && got == id {
					mu.Lock()
					acked[id]++
					mu.Unlock()
				}
				c.Close()
			}
		}()
	}
	// Junk, half frames and large frames.
	for range 2 {
		wg.Add(3)
		go func() { // junk frames and stray bytes, reading the ACKs
			defer wg.Done()
			c, r, err := connect()
			if err != nil {
				return
			}
			defer c.Close()
			go func() {
				for range 300 {
					if _, err := c.Write([]byte("noise\x0bjunk\x1c\r\x0b\x00\x01\x1c")); err != nil {
						return
					}
				}
			}()
			for range 600 {
				if _, _, err := ackOf(r); err != nil {
					return
				}
			}
		}()
		go func() { // half frames, cut off by closing
			defer wg.Done()
			for i := range 40 {
				c, _, err := connect()
				if err != nil {
					return
				}
				c.Write([]byte("\x0b" + message(fmt.Sprintf("HALF-%d", i))[:40]))
				c.Close()
			}
		}()
		go func() { // large frames that do not parse, against the budget
			defer wg.Done()
			data := bigFrame(400 << 10)
			for range 8 {
				c, r, err := connect()
				if err != nil {
					return
				}
				go c.Write(data)
				ackOf(r)
				c.Close()
			}
		}()
	}
	wg.Wait()
	close(stop)
	peak := <-peakc
	// Everything acknowledged is captured, once; nothing else is.
	captured := map[string]int{}
	for _, id := range controlIDs(t, l) {
		captured[id]++
	}
	for id, n := range captured {
		if n != 1 || !sent[id] {
			t.Errorf("%s captured %d times (sent: %v)", id, n, sent[id])
		}
	}
	for id := range acked {
		if captured[id] != 1 {
			t.Errorf("%s acknowledged but captured %d times", id, captured[id])
		}
	}
	if len(acked) < 6*150 {
		t.Errorf("only %d of %d good messages acknowledged", len(acked), 6*150)
	}
	t.Logf("%d acknowledged, %d captured, %d rejects (%d listed), %d accept failures; heap peak %.1f MiB above the start", len(acked), len(captured), l.RejectCount(), len(mustRejects(t, l)), ln.fails.Load(), float64(peak)/(1<<20))
	if limit := uint64(3*budget + 24*64<<10 + 16<<20); peak > limit {
		t.Errorf("heap peak %.1f MiB, want under %.1f MiB", float64(peak)/(1<<20), float64(limit)/(1<<20))
	}
}
