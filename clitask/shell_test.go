package clitask_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assaykit/assay/clitask"
)

// assertDead waits up to 3 s for the process whose pid is in file to be
// gone (or a zombie: a container's init may not reap it).
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the command did not record its background pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("background process %d outlived its process group", pid)
}

func TestExecutorRun(t *testing.T) {
	dir := t.TempDir()
	e := clitask.Executor{Dir: dir, Env: []string{"GREETING=hi there", "PATH=" + os.Getenv("PATH")}}
	c, err := e.Run(context.Background(), `printf '%s' "$GREETING"; pwd >&2; exit 7`)
	if err != nil {
		t.Fatal(err)
	}
	if c.ExitCode != 7 || c.Stdout != "hi there" || strings.TrimSpace(c.Stderr) != dir || c.Command == "" {
		t.Fatalf("got %+v", c)
	}
	// A signal death reads as the shell reports it: 128 + signal.
	c, err = e.Run(context.Background(), `kill -TERM $$`)
	if err != nil || c.ExitCode != 143 {
		t.Fatalf("got %+v, %v", c, err)
	}
	// A missing working directory is an error, not a recorded command.
	_, err = clitask.Executor{Dir: filepath.Join(dir, "nope")}.Run(context.Background(), "true")
	if err == nil {
		t.Fatal("no error for a missing working directory")
	}
}

func TestExecutorTimeout(t *testing.T) {
	dir := t.TempDir()
	e := clitask.Executor{Dir: dir, Timeout: 200 * time.Millisecond}
	start := time.Now()
	c, err := e.Run(context.Background(), "echo started; sleep 30 & echo $! > bg.pid; sleep 30")
	if !errors.Is(err, clitask.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("timeout did not stop the command")
	}
	if c.ExitCode != clitask.TimeoutExitCode || c.Stdout != "started\n" || !strings.Contains(c.Stderr, "timeout") {
		t.Fatalf("got %+v", c)
	}
	assertDead(t, filepath.Join(dir, "bg.pid"))
}

func TestExecutorCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := clitask.Executor{Dir: t.TempDir()}.Run(ctx, "sleep 30")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, clitask.ErrTimeout) {
		t.Fatalf("err = %v, want the context's error", err)
	}
}

func TestExecutorCapsOutput(t *testing.T) {
	e := clitask.Executor{Dir: t.TempDir(), MaxOutput: 1000}
	// 3 bytes per rune, so the cap falls inside one.
	c, err := e.Run(context.Background(), `i=0; while [ $i -lt 2000 ]; do printf '€'; i=$((i+1)); done; echo done >&2`)
	if err != nil {
		t.Fatal(err)
	}
	kept, note, ok := strings.Cut(c.Stdout, "\n[output capped: ")
	if !ok || len(kept) != 999 || !strings.HasPrefix(note, "5001 more bytes dropped]") {
		t.Fatalf("stdout kept %d bytes, note %q", len(kept), note)
	}
	if c.Stderr != "done\n" {
		t.Fatalf("stderr %q", c.Stderr)
	}
}

func TestShellRecordsConcurrently(t *testing.T) {
	dir := t.TempDir()
	sh := clitask.NewShell(clitask.Executor{Dir: dir})
	defer sh.Close()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := sh.Run(context.Background(), fmt.Sprintf("echo %d > f%d.txt", i, i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	tr, err := sh.Trace(context.Background())
	if err != nil || len(tr.Commands) != 8 || tr.Workdir != dir {
		t.Fatalf("trace %+v, %v", tr, err)
	}
	// Verify is not recorded.
	if c, err := sh.Verify(context.Background(), "cat f3.txt"); err != nil || c.Stdout != "3\n" {
		t.Fatalf("verify: %+v, %v", c, err)
	}
	if tr, _ := sh.Trace(context.Background()); len(tr.Commands) != 8 {
		t.Fatalf("verify was recorded: %d commands", len(tr.Commands))
	}
}

func TestShellTimeoutIsRecorded(t *testing.T) {
	sh := clitask.NewShell(clitask.Executor{Dir: t.TempDir(), Timeout: 100 * time.Millisecond})
	defer sh.Close()
	_, err := sh.Run(context.Background(), "sleep 5")
	if !errors.Is(err, clitask.ErrTimeout) {
		t.Fatalf("err = %v", err)
	}
	tr, _ := sh.Trace(context.Background())
	if len(tr.Commands) != 1 || tr.Commands[0].ExitCode != clitask.TimeoutExitCode {
		t.Fatalf("trace %+v", tr)
	}
}

func TestShellCloseKillsBackground(t *testing.T) {
	dir := t.TempDir()
	sh := clitask.NewShell(clitask.Executor{Dir: dir})
	// The background process is detached from the output pipes, so the
	// command returns; it lives on until Close.
	if _, err := sh.Run(context.Background(), "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid"); err != nil {
		t.Fatal(err)
	}
	pid, _ := os.ReadFile(filepath.Join(dir, "bg.pid"))
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); err != nil {
		t.Fatalf("the background process is already gone: %v", err)
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	assertDead(t, filepath.Join(dir, "bg.pid"))
	if _, err := sh.Run(context.Background(), "true"); !errors.Is(err, clitask.ErrShellClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
}

// The shell is a Source: its recording is what the checks read, and verify
// runs with its environment.
func TestShellIsSource(t *testing.T) {
	dir := t.TempDir()
	sh := clitask.NewShell(clitask.Executor{Dir: dir, Env: append(os.Environ(), "TOKEN=abc")}, clitask.VerifyTimeout(time.Second))
	defer sh.Close()
	for _, c := range []string{"mkdir -p out", "echo $TOKEN > out/token", "cat out/token"} {
		if _, err := sh.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	for spec, want := range map[string]string{
		`{"exit_code": 0}`:         "passed",
		`{"output_equals": "abc"}`: "passed",
		`{"file_contains": {"path": "out/token", "text": "abc"}}`:              "passed",
		`{"run_count": {"pattern": "^(mkdir|echo|cat) ", "min": 3, "max": 3}}`: "passed",
		`{"verify": {"run": "echo $TOKEN", "output_equals": "abc"}}`:           "passed",
		`{"verify": {"run": "sleep 5"}}`:                                       "error",
	} {
		if got := check(t, spec, sh); string(got.Status) != want {
			t.Errorf("%s: %s %q", spec, got.Status, got.Details)
		}
	}
}
