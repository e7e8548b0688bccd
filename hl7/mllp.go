package hl7

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
)

// Limits a Listener applies unless told otherwise.
const (
	// DefaultMaxFrameSize is the largest MLLP frame accepted: 16 MiB.
	DefaultMaxFrameSize = 16 << 20
	// DefaultMaxConns is how many connections are served at once; more
	// wait in the kernel's backlog until one closes.
	DefaultMaxConns = 256
	// DefaultIdleTimeout is how long a connection may stay silent (or not
	// read its ACK) before it is closed.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxPendingBytes bounds the bytes of frames being received on
	// all connections together: 64 MiB.
	DefaultMaxPendingBytes = 64 << 20
	// DefaultMaxCaptureBytes bounds the bytes of the messages kept: 256 MiB.
	DefaultMaxCaptureBytes = 256 << 20
	// DefaultMaxRejectBytes bounds the memory the list of rejects may take:
	// 1 MiB. Past it, rejects are counted but not listed.
	DefaultMaxRejectBytes = 1 << 20
)

// Errors a Reject wraps besides a *ParseError.
var (
	// ErrFrameTooLarge: a frame longer than the listener's MaxFrameSize.
	ErrFrameTooLarge = errors.New("frame too large")
	// ErrBusy: the listener holds its limit of bytes (frames being received
	// on all connections, or messages kept); the frame was refused with AR
	// and may be sent again.
	ErrBusy = errors.New("listener busy")
	// ErrMissingField: a message whose MSH has no message type (MSH.9) or
	// no control id (MSH.10), such as a bare MSH|^~\&|; refused with AR.
	ErrMissingField = errors.New("required field missing")
	// ErrTruncatedFrame: the connection ended (or stayed idle past the
	// timeout) inside a frame.
	ErrTruncatedFrame = errors.New("connection closed inside a frame")
	// ErrOutsideFrame: bytes other than whitespace between frames.
	ErrOutsideFrame = errors.New("bytes outside a frame")
)

// Listener is an MLLP receiver that captures the messages an agent sends,
// as an interface engine would: it acknowledges each frame whose messages
// parse with MSA|AA|<MSH.10> and keeps them, in arrival order, for
// hl7-structural (it is a Source). A frame whose MSH parses but whose body
// does not gets AE, one whose header cannot be read (or lacks MSH.9 or
// MSH.10) AR, each with an ERR segment saying why; neither is kept, and
// both are recorded as Rejects, as are frames cut off by the connection
// closing, frames over MaxFrameSize, frames refused because the listener is
// at its memory limits, and bytes sent outside any frame.
//
// A message is stored before its ACK is written, so nothing acknowledged is
// lost. Memory is bounded as a whole: at most MaxConns connections (each
// with about 40 KiB of buffers), MaxPendingBytes of frames being received,
// MaxCaptureBytes of kept messages and MaxRejectBytes of reject records.
// Serve keeps serving when accept fails for lack of file descriptors.
//
// The zero Listener is ready to use; set its fields before Serve.
type Listener struct {
	// MaxFrameSize caps a frame's length (framing excluded); a longer
	// frame is refused with AR and discarded. 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// MaxConns caps the connections served at once. 0 means
	// DefaultMaxConns.
	MaxConns int
	// IdleTimeout closes a connection that sends nothing (or does not
	// read its ACK) for that long. 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxPendingBytes caps the bytes held for frames being received, all
	// connections together; a frame that would pass it is refused with AR
	// (ErrBusy). 0 means DefaultMaxPendingBytes.
	MaxPendingBytes int64
	// MaxCaptureBytes caps the bytes of the messages kept; a frame that
	// would pass it is refused with AR (ErrBusy). 0 means
	// DefaultMaxCaptureBytes.
	MaxCaptureBytes int64
	// MaxRejectBytes caps the memory of the reject list; past it rejects
	// are counted (RejectCount) but not listed. 0 means
	// DefaultMaxRejectBytes.
	MaxRejectBytes int
	// Now gives the ACK's timestamp (MSH.7); nil means time.Now.
	Now func() time.Time
	// Admit, when not nil, is asked before the messages of an input are
	// kept, after the listener's own limits, with an estimate of the
	// memory they will take (the input's bytes and its segment table): an
	// error refuses the input with AR, the error's text in ERR.8, as
	// MaxCaptureBytes does. A sandbox charges a shared memory budget here.
	Admit func(bytes int64) error
	// Answered, when not nil, is called once for every input the listener
	// acknowledges (a frame, or a message given to Submit), kept or
	// refused, in the order they are kept and refused, before the ACK is
	// sent. It is called with the listener's lock held, so that its calls
	// follow the order of Messages and Rejects: it must not call the
	// listener's methods. Inputs that get no ACK (a frame cut off, bytes
	// outside a frame) go to Unanswered instead.
	Answered func(Answer)
	// Unanswered, when not nil, is called once for every input refused
	// without an ACK (a frame cut off by the connection closing or going
	// idle, bytes outside any frame), with its Reject record, under the
	// same lock and in the same order as Answered.
	Unanswered func(Reject)

	mu          sync.Mutex
	msgs        []*Message
	captured    int64 // bytes of msgs
	inputs      int   // frames and stray runs received, for Reject.Index
	rejects     []Reject
	rejectBytes int
	rejectCount int
	ackID       atomic.Uint64

	// The budget of pending bytes: how many are held, by how many frames,
	// how many of those wait for more, and a channel closed when some are
	// given back.
	bmu            sync.Mutex
	pending        int64
	holders        int
	waitingHolders int
	changed        chan struct{}
}

