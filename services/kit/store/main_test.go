package store_test

import (
	"os"
	"testing"

	"cardroom.dev/services/kit/testenv"
)

// TestMain stops the Redis Cluster the tests started.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m).Run()) }
