//go:build linux

package clitask

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// setSubreaper turns the child subreaper attribute on or off.
func setSubreaperFor(t *testing.T, on bool) {
	t.Helper()
	if err := setSubreaper(on); err != nil {
		t.Fatal(err)
	}
}

func pidIn(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// eventually waits up to 3 s for cond.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Without a subreaper, only the process group is killed: what stays in the
// group dies, a new session survives (and the test ends it).
func TestWithoutSubreaperGroupOnly(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	was := isSubreaper()
	setSubreaperFor(t, false)
	defer setSubreaperFor(t, was)
	if isSubreaper() {
		t.Fatal("still a subreaper")
	}
	dir := t.TempDir()
	_, err := Executor{Dir: dir}.Run(context.Background(),
		"sleep 30 >/dev/null 2>&1 & echo $! > group.pid; setsid sleep 30 >/dev/null 2>&1 </dev/null & echo $! > session.pid; sleep 0.3")
	if err != nil {
		t.Fatal(err)
	}
	group, session := pidIn(t, filepath.Join(dir, "group.pid")), pidIn(t, filepath.Join(dir, "session.pid"))
	defer syscall.Kill(session, syscall.SIGKILL)
	if !eventually(func() bool { return !running(group) }) {
		t.Error("the process group outlived the command")
	}
	if !running(session) {
		t.Error("without a subreaper the new session was expected to survive (it is not found)")
	}
}

// Without a subreaper, Shell.Close kills the tagged processes of its
// commands' groups, and nothing else.
func TestShellCloseWithoutSubreaper(t *testing.T) {
	was := isSubreaper()
	setSubreaperFor(t, false)
	defer setSubreaperFor(t, was)
	dir := t.TempDir()
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	sh := NewShell(Executor{Dir: dir})
	if _, err := sh.Run(context.Background(), "sleep 30 >/dev/null 2>&1 & echo $! > bg.pid"); err != nil {
		t.Fatal(err)
	}
	bg := pidIn(t, filepath.Join(dir, "bg.pid"))
	if !running(bg) {
		t.Fatal("the background process died before Close")
	}
	sh.Close()
	if !eventually(func() bool { return !running(bg) }) {
		syscall.Kill(bg, syscall.SIGKILL)
		t.Error("the background process outlived Close")
	}
	if !running(other.Process.Pid) {
		t.Error("Close signalled a process the shell did not start")
	}
}

// A remembered process group number that was reused by a process the shell
// did not start (PIDs wrap) is not signalled by Close, with or without a
// subreaper.
func TestShellCloseReusedGroup(t *testing.T) {
	was := isSubreaper()
	defer setSubreaperFor(t, was)
	for _, sub := range []bool{true, false} {
		setSubreaperFor(t, sub)
		other := exec.Command("sleep", "30")
		other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := other.Start(); err != nil {
			t.Fatal(err)
		}
		sh := NewShell(Executor{Dir: t.TempDir()})
		if _, err := sh.Run(context.Background(), "true"); err != nil {
			t.Fatal(err)
		}
		// As if the number of the finished command's group were reused.
		sh.groups = append(sh.groups, other.Process.Pid)
		sh.Close()
		time.Sleep(50 * time.Millisecond)
		if !running(other.Process.Pid) {
			t.Errorf("subreaper %v: Close killed the unrelated group %d", sub, other.Process.Pid)
		}
		_ = other.Process.Kill()
		_ = other.Wait()
	}
}
