package clitask

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// DefaultTimeout bounds one command (a shell command, a setup command, a
// verify) unless an Executor says otherwise.
const DefaultTimeout = 30 * time.Second

// DefaultMaxOutput is how many bytes of each of stdout and stderr a command
// keeps unless an Executor says otherwise; the rest is counted and dropped.
const DefaultMaxOutput = 1 << 20

// TimeoutExitCode is the exit code recorded for a command killed at its
// timeout: 124, as timeout(1) reports, which agents and suite authors know.
const TimeoutExitCode = 124

// waitDelay is how long a command's output pipes stay open after its shell
// exited, for processes it left in the background that still hold them.
const waitDelay = time.Second

// ErrTimeout is wrapped by the error of a command killed at its timeout.
var ErrTimeout = errors.New("command timed out")

// Executor runs commands with sh -c. The zero value runs in the current
// folder with the process environment and the default timeout and caps.
type Executor struct {
	// Dir is the working directory.
	Dir string
	// Env is the complete environment; nil means the process environment
	// (an empty, non-nil slice means none at all). On Linux every command
	// also gets ASSAY_RUN_TAG, a random tag by which its leftovers are told
	// from processes assay did not start (see the package doc).
	Env []string
	// Timeout bounds each command; 0 means DefaultTimeout. At the timeout
	// the command's whole process group is killed.
	Timeout time.Duration
	// MaxOutput caps the bytes kept of each of stdout and stderr; 0 means
	// DefaultMaxOutput. A capped stream ends with a note saying how much was
	// dropped.
	MaxOutput int
}

// Run runs command with sh -c and waits for it, then ends every process it
// left running (see the package doc: its process group, and with a child
// subreaper every descendant, new sessions included). It returns the
// command's record; a stream cut at the cap ends with a note saying how
// much was dropped. The error is non-nil when the command could not start,
// timed out (wrapping ErrTimeout; the record then has TimeoutExitCode and
// what was captured), or ctx ended first (wrapping ctx's error). A command
// that ran and exited non-zero is not an error.
func (e Executor) Run(ctx context.Context, command string) (Command, error) {
	c, _, err := e.run(ctx, command, runSpec{tag: newTag(), cleanup: true, note: true})
	return c, err
}

// verify is Run for a verify command: the record holds only what was
// captured, without the note (Capped says the cap cut it).
func (e Executor) verify(ctx context.Context, command string) (Command, error) {
	c, _, err := e.run(ctx, command, runSpec{tag: newTag(), cleanup: true})
	return c, err
}

// runSpec says how to run one command.
type runSpec struct {
	// tag marks the command's processes (see tagEnv); "" for none.
	tag string
	// cleanup ends what the command left behind when it returns; a Shell
	// leaves it to Close.
	cleanup bool
	// note ends a capped stream with a note saying how much was dropped.
	note bool
}

// run runs command. It returns the process group id (0 when the command did
// not start), which a Shell keeps for Close where no subreaper exists.
func (e Executor) run(ctx context.Context, command string, spec runSpec) (Command, int, error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := e.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	rec := Command{Command: command}
	if err := ctx.Err(); err != nil {
		return rec, 0, fmt.Errorf("run %q: %w", command, err)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Dir = e.Dir
	cmd.Env = e.Env
	if spec.tag != "" && tagsWork {
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(slices.Clip(cmd.Env), tagEnv+"="+spec.tag)
	}
	stdout, stderr := &cappedBuffer{limit: limit}, &cappedBuffer{limit: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = waitDelay
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return rec, 0, fmt.Errorf("run %q in %s: %w", command, dirName(e.Dir), err)
	}
	pgid := cmd.Process.Pid
	// Where the platform allows, the shell's exit is awaited without
	// reaping it, so that its process group number cannot be reused while
	// what it left behind is ended.
	exited := awaitExit(pgid)
	if spec.cleanup && exited {
		endLeftovers(pgid, spec.tag)
	}
	waitErr := cmd.Wait()
	if spec.cleanup && !exited {
		killGroup(pgid)
	}
	rec.DurationMS = time.Since(start).Milliseconds()
	if spec.note {
		rec.Stdout, rec.Stderr = stdout.String(), stderr.String()
	} else {
		rec.Stdout, rec.Stderr = stdout.text(), stderr.text()
	}
	if stdout.dropped > 0 || stderr.dropped > 0 {
		rec.Capped = limit
	}
	rec.ExitCode = exitCode(cmd, waitErr)
	switch {
	case ctx.Err() != nil:
		return rec, pgid, fmt.Errorf("run %q: %w", command, ctx.Err())
	case runCtx.Err() != nil:
		rec.ExitCode = TimeoutExitCode
		rec.Stderr += "\n[killed after " + timeout.String() + ": timeout]"
		return rec, pgid, fmt.Errorf("run %q: killed after %s: %w", command, timeout, ErrTimeout)
	}
	return rec, pgid, nil
}

// tagEnv is the environment variable that marks the processes of one
// command (one Shell's, or one verify's) with a random tag, so that its
// leftovers can be told from processes assay did not start.
const tagEnv = "ASSAY_RUN_TAG"

// newTag returns a fresh random tag.
func newTag() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exitCode follows the shell's convention: a process killed by a signal
// exits 128+signal.
func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return -1
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	if sig, ok := signalOf(cmd.ProcessState); ok {
		return 128 + sig
	}
	if err != nil {
		return -1
	}
	return 0
}

func dirName(d string) string {
	if d == "" {
		return "the current folder"
	}
	return d
}

// cappedBuffer keeps the first limit bytes written to it and counts the rest,
// so that a command printing without end cannot exhaust memory. It never
// fails a write: the command must not see a broken pipe because of the cap.
type cappedBuffer struct {
	limit   int
	buf     []byte
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.limit - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	if room > 0 {
		b.buf = append(b.buf, p[:room]...)
	}
	b.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// text returns what was kept, cut before a rune the cap split.
func (b *cappedBuffer) text() string {
	if b.dropped == 0 {
		return string(b.buf)
	}
	return string(b.buf[:b.cut()])
}

// cut is where the kept text ends: before a rune the cap split, so that it
// stays valid UTF-8.
func (b *cappedBuffer) cut() int {
	cut := len(b.buf)
	for i := len(b.buf) - 1; i >= 0 && i >= len(b.buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b.buf[i]) {
			if !utf8.FullRune(b.buf[i:]) {
				cut = i
			}
			break
		}
	}
	return cut
}

// String returns what was kept, with a note of how much was dropped when
// the cap cut it.
func (b *cappedBuffer) String() string {
	if b.dropped == 0 {
		return string(b.buf)
	}
	cut := b.cut()
	dropped := b.dropped + int64(len(b.buf)-cut)
	return string(b.buf[:cut]) + "\n[output capped: " + strconv.FormatInt(dropped, 10) + " more bytes dropped]"
}
