package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitDone fails t unless done closes within a few seconds.
func waitDone(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: not cancelled by an interrupt", what)
	}
}

// An interrupt cancels the context once something has asked for Done, and a
// context derived from it (as a verify run's timeout is) with it.
func TestInterruptContextArmedByDone(t *testing.T) {
	// Catch the signal here too, so that a broken handler fails the test
	// instead of ending the test binary.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)

	ctx := newInterruptContext(time.Hour)
	if ctx.armed.Load() {
		t.Fatal("armed before anything waited")
	}
	if ctx.Err() != nil {
		t.Fatalf("Err = %v before any interrupt", ctx.Err())
	}
	child, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitDone(t, ctx.Done(), "the context")
	waitDone(t, child.Done(), "a derived context")
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("Err = %v, derived %v; want context.Canceled", ctx.Err(), child.Err())
	}
}

// Without a call of Done, the delay arms the context.
func TestInterruptContextArmedByDelay(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)

	ctx := newInterruptContext(time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for !ctx.armed.Load() {
		if time.Now().After(deadline) {
			t.Fatal("not armed after the delay")
		}
		time.Sleep(time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Err is still nil after an interrupt")
		}
		time.Sleep(time.Millisecond)
	}
	waitDone(t, ctx.done, "the context")
}

func TestInterruptContextIsPlain(t *testing.T) {
	ctx := newInterruptContext(time.Hour)
	if _, ok := ctx.Deadline(); ok {
		t.Error("a deadline")
	}
	if ctx.Value("k") != nil {
		t.Error("a value")
	}
	if context.Cause(ctx) != nil {
		t.Errorf("Cause = %v", context.Cause(ctx))
	}
}

func TestMain(m *testing.M) {
	if os.Getenv("ASSAY_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"assay"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// The command, interrupted while a verify command runs, stops it, reports
// the run as an error and exits 1: waiting on the child armed the handler.
func TestInterruptStopsACheck(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command:", err)
	}
	dir := t.TempDir()
	must := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("suite.yaml", "cli: sleep\ntasks:\n  - id: wait\n    intent: Wait.\n    assert:\n      - verify: {run: sleep 30}\n")
	must("runs.json", `{"task_id": "wait", "workdir": ".", "commands": [{"command": "sleep 1", "exit_code": 0, "stdout": "", "stderr": "", "duration_ms": 1000}]}`)
	cmd := exec.Command(os.Args[0], "check", "--suite", "suite.yaml", "--trace", "runs.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASSAY_TEST_RUN_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v; want exit code 1 (stderr: %s)", err, stderr.String())
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v: the verify command was not stopped", took)
	}
	if want := `verify "sleep 30" could not run: run "sleep 30": context canceled`; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout = %q; want %q in it", stdout.String(), want)
	}
}