// An Answer is how a Listener answered one input it acknowledged: a frame
// received over MLLP, or a message given to Submit.
type Answer struct {
	// ACK is the acknowledgment sent, without MLLP framing.
	ACK []byte
	// Code is the ACK's MSA.1: AA when the input's messages were kept, AE
	// or AR when it was refused.
	Code string
	// ControlID and MessageType are the first message's MSH.10 and
	// MSH.9.1 as written, "" when its header could not be read.
	ControlID, MessageType string
	// Submitted is true for a message given to Submit, false for a frame
	// received over MLLP.
	Submitted bool
	// Err says why the input was refused (what a Reject records); nil for
	// AA.
	Err error
}

// Submit handles data as one frame that arrived by another transport (an
// HTTP request, say), by the rules an MLLP frame follows: its messages are
// kept when they parse and carry MSH.9 and MSH.10, within the listener's
// limits and Admit, and are otherwise refused with AE or AR and recorded as
// a Reject from from; Answered hears of it as of a frame. The returned
// Answer carries the ACK to give the sender. data over MaxFrameSize is
// refused with AR (ErrFrameTooLarge); data is copied when kept, so the
// caller may reuse it.
func (l *Listener) Submit(from string, data []byte) Answer {
	limit := positive(l.MaxFrameSize, DefaultMaxFrameSize)
	if len(data) > limit {
		prefix := data[:min(len(data), 4096)]
		return l.refuse(from, prefix, len(data), "AR", fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrFrameTooLarge, len(data), limit), true)
	}
	return l.accept(from, data, true)
}

// Messages returns the messages captured so far, in arrival order.
func (l *Listener) Messages(context.Context) ([]*Message, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Message(nil), l.msgs...), nil
}

// Rejects returns what the listener refused so far, in order, as far as
// MaxRejectBytes lets it keep them.
func (l *Listener) Rejects(context.Context) ([]Reject, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Reject(nil), l.rejects...), nil
}

// RejectCount returns how many frames (and runs of stray bytes) were
// refused, listed or not.
func (l *Listener) RejectCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rejectCount
}

