//go:build unix && !linux

package ollamatest

import "syscall"

// sysProcAttr puts the server in its own process group, so Stop can end its
// runners too.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
