//go:build unix && !linux

package clitask

import "errors"

// Without Linux's child subreaper, a command's leftovers are found by
// process group only.
const tagsWork = false

// BecomeSubreaper makes the process a child subreaper, so that what the
// commands of verify and of a Shell leave behind, new sessions included,
// can be found and ended. It is supported on Linux only; elsewhere it
// returns an error and only process groups are killed.
func BecomeSubreaper() error { return errors.New("clitask: a child subreaper needs Linux") }

func isSubreaper() bool { return false }

// awaitExit cannot wait without reaping here: the caller kills the group
// after Wait.
func awaitExit(int) bool { return false }

func endLeftovers(int, string) {}

// endShell kills the process groups of a shell's commands.
func endShell(_ string, groups []int) {
	for _, g := range groups {
		killGroup(g)
	}
}
