//go:build !linux

package loadgen

// cpuTimes are processor seconds used so far; only Linux reports them here.
type cpuTimes struct {
	machine, self float64
	machineOK     bool
}

func readCPU() cpuTimes { return cpuTimes{} }