// Serve accepts MLLP connections on ln and handles each on its own
// goroutine until ctx is done or ln fails. When accept fails for a reason
// that passes (no file descriptors left, a connection aborted before it was
// accepted, a timeout), Serve waits a little, longer each time up to a
// second, and accepts again. On return ln and every connection Serve
// accepted are closed (an idle client does not hold it up) and their
// handlers have finished. It returns nil when ctx ended it, else the
// accept error.
func (l *Listener) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg     sync.WaitGroup
		connMu sync.Mutex
		mine   = map[net.Conn]struct{}{}
		slots  = make(chan struct{}, positive(l.MaxConns, DefaultMaxConns))
	)
	stopped := make(chan struct{})
	go func() {
		<-ctx.Done()
		ln.Close()
		connMu.Lock()
		for c := range mine {
			c.Close()
		}
		connMu.Unlock()
		close(stopped)
	}()
	var err error
	delay := time.Duration(0)
accept:
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			break accept
		}
		var c net.Conn
		c, err = ln.Accept()
		if err != nil {
			<-slots
			if ctx.Err() != nil {
				err = nil
				break
			}
			if !transient(err) {
				break
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(delay):
				continue
			case <-ctx.Done():
				err = nil
				break accept
			}
		}
		delay = 0
		connMu.Lock()
		if ctx.Err() != nil {
			connMu.Unlock()
			c.Close()
			<-slots
			continue
		}
		mine[c] = struct{}{}
		connMu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.handle(ctx, c)
			connMu.Lock()
			delete(mine, c)
			connMu.Unlock()
			c.Close()
			<-slots
		}()
	}
	cancel()
	<-stopped
	wg.Wait()
	return err
}

// transient reports whether an accept error passes with time: a timeout,
// no file descriptors or buffers left, or a connection that was aborted
// before it could be accepted.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range [...]error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func positive[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// ListenAndServe listens on the TCP address addr (such as 127.0.0.1:2575)
// and serves until ctx is done. ready, when not nil, receives the bound
// address once the listener is accepting (useful with port 0); when ctx
// ends before anyone receives it, ListenAndServe closes the listener and
// returns nil.
func (l *Listener) ListenAndServe(ctx context.Context, addr string, ready chan<- net.Addr) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	if ready != nil {
		select {
		case ready <- ln.Addr():
		case <-ctx.Done():
			ln.Close()
			return nil
		}
	}
	return l.Serve(ctx, ln)
}

// reject records r, giving it the next input index; past MaxRejectBytes it
// is only counted.
func (l *Listener) reject(r Reject) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r = l.rejectLocked(r)
	if l.Unanswered != nil {
		l.Unanswered(r)
	}
}

// rejectLocked is reject with l.mu held, for an input answered or not; it
// returns the record with its index.
func (l *Listener) rejectLocked(r Reject) Reject {
	r.Index = l.inputs
	l.inputs++
	l.rejectCount++
	// What a record holds: the struct, its strings and its error.
	cost := 160 + len(r.From) + len(r.ControlID)
	if pe, ok := r.Err.(*ParseError); ok {
		cost += len(pe.Name) + 64
	}
	if l.rejectBytes+cost > positive(l.MaxRejectBytes, DefaultMaxRejectBytes) {
		return r
	}
	l.rejectBytes += cost
	l.rejects = append(l.rejects, r)
	return r
}

// idleConn keeps a deadline ahead of every read and write, so that a
// connection that stays silent, or does not read its ACKs, is closed after
// the idle timeout. Moving a deadline costs a timer update, so it is moved
// only when a quarter of the timeout has passed since it was last set: a
// connection is closed after between 3/4 of the timeout and all of it.
type idleConn struct {
	net.Conn
	idle          time.Duration
	read, written time.Time // when each deadline was last set
}

func (c *idleConn) Read(p []byte) (int, error) {
	if now := time.Now(); now.Sub(c.read) > c.idle/4 {
		c.read = now
		c.Conn.SetReadDeadline(now.Add(c.idle))
	}
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	if now := time.Now(); now.Sub(c.written) > c.idle/4 {
		c.written = now
		c.Conn.SetWriteDeadline(now.Add(c.idle))
	}
	return c.Conn.Write(p)
}

// frameBuffer holds one connection's frame, its capacity reserved from
// the listener's budget of pending bytes.
type frameBuffer struct {
	l    *Listener
	done <-chan struct{}
	idle time.Duration
	buf  []byte
	held int64
}

