//go:build unix

package ollamatest

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

// startCmd starts cmd from an OS thread that stays alive until the process
// has exited: Linux sends the parent-death signal when the thread that
// started the child exits, not only when the whole test binary does.
// onExit receives cmd.Wait's result.
func startCmd(cmd *exec.Cmd, onExit func(error)) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread ends with this goroutine, after the child.
		if err := cmd.Start(); err != nil {
			errc <- err
			return
		}
		errc <- nil
		onExit(cmd.Wait())
	}()
	return <-errc
}

// signalGroup signals the process group that cmd leads (Setpgid), which
// holds `ollama serve` and the runner processes it starts.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		cmd.Process.Signal(sig)
	}
}

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
