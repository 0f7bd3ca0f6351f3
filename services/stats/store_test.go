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

// TestRedisClusterStore runs the suite on a six-node Redis Cluster (three primaries, three
// replicas).
func TestRedisClusterStore(t *testing.T) {
	rdb := testenv.RedisClusterClient(t)
	storetest.Run(t, func(t *testing.T) stats.Store {
		st, err := stats.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func TestRedisClear(t *testing.T) {
	rdb := testenv.Redis(t)
	prefix := testenv.Prefix(t, rdb)
	st, err := stats.NewRedis(t.Context(), rdb, prefix)
	if err != nil {
		t.Fatal(err)
	}
	w := storetest.NewWorkload(5, storetest.WorkloadOptions{Games: 200})
	if _, err := stats.ApplyBatch(t.Context(), st, w.Aggregator(), w.Public(), quiet); err != nil {
		t.Fatal(err)
	}
	if err := st.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Keys(t.Context(), prefix+"*").Result(); err != nil || len(n) != 0 {
		t.Fatalf("keys left: %v (%v)", n, err)
	}
	if p, _ := st.Position(t.Context()); p != 0 {
		t.Fatalf("position %d after Clear", p)
	}
}
