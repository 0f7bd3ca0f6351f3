package app

import (
	"log/slog"
	"os"
	"runtime/debug"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

func TestMemoryLimitFollowsTheContainers(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("AUTOMEMLIMIT", "") // restored after the test; unset during it
	os.Unsetenv("AUTOMEMLIMIT")
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	var pod uint64 = 512 << 20 // a gateway pod's limit
	got := setMemoryLimit(slog.New(slog.DiscardHandler), memlimit.Limit(pod))
	want := int64(float64(pod) * memoryLimitRatio)
	if got != want || debug.SetMemoryLimit(-1) != want {
		t.Fatalf("GOMEMLIMIT %d (runtime %d), want %d: 90 %% of the cgroup's 512 MiB", got, debug.SetMemoryLimit(-1), want)
	}
}

func TestMemoryLimitLeavesAnExplicitGOMEMLIMIT(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	t.Setenv("GOMEMLIMIT", "300MiB")
	if got := setMemoryLimit(slog.New(slog.DiscardHandler), memlimit.Limit(512<<20)); got != before {
		t.Fatalf("GOMEMLIMIT set by the operator was replaced: %d, want the runtime's %d", got, before)
	}
}
