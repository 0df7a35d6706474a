package ollamatest

import "syscall"

// sysProcAttr puts the server in its own process group, so Stop can end its
// runners too, and has the kernel send it SIGTERM if the test binary dies
// first. SIGTERM rather than SIGKILL: on SIGTERM `ollama serve` stops its
// runner processes, while a killed server leaves them running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
