//go:build unix

package enginetest

import (
	"syscall"
	"time"
)

// CPUTime is the processor time this process has used. Benchmarks divide by it: on a machine
// busy with other work, per CPU-second says what one idle core does, where wall clock says less.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