// keepSmall is the capacity a connection keeps between frames; a larger
// buffer is given back after its frame.
const keepSmall = 64 << 10

// add appends chunk, growing the buffer within the budget; false when the
// budget does not allow it.
func (f *frameBuffer) add(chunk []byte, limit int) bool {
	need := len(f.buf) + len(chunk)
	if need > cap(f.buf) {
		newCap := min(max(2*cap(f.buf), need, 4<<10), limit+1)
		if newCap < need || !f.l.reserve(f, int64(newCap)-f.held) {
			return false
		}
		nb := make([]byte, len(f.buf), newCap)
		copy(nb, f.buf)
		f.buf, f.held = nb, int64(newCap)
	}
	f.buf = append(f.buf, chunk...)
	return true
}

// reset empties the buffer for the next frame, giving a large one back.
func (f *frameBuffer) reset() {
	if cap(f.buf) > keepSmall {
		f.release()
		return
	}
	f.buf = f.buf[:0]
}

// refused keeps at most a 4 KiB prefix of the frame (to answer with its
// control id) and gives the budget back.
func (f *frameBuffer) refused() {
	prefix := append([]byte(nil), f.buf[:min(len(f.buf), 4096)]...)
	f.release()
	f.buf = prefix
}

func (f *frameBuffer) release() {
	f.l.unreserve(f.held)
	f.buf, f.held = nil, 0
}

// reserve takes n more bytes of the pending budget for f, waiting while
// other frames that hold budget are being received (the sender waits on
// TCP flow control meanwhile). It gives up, so that f's frame is refused,
// when n cannot fit even alone, when every other frame that holds budget
// is waiting too (nobody would ever release any), after the idle timeout,
// or when the listener stops.
func (l *Listener) reserve(f *frameBuffer, n int64) bool {
	limit := positive(l.MaxPendingBytes, DefaultMaxPendingBytes)
	l.bmu.Lock()
	for {
		if l.pending+n <= limit {
			if f.held == 0 {
				l.holders++
			}
			l.pending += n
			l.bmu.Unlock()
			return true
		}
		holder := 0
		if f.held > 0 {
			holder = 1
		}
		if f.held+n > limit || l.holders-holder-l.waitingHolders == 0 {
			l.bmu.Unlock()
			return false
		}
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		ch := l.changed
		l.waitingHolders += holder
		l.bmu.Unlock()
		t := time.NewTimer(f.idle)
		select {
		case <-ch:
		case <-f.done:
		case <-t.C:
		}
		t.Stop()
		l.bmu.Lock()
		l.waitingHolders -= holder
		select {
		case <-ch:
		default: // stopped or timed out
			l.bmu.Unlock()
			return false
		}
	}
}

// unreserve gives n bytes of the pending budget back and wakes the frames
// waiting for it.
func (l *Listener) unreserve(n int64) {
	if n == 0 {
		return
	}
	l.bmu.Lock()
	l.pending -= n
	l.holders--
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	l.bmu.Unlock()
}

