package fhir

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// flakyListener fails Accept with EMFILE a few times before each real
// accept, as a process out of file descriptors does.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(1)%3 != 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

func TestServerKeepsServingOnEMFILE(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(NewStore())
	go srv.Serve(&flakyListener{Listener: ln})
	defer srv.Close()
	for range 3 {
		resp, err := http.Get("http://" + ln.Addr().String() + "/metadata")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func TestServerConnectionCap(t *testing.T) {
	srv := &Server{Handler: NewHandler(NewStore()), MaxConns: 1, IdleTimeout: time.Second}
	base, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// One connection holds the only slot.
	hold, err := net.Dial("tcp", base[len("http://"):])
	if err != nil {
		t.Fatal(err)
	}
	get := func(timeout time.Duration) error {
		c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get(base + "/metadata")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	time.Sleep(50 * time.Millisecond)
	if err := get(300 * time.Millisecond); err == nil {
		t.Error("a second connection was served past the cap")
	}
	hold.Close()
	if err := get(5 * time.Second); err != nil {
		t.Errorf("after the slot was freed: %v", err)
	}
	if err := srv.Shutdown(context.Background()); err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Error(err)
	}
}
