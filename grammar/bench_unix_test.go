//go:build unix

package grammar

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used so far (user and system, every thread, the garbage
// collector's included). Benchmarks report it per operation as cpu-ns/op beside the wall-clock ns/op,
// which on a loaded machine also counts the time spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
