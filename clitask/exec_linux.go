//go:build linux

package clitask

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tagsWork: commands carry tagEnv, by which a subreaper tells its own
// leftovers from the processes it did not start.
const tagsWork = true

// subreaper is set once BecomeSubreaper has made the process a child
// subreaper.
var subreaper atomic.Bool

// BecomeSubreaper makes the process a child subreaper (Linux
// PR_SET_CHILD_SUBREAPER): orphans of its descendants, processes that
// started new sessions included, become its children instead of init's, so
// that what a verify or a Shell's commands leave behind can be found among
// them and ended. The assay command calls it at start; a library user opts
// in, because it changes which orphans the whole process adopts (and it
// must reap them: clitask reaps the ones it ends). Without it, only each
// command's process group is killed. Elsewhere than on Linux it returns an
// error.
func BecomeSubreaper() error { return setSubreaper(true) }

// setSubreaper makes the process a child subreaper, or no longer one.
func setSubreaper(on bool) error {
	v := uintptr(0)
	if on {
		v = 1
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, v, 0, 0, 0); err != nil {
		return &os.SyscallError{Syscall: "prctl(PR_SET_CHILD_SUBREAPER)", Err: err}
	}
	subreaper.Store(on)
	return nil
}

// isSubreaper reports whether BecomeSubreaper has made the process a child
// subreaper. (A process made one by other means is not known as one: its
// leftovers are then ended by process group only, as without a subreaper.)
func isSubreaper() bool { return subreaper.Load() }

// awaitExit blocks until the child pid has exited, without reaping it: its
// pid, and so its process group number, stays taken until exec.Cmd.Wait
// reaps it. It reports false when the wait failed (the caller then cleans up
// after Wait).
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}

// endLeftovers ends what the command whose shell pgid has exited (not yet
// reaped) left behind: its process group, then, when the process is a
// subreaper, every process carrying the command's tag among its children
// and their descendants.
func endLeftovers(pgid int, tag string) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if tag != "" && isSubreaper() {
		endTagged(tag, pgid)
	}
}

// endShell ends what a Shell's commands left running. With a subreaper:
// the tagged processes among its children and their descendants. Without:
// the processes of the commands' process groups that carry the shell's tag,
// so a group number reused by a process assay did not start is never
// signalled.
func endShell(tag string, groups []int) {
	if isSubreaper() {
		endTagged(tag, 0)
		return
	}
	if len(groups) == 0 {
		return
	}
	in := make(map[int]bool, len(groups))
	for _, g := range groups {
		in[g] = true
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if ok && in[st.pgrp] && hasTag(pid, tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// endTagged kills and reaps, round by round, the children of this process
// (a subreaper) that carry tag or descend from one that did, skipping the
// pid skip (the command's own shell, reaped by its exec.Cmd). A child
// cannot be reaped by anyone else, so its pid cannot be reused before it is
// signalled; its children are noted (by pid and start time) while it is
// stopped, and become this process's children when it dies.
func endTagged(tag string, skip int) {
	self := os.Getpid()
	doomed := map[int]uint64{}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var victims []int
		for _, pid := range childrenOf(self) {
			if pid == skip {
				continue
			}
			st, ok := readStat(pid)
			if !ok {
				continue
			}
			// Besides the tagged: what the command left in its own group
			// (its number is taken by the unreaped shell, so these are the
			// command's), zombies included, which have no environment to
			// read.
			inGroup := skip != 0 && st.pgrp == skip
			if start, known := doomed[pid]; (known && start == st.start) || inGroup || hasTag(pid, tag) {
				victims = append(victims, pid)
			}
		}
		if len(victims) == 0 {
			return
		}
		for _, pid := range victims {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
			for _, c := range childrenOf(pid) {
				if st, ok := readStat(c); ok {
					doomed[c] = st.start
				}
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			reap(pid, deadline)
		}
	}
}

// reap waits for the child pid, killed, to be gone.
func reap(pid int, deadline time.Time) {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || (err != nil && err != syscall.EINTR) || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// childrenOf lists the children of pid: from /proc/PID/task/*/children, or
// by scanning every process's parent where the kernel lacks that file.
func childrenOf(pid int) []int {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if err == nil && len(tasks) > 0 {
		var out []int
		for _, t := range tasks {
			data, err := os.ReadFile(t)
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
		return out
	}
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(c); ok && st.ppid == pid {
			out = append(out, c)
		}
	}
	return out
}

// procStat is what endTagged needs of /proc/PID/stat.
type procStat struct {
	ppid, pgrp int
	start      uint64 // start time, clock ticks after boot
}

func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name may hold spaces and parentheses: fields follow the
	// last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is the state (field 3); ppid is field 4, pgrp 5, starttime 22.
	if len(f) < 20 {
		return procStat{}, false
	}
	var st procStat
	var e1, e2, e3 error
	st.ppid, e1 = strconv.Atoi(f[1])
	st.pgrp, e2 = strconv.Atoi(f[2])
	st.start, e3 = strconv.ParseUint(f[19], 10, 64)
	return st, e1 == nil && e2 == nil && e3 == nil
}

// hasTag reports whether the environment pid started with holds
// tagEnv=tag.
func hasTag(pid int, tag string) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(tagEnv + "=" + tag)
	for len(data) > 0 {
		entry, rest, _ := bytes.Cut(data, []byte{0})
		if bytes.Equal(entry, want) {
			return true
		}
		data = rest
	}
	return false
}
