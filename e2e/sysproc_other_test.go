//go:build !linux

package e2e

import "syscall"

func llamaSysProcAttr() *syscall.SysProcAttr { return nil }