// handle reads frames from one connection until it ends.
func (l *Listener) handle(ctx context.Context, conn net.Conn) {
	remote := conn.RemoteAddr().String()
	c := &idleConn{Conn: conn, idle: positive(l.IdleTimeout, DefaultIdleTimeout)}
	r := bufio.NewReaderSize(c, 32<<10)
	w := bufio.NewWriterSize(c, 4<<10)
	limit := positive(l.MaxFrameSize, DefaultMaxFrameSize)
	frame := &frameBuffer{l: l, done: ctx.Done(), idle: c.idle}
	defer frame.release()
	for {
		// Look for the start block, skipping whitespace; anything else
		// before it is refused as one run.
		stray := 0
		for {
			b, err := r.ReadByte()
			if err != nil {
				if stray > 0 {
					l.reject(Reject{From: remote, Size: stray, Err: fmt.Errorf("%w: %d bytes before the connection closed", ErrOutsideFrame, stray)})
				}
				return
			}
			if b == mllpStart {
				break
			}
			if b != '\r' && b != '\n' && b != ' ' && b != '\t' {
				stray++
			}
		}
		if stray > 0 {
			l.reject(Reject{From: remote, Size: stray, Err: fmt.Errorf("%w: %d bytes before a start block", ErrOutsideFrame, stray)})
		}
		// Read up to the end block. Past the limit, or when the budget is
		// spent, only a prefix is kept, to answer with the message's
		// control id.
		frame.reset()
		size := 0
		var refused error
		for {
			chunk, err := r.ReadSlice(mllpEnd)
			size += len(chunk)
			if refused == nil {
				body := chunk
				if err == nil {
					body = chunk[:len(chunk)-1] // the end block
				}
				switch {
				case size-1 > limit || err != nil && size > limit:
					refused = fmt.Errorf("%w: more than the limit of %d bytes", ErrFrameTooLarge, limit)
				case !frame.add(body, limit):
					refused = fmt.Errorf("%w: the listener holds its limit of %d bytes of frames being received; send again later", ErrBusy, positive(l.MaxPendingBytes, DefaultMaxPendingBytes))
				}
				if refused != nil {
					keep := min(len(body), max(0, 4096-len(frame.buf)))
					frame.buf = append(frame.buf, body[:keep]...)
					frame.refused()
				}
			}
			if err == nil {
				break
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				l.reject(Reject{From: remote, Size: size, Err: fmt.Errorf("%w: idle for %v after %d bytes", ErrTruncatedFrame, c.idle, size)})
			case size > 0 || err != io.EOF:
				l.reject(Reject{From: remote, Size: size, Err: fmt.Errorf("%w after %d bytes", ErrTruncatedFrame, size)})
			default:
				l.reject(Reject{From: remote, Err: fmt.Errorf("%w: a start block and nothing after it", ErrTruncatedFrame)})
			}
			return
		}
		size-- // the end block; the CR after it is skipped with the
		// whitespace before the next start block, not waited for here
		var ack []byte
		if refused != nil {
			if errors.Is(refused, ErrFrameTooLarge) {
				refused = fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrFrameTooLarge, size, limit)
			}
			ack = l.refuse(remote, frame.buf, size, "AR", refused, false).ACK
		} else {
			ack = l.accept(remote, frame.buf, false).ACK
		}
		w.WriteByte(mllpStart)
		w.Write(ack)
		w.WriteByte(mllpEnd)
		w.WriteByte('\r')
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// accept parses one frame, keeps its messages when they parse and carry a
// message type and a control id, and returns the answer to send.
// submitted says the frame came through Submit.
func (l *Listener) accept(remote string, frame []byte, submitted bool) Answer {
	b, err := Parse(frame)
	if err != nil {
		return l.refuse(remote, frame, len(frame), "", err, submitted)
	}
	for _, m := range b.messages {
		if err := requiredFields(m); err != nil {
			return l.refuse(remote, frame, len(frame), "AR", err, submitted)
		}
	}
	l.mu.Lock()
	if l.captured+int64(len(frame)) > positive(l.MaxCaptureBytes, DefaultMaxCaptureBytes) {
		l.mu.Unlock()
		return l.refuse(remote, frame, len(frame), "AR", fmt.Errorf("%w: the listener holds its limit of %d bytes of captured messages", ErrBusy, positive(l.MaxCaptureBytes, DefaultMaxCaptureBytes)), submitted)
	}
	if l.Admit != nil {
		if err := l.Admit(keptBytes(b)); err != nil {
			l.mu.Unlock()
			return l.refuse(remote, frame, len(frame), "AR", fmt.Errorf("%w: %w", ErrBusy, err), submitted)
		}
	}
	// Keep a right-sized copy: the frame buffer is the connection's.
	b.rebase(bytes.Clone(frame))
	l.captured += int64(len(frame))
	l.inputs++
	for i := range b.messages {
		l.msgs = append(l.msgs, &b.messages[i])
	}
	m := &b.messages[0]
	msh, d := b.data[m.segs[0].start:m.segs[0].end], m.segs[0].d
	a := Answer{
		ACK:         l.ack(d, msh, "AA", nil),
		Code:        "AA",
		ControlID:   string(fieldOf(msh, d.Field, 10)),
		MessageType: string(firstComponent(fieldOf(msh, d.Field, 9), d)),
		Submitted:   submitted,
	}
	if l.Answered != nil {
		l.Answered(a)
	}
	l.mu.Unlock()
	return a
}

// keptBytes estimates the memory a kept batch takes: its bytes, its
// segment table and its messages.
func keptBytes(b *Batch) int64 {
	const segmentSize, messageSize = 24, 64
	return int64(len(b.data)) + segmentSize*int64(len(b.segs)) + messageSize*int64(len(b.messages))
}

// requiredFields checks that a message's MSH names its type (MSH.9.1) and
// carries a control id (MSH.10): without them it cannot be acknowledged or
// told apart.
func requiredFields(m Message) error {
	if len(m.Get(pathMessageType).Bytes()) == 0 {
		return fmt.Errorf("%w: MSH.9 (message type) is empty", ErrMissingField)
	}
	if len(m.Get(pathControlID).Bytes()) == 0 {
		return fmt.Errorf("%w: MSH.10 (message control id) is empty", ErrMissingField)
	}
	return nil
}

var pathMessageType = Path{Segment: "MSH", Field: 9, Component: 1}

// refuse records a refused frame and returns its answer: code when given,
// else AE when its MSH can be read and AR when it cannot.
func (l *Listener) refuse(remote string, frame []byte, size int, code string, err error, submitted bool) Answer {
	msh, d, ok := findMSH(frame)
	if code == "" {
		code = "AR"
		if ok {
			code = "AE"
		}
	}
	a := Answer{Code: code, Submitted: submitted, Err: err}
	if msh != nil {
		a.ControlID = string(fieldOf(msh, d.Field, 10))
		a.MessageType = string(firstComponent(fieldOf(msh, d.Field, 9), d))
	}
	a.ACK = l.ack(d, msh, code, err)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rejectLocked(Reject{From: remote, Code: code, ControlID: a.ControlID, Size: size, Err: err})
	if l.Answered != nil {
		l.Answered(a)
	}
	return a
}

// firstComponent returns the first component of a field's first
// repetition, as encoded.
func firstComponent(field []byte, d Delimiters) []byte {
	field, _ = nth(field, d.Repetition, 1)
	field, _ = nth(field, d.Component, 1)
	return field
}

// findMSH returns the first MSH segment of a frame and its delimiters. ok
// is false when there is none or its delimiters cannot be read; msh is then
// still the segment when it starts with MSH and a field separator (so its
// control id can be echoed), and d falls back to DefaultDelimiters for
// what could not be read.
func findMSH(frame []byte) (msh []byte, d Delimiters, ok bool) {
	d = DefaultDelimiters
	for len(frame) > 0 {
		end := bytes.IndexAny(frame, "\r\n")
		line := frame
		if end >= 0 {
			line, frame = frame[:end], frame[end+1:]
		} else {
			frame = nil
		}
		line = bytes.TrimLeft(line, "\x0b\x1c")
		if !bytes.HasPrefix(line, []byte("MSH")) {
			continue
		}
		got, _, err := readDelimiters(line)
		if err != nil {
			// Echo the sender's field separator, unless it is one of
			// the default encoding characters the ACK falls back to:
			// the ACK would not parse.
			if len(line) > 3 && !bad(line[3]) && bytes.IndexByte([]byte(DefaultDelimiters.EncodingCharacters()), line[3]) < 0 {
				d.Field = line[3]
				return line, d, false
			}
			return nil, d, false
		}
		return line, got, true
	}
	return nil, d, false
}

// fieldOf returns field n of a header segment as MSH numbers them (n >= 3),
// as encoded.
func fieldOf(msh []byte, sep byte, n int) []byte {
	f, _ := nth(msh[3:], sep, n)
	return f
}

// ack builds an acknowledgment of the message whose MSH is msh (nil when
// none could be read), in its delimiters: MSH with sender and receiver
// swapped, MSA with code and the control id, and for a refusal an ERR
// saying why.
func (l *Listener) ack(d Delimiters, msh []byte, code string, cause error) []byte {
	f := d.Field
	// A field is echoed only when it holds no control character: an MLLP
	// block character or a segment break in it would end the ACK's frame
	// or segment early (the fields are split on the field separator only).
	field := func(n int) []byte {
		if msh == nil {
			return nil
		}
		v := fieldOf(msh, f, n)
		if bytes.ContainsFunc(v, unicode.IsControl) {
			return nil
		}
		return v
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	b := make([]byte, 0, 192)
	b = append(b, "MSH"...)
	b = append(b, f)
	b = append(b, d.EncodingCharacters()...)
	for _, n := range [...]int{5, 6, 3, 4} {
		b = append(b, f)
		b = append(b, field(n)...)
	}
	b = append(b, f)
	b = now().AppendFormat(b, "20060102150405")
	b = append(b, f, f)
	b = append(b, "ACK"...)
	if trigger, ok := nth(field(9), d.Repetition, 1); ok && d.Component != 0 {
		if t, ok := nth(trigger, d.Component, 2); ok && len(t) > 0 {
			b = append(b, d.Component)
			b = append(b, t...)
			b = append(b, d.Component)
			b = append(b, "ACK"...)
		}
	}
	b = append(b, f)
	b = append(b, "ACK"...)
	b = strconv.AppendUint(b, l.ackID.Add(1), 10)
	b = append(b, f)
	if p := field(11); len(p) > 0 {
		b = append(b, p...)
	} else {
		b = append(b, 'P')
	}
	b = append(b, f)
	if v := field(12); len(v) > 0 {
		b = append(b, v...)
	} else {
		b = append(b, "2.5"...)
	}
	b = append(b, "\rMSA"...)
	b = append(b, f)
	b = append(b, code...)
	b = append(b, f)
	b = append(b, field(10)...)
	b = append(b, '\r')
	if cause != nil {
		// ERR-3 is the HL7 error code (table 0357), ERR-4 the severity,
		// ERR-8 the text for a person.
		b = append(b, "ERR"...)
		b = append(b, f, f, f)
		number, text := "207", "Application internal error"
		switch {
		case errors.Is(cause, ErrMissingField):
			number, text = "101", "Required field missing"
		case errors.Is(cause, ErrStructure), errors.Is(cause, ErrNoMessage):
			number, text = "100", "Segment sequence error"
		case errors.Is(cause, ErrHeader):
			number, text = "102", "Data type error"
		}
		b = append(b, number...)
		if d.Component != 0 {
			b = append(b, d.Component)
			b = appendEscaped(b, text, d)
			b = append(b, d.Component)
			b = append(b, "HL70357"...)
		}
		b = append(b, f)
		b = append(b, 'E')
		b = append(b, f, f, f, f)
		b = appendEscaped(b, cause.Error(), d)
		b = append(b, '\r')
	}
	return b
}

// appendEscaped appends text with every delimiter escaped (or, when the
// message declares no escape character, replaced by a space) and control
// characters replaced by spaces.
func appendEscaped(dst []byte, text string, d Delimiters) []byte {
	for i := 0; i < len(text); i++ {
		c := text[i]
		var code byte
		switch {
		case c < 0x20 || c == 0x7f:
			dst = append(dst, ' ')
			continue
		case c == d.Field:
			code = 'F'
		case c == d.Component:
			code = 'S'
		case c == d.Subcomponent:
			code = 'T'
		case c == d.Repetition:
			code = 'R'
		case c == d.Escape:
			code = 'E'
		case c == d.Truncation && c != 0:
			code = 'P'
		default:
			dst = append(dst, c)
			continue
		}
		if d.Escape == 0 {
			dst = append(dst, ' ')
		} else {
			dst = append(dst, d.Escape, code, d.Escape)
		}
	}
	return dst
}
