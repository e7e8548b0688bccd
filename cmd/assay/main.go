// Command assay evaluates assertions against the evidence an AI agent's run
// left behind: criteria against a sandbox snapshot (eval), cli-bench tasks
// against recorded traces (check), and the files both are written in
// (validate, schema); it also reads HL7 and X12 paths and calls the criteria
// API. Run "assay --help" for the subcommands, or see package command, which
// this program wraps.
//
// An interrupt (Ctrl-C) stops the work in hand: assay kills what it started,
// reports what it has and exits 1. It is caught from the moment the command
// first waits on something (a server, a process it runs) or has run for
// armDelay; a command that finishes sooner, reading local files only, ends
// at once on an interrupt, as a program without a handler does.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assaykit/assay/clitask"
	"github.com/assaykit/assay/command"
)

// armDelay is how long a command runs before interrupts are caught even if
// it has not waited on anything. Catching them costs two threads at start-up
// (os/signal keeps one to receive signals, plus the runtime's template
// thread), about as long as a whole small evaluation: not worth paying for
// a command that is over before a person could press a key.
const armDelay = 50 * time.Millisecond

func main() {
	// verify runs arbitrary commands: as a child subreaper the command
	// adopts their orphans (setsid included) and ends them before a
	// result is returned, instead of signalling group numbers that may
	// have been reused.
	if err := clitask.BecomeSubreaper(); err != nil && runtime.GOOS == "linux" {
		fmt.Fprintf(os.Stderr, "assay: warning: %v\n", err)
	}
	os.Exit(command.Main(newInterruptContext(armDelay), os.Args[1:], command.Config{}))
}

// interruptContext is a context cancelled by os.Interrupt once armed: by the
// first call of Done (everything that waits, a network request or a child
// process, asks for Done first; work that only polls Err does not), or
// after a delay.
type interruptContext struct {
	once        sync.Once
	armed       atomic.Bool
	done        chan struct{}
	interrupted atomic.Bool
}

func newInterruptContext(delay time.Duration) *interruptContext {
	c := &interruptContext{done: make(chan struct{})}
	time.AfterFunc(delay, c.arm)
	return c
}

// arm starts catching os.Interrupt; the first one cancels c.
func (c *interruptContext) arm() {
	c.once.Do(func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			<-sig
			c.interrupted.Store(true)
			close(c.done)
		}()
		c.armed.Store(true)
	})
}

func (c *interruptContext) Done() <-chan struct{} {
	c.arm()
	return c.done
}

func (c *interruptContext) Err() error {
	if c.interrupted.Load() {
		return context.Canceled
	}
	return nil
}

func (*interruptContext) Deadline() (time.Time, bool) { return time.Time{}, false }

func (*interruptContext) Value(any) any { return nil }

func (*interruptContext) String() string { return "assay.interruptContext" }
