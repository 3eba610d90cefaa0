//go:build !unix

package shell

import (
	"fmt"
	"os/exec"
	"syscall"
)

// ownGroup does nothing: process groups are a Unix notion.
func ownGroup(*exec.Cmd) {}

// killGroup kills bash itself; its descendants are not reached.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// signalName returns a name for sig.
func signalName(sig syscall.Signal) string { return fmt.Sprintf("signal %d", int(sig)) }
