package netlimit_test

import (
	"errors"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/netlimit"
)

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// accept runs Accept in the background and hands its result over.
func accept(l net.Listener) <-chan net.Conn {
	out := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			c = nil
		}
		out <- c
	}()
	return out
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// At the cap Accept waits, the new connection queued, not closed; when a
// connection closes (twice, even), one slot comes back and the queued one
// is accepted.
func TestCapQueues(t *testing.T) {
	l := netlimit.New(listen(t), 2)
	defer l.Close()
	var held []net.Conn
	for range 2 {
		dial(t, l.Addr().String())
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	queued := dial(t, l.Addr().String())
	third := accept(l)
	select {
	case c := <-third:
		t.Fatalf("accepted %v over the cap", c)
	case <-time.After(100 * time.Millisecond):
	}
	// The queued client is still connected: a write reaches the kernel.
	if _, err := queued.Write([]byte("hello")); err != nil {
		t.Fatalf("the queued connection was closed: %v", err)
	}
	held[0].Close()
	held[0].Close() // a second Close gives back nothing more
	var c net.Conn
	select {
	case c = <-third:
	case <-time.After(5 * time.Second):
		t.Fatal("a freed slot did not let the queued connection in")
	}
	buf := make([]byte, 5)
	if _, err := c.Read(buf); err != nil || string(buf) != "hello" {
		t.Fatalf("the queued connection read %q, %v", buf, err)
	}
	dial(t, l.Addr().String())
	fourth := accept(l)
	select {
	case c := <-fourth:
		t.Fatalf("a double Close freed two slots: accepted %v", c)
	case <-time.After(100 * time.Millisecond):
	}
	c.Close()
	if <-fourth == nil {
		t.Fatal("no fourth connection")
	}
}

// Close ends an Accept that waits for a slot.
func TestCloseWhileWaiting(t *testing.T) {
	l := netlimit.New(listen(t), 1)
	dial(t, l.Addr().String())
	if _, err := l.Accept(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("got %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waits after Close")
	}
}

// failing fails its first accepts with err.
type failing struct {
	net.Listener
	fails atomic.Int32
	err   error
}

func (f *failing) Accept() (net.Conn, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, f.err
	}
	return f.Listener.Accept()
}

// Running out of descriptors passes: Accept retries it. Any other error is
// returned, and its slot is given back.
func TestAcceptErrors(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	f := &failing{Listener: listen(t), err: emfile}
	f.fails.Store(3)
	l := netlimit.New(f, 1)
	defer l.Close()
	dial(t, l.Addr().String())
	c, err := l.Accept()
	if err != nil || f.fails.Load() >= 0 {
		t.Fatalf("EMFILE: %v, %d failures left", err, f.fails.Load())
	}
	c.Close()
	f.err = errors.New("broken")
	f.fails.Store(1)
	if _, err := l.Accept(); err == nil || err.Error() != "broken" {
		t.Fatalf("got %v, want the listener's error", err)
	}
	dial(t, l.Addr().String())
	select {
	case c := <-accept(l):
		if c == nil {
			t.Fatal("no connection after an error")
		}
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("an error kept its slot")
	}
	for _, err := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if !netlimit.Transient(emfileLike(err)) {
			t.Errorf("%v is not transient", err)
		}
	}
	if netlimit.Transient(net.ErrClosed) || netlimit.Transient(errors.New("broken")) {
		t.Error("a lasting error is transient")
	}
}

func emfileLike(errno error) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}
