//go:build linux

package loadgen

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTimes are processor seconds used so far: by the whole machine (Linux /proc/stat) and by this
// process.
type cpuTimes struct {
	machine, self float64
	machineOK     bool
}

// userHZ is the unit of /proc/stat (USER_HZ, 100 on Linux for every architecture it supports).
const userHZ = 100

func readCPU() cpuTimes {
	var c cpuTimes
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return c
	}
	// user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
	var busy float64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest times are already in user
			continue
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return c
		}
		busy += n
	}
	c.machine = busy / userHZ
	c.machineOK = true
	return c
}
