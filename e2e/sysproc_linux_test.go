package e2e

import "syscall"

// llamaSysProcAttr has the kernel kill llama-server if the test binary dies
// first (a panic, a -timeout, SIGKILL).
func llamaSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
