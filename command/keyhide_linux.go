//go:build linux

package command

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// hideKey takes the key out of the process's environment image, which a
// command the runs start could read from /proc/PPID/environ (as root even
// when the process is not dumpable): it re-executes the program
// (/proc/self/exe, the same arguments) with an environment that lacks every
// variable whose value is key, handing key over on an inherited pipe named
// by keyFDEnv. It returns only when that failed.
func hideKey(key string) error {
	if len(key) > maxHandedKey {
		return fmt.Errorf("the key is over %d bytes", maxHandedKey)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// The read end outlives exec; the write end is closed first, so the
	// new image reads the key and then the end of it.
	if _, err := unix.FcntlInt(r.Fd(), unix.F_SETFD, 0); err != nil {
		w.Close()
		return &os.SyscallError{Syscall: "fcntl(F_SETFD)", Err: err}
	}
	_, err = io.WriteString(w, key)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	env := append(runEnviron(os.Environ(), key), keyFDEnv+"="+strconv.Itoa(int(r.Fd())))
	return syscall.Exec("/proc/self/exe", os.Args, env)
}

// guardProcess makes the process not dumpable: its /proc/PID files (mem,
// environ) belong to root, so the commands it runs as another user than
// root cannot read its memory, where the key is.
func guardProcess() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return &os.SyscallError{Syscall: "prctl(PR_SET_DUMPABLE)", Err: err}
	}
	return nil
}
