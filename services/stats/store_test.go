package stats_test

import (
	"testing"

	"cardroom.dev/services/kit/testenv"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) stats.Store { return stats.NewMemory() })
}

func TestRedisStore(t *testing.T) {
	rdb := testenv.Redis(t)
	storetest.Run(t, func(t *testing.T) stats.Store {
		st, err := stats.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}
