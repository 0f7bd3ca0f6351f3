package app

import (
	"log/slog"
	"math"
	"runtime/debug"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// memoryLimitRatio is the share of the container's memory limit given to the Go runtime as its
// soft limit (GOMEMLIMIT): the rest is for what the runtime does not count (goroutine stacks it
// has not yet returned, the binary, kernel buffers charged to the cgroup).
const memoryLimitRatio = 0.9

// setMemoryLimit sets the runtime's soft memory limit to memoryLimitRatio of the memory limit of
// the process's cgroup (a container's resources.limits.memory), read from cgroup v2's memory.max or
// v1's memory.limit_in_bytes by automemlimit. As the heap nears it, the garbage collector runs
// more often whatever GOGC says, so a burst of allocation (large requests, many sign-ins at once)
// costs CPU instead of an OOM kill. GOMEMLIMIT, when set, wins; AUTOMEMLIMIT=off turns this off
// (AUTOMEMLIMIT=0.8 another ratio). Without a cgroup limit the runtime has none either.
func setMemoryLimit(log *slog.Logger, provider memlimit.Provider) int64 {
	limit, err := memlimit.Set(memlimit.WithRatio(memoryLimitRatio), memlimit.WithProvider(provider))
	if err != nil {
		// Not in a cgroup (a laptop, macOS): the runtime keeps no limit, as without this.
		log.Debug("no memory limit from the cgroup", slog.Any("error", err))
		return debug.SetMemoryLimit(-1)
	}
	if limit != math.MaxInt64 {
		log.Info("memory limit from the cgroup", slog.Int64("gomemlimit_bytes", limit))
	}
	return limit
}
