package accounts_test

import (
	"testing"

	"cardroom.dev/gateway/accounts"
	"cardroom.dev/gateway/accounts/accountstest"
	"cardroom.dev/services/kit/testenv"
)

func TestMemory(t *testing.T) {
	accountstest.Run(t, func(*testing.T) accountstest.Store { return accounts.NewMemory() })
}

func TestRedis(t *testing.T) {
	rdb := testenv.Redis(t)
	accountstest.Run(t, func(t *testing.T) accountstest.Store {
		s, err := accounts.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisCluster runs the suite on a six-node Redis Cluster (three primaries, three replicas).
func TestRedisCluster(t *testing.T) {
	rdb := testenv.RedisClusterClient(t)
	accountstest.Run(t, func(t *testing.T) accountstest.Store {
		s, err := accounts.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
