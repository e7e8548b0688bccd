package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/assaykit/assay/internal/chat/chattest"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair (as openpty(3) does: /dev/ptmx,
// unlocked, and its /dev/pts/N).
func openPTY() (controller, terminal *os.File, err error) {
	controller, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(controller.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		controller.Close()
		return nil, nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		controller.Close()
		return nil, nil, fmt.Errorf("naming the pseudo-terminal: %w", err)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		controller.Close()
		return nil, nil, err
	}
	return controller, terminal, nil
}

// onPTY runs the command in-process with stderr on a real terminal (a
// pseudo-terminal) and stdout in a buffer, and returns what each got, the
// exit code and how long the command took. The environment is the test's
// but for ASSAY_ variables, which only env sets.
func onPTY(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	controller, terminal, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal to test on: %v", err)
	}
	defer controller.Close()
	read := make(chan []byte)
	go func() {
		// The terminal's closing ends the read (EIO on Linux).
		data, _ := io.ReadAll(controller)
		read <- data
	}()
	var out bytes.Buffer
	start := time.Now()
	code = Main(context.Background(), args, Config{Name: "assay", Stdout: &out, Stderr: terminal, Stdin: strings.NewReader(""),
		Getenv: func(k string) string {
			if strings.HasPrefix(k, "ASSAY_") {
				return env[k]
			}
			return os.Getenv(k)
		}})
	took = time.Since(start)
	if err := terminal.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Fatal(err)
	}
	select {
	case data := <-read:
		// The terminal turns \n into \r\n.
		return out.String(), strings.ReplaceAll(string(data), "\r\n", "\n"), code, took
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	return
}

// On a real terminal, eval --runs, check and run show a progress line on
// stderr that is cleared at the end and never reaches stdout; eval's
// redraws at most ten times a second although every run's text is
// written between two redraws (the audit saw one redraw per run).
func TestProgressOnATerminal(t *testing.T) {
	const n = 400
	dir := t.TempDir()
	writeFile(t, dir, "criteria.json", `[{"label": "paid", "assertion": {"assert": "portal-state-match", "correlate_by": {"resource": "claims", "key": "id", "value": "C-1"}}}]`)
	for i := range n {
		writeFile(t, dir, fmt.Sprintf("runs/run-%03d/sandbox/portal/state.json", i), `{"claims": [{"id": "C-1", "status": "paid"}]}`)
	}
	t.Run("eval --runs", func(t *testing.T) {
		stdout, stderr, code, took := onPTY(t, nil, "eval", "--runs", dir+"/runs", "--criteria", dir+"/criteria.json", "--no-color")
		if code != exitOK || strings.Count(stdout, "== run-") != n {
			t.Fatalf("code %d, stdout:\n%.500s\nstderr %q", code, stdout, stderr)
		}
		if strings.Contains(stdout, "runs judged") || strings.Contains(stdout, "\x1b") {
			t.Errorf("progress reached stdout")
		}
		draws := strings.Count(stderr, " runs judged")
		if !strings.Contains(stderr, fmt.Sprintf("/%d runs judged", n)) || !strings.HasSuffix(stderr, "\r\x1b[K") {
			t.Errorf("no progress line, or not cleared at the end: %q", stderr)
		}
		// At most one redraw per 100 ms, beside the first and the last.
		if most := int(took/minRedraw) + 2; draws > most {
			t.Errorf("%d redraws in %v, want at most %d", draws, took, most)
		}
		t.Logf("%d runs in %v: %d redraws", n, took, draws)
	})
	t.Run("check", func(t *testing.T) {
		stdout, stderr, code, _ := onPTY(t, nil, "check", "--suite", "../examples/clibench/cli-bench.yaml",
			"--trace", "../examples/clibench/trace.json", "--no-verify", "--no-color")
		if code != exitOK || !strings.Contains(stdout, "pass rates:") {
			t.Fatalf("code %d, stdout:\n%s\nstderr %q", code, stdout, stderr)
		}
		if strings.Contains(stdout, "runs judged") || strings.Contains(stdout, "\x1b") {
			t.Errorf("progress reached stdout")
		}
		if !strings.Contains(stderr, "/10 runs judged") || !strings.HasSuffix(stderr, "\r\x1b[K") {
			t.Errorf("no progress line, or not cleared at the end: %q", stderr)
		}
	})
	t.Run("run", func(t *testing.T) {
		llm := chattest.NewServer(chattest.WithLatency(20 * time.Millisecond))
		defer llm.Close()
		suite := writeFile(t, dir, "cli-bench.yaml", runSuite)
		stdout, stderr, code, _ := onPTY(t, map[string]string{"ASSAY_LLM_BASE_URL": llm.URL},
			"run", "--suite", suite, "--model", "fake/solver", "--no-color")
		if code != exitFail || !strings.Contains(stdout, "pass rates:") {
			t.Fatalf("code %d, want 1 (busy is never done), stdout:\n%s\nstderr %q", code, stdout, stderr)
		}
		if strings.Contains(stdout, "runs done") || strings.Contains(stdout, "\x1b") {
			t.Errorf("progress reached stdout")
		}
		if !strings.Contains(stderr, "runs done") || !strings.HasSuffix(stderr, "\r\x1b[K") {
			t.Errorf("no progress line, or not cleared at the end: %q", stderr)
		}
	})
}
