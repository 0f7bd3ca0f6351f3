package stats_test

import (
	"testing"

	"cardroom.dev/services/stats/storetest"
)

// TestStatsService checks every call of the service on a workload of the kit's test game (the
// end-to-end module runs the same on the four games).
func TestStatsService(t *testing.T) {
	storetest.RunService(t, storetest.NewWorkload(3, storetest.WorkloadOptions{Games: 400, Players: 60, Faults: true}))
}
