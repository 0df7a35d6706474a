//go:build !unix

package ollamatest

import (
	"os/exec"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func startCmd(cmd *exec.Cmd, onExit func(error)) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { onExit(cmd.Wait()) }()
	return nil
}

func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// processAlive is conservative where it cannot tell: stale shared
// directories are then left in place.
func processAlive(int) bool { return true }
