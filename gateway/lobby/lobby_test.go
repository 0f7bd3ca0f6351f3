package lobby_test

import (
	"testing"

	"cardroom.dev/gateway/lobby"
	"cardroom.dev/gateway/lobby/lobbytest"
	"cardroom.dev/services/kit/testenv"
)

func TestMemory(t *testing.T) {
	lobbytest.Run(t, func(*testing.T) lobby.Store { return lobby.NewMemory() })
}

func TestRedis(t *testing.T) {
	rdb := testenv.Redis(t)
	lobbytest.Run(t, func(t *testing.T) lobby.Store {
		s, err := lobby.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisCluster runs the suite on a six-node Redis Cluster (three primaries, three replicas).
func TestRedisCluster(t *testing.T) {
	rdb := testenv.RedisClusterClient(t)
	lobbytest.Run(t, func(t *testing.T) lobby.Store {
		s, err := lobby.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
