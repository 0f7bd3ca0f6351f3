package stats

import (
	"testing"

	"cardroom.dev/services/kit/testenv"
	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them, and stops the Redis Cluster
// they started.
func TestMain(m *testing.M) { goleak.VerifyTestMain(testenv.Main(m)) }
