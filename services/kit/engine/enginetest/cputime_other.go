//go:build !unix

package enginetest

import "time"

// CPUTime is the processor time this process has used; this platform does not report it (0).
func CPUTime() time.Duration { return 0 }
