//go:build !unix

package clitask

import (
	"errors"
	"os"
	"os/exec"
)

const tagsWork = false

// BecomeSubreaper makes the process a child subreaper, so that what the
// commands of verify and of a Shell leave behind, new sessions included,
// can be found and ended. It is supported on Linux only.
func BecomeSubreaper() error { return errors.New("clitask: a child subreaper needs Linux") }

func isSubreaper() bool { return false }

// Without process groups, a timeout kills the shell only.
func setProcessGroup(*exec.Cmd) {}

func killGroup(int) {}

func awaitExit(int) bool { return false }

func endLeftovers(int, string) {}

func endShell(string, []int) {}

func signalOf(*os.ProcessState) (int, bool) { return 0, false }
