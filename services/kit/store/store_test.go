package store_test

import (
	"fmt"
	"testing"
	"time"

	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/store/storetest"
	"cardroom.dev/services/kit/testenv"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}

func TestRedis(t *testing.T) {
	rdb := testenv.Redis(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisServicesClient runs the suite with a client as the services open it (redisconn: no
// check of a pooled connection before each command).
func TestRedisServicesClient(t *testing.T) {
	testenv.Redis(t) // skips when there is no Redis
	rdb, _, err := redisconn.Open(testenv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisCluster runs the suite on a six-node Redis Cluster (three primaries, three replicas).
func TestRedisCluster(t *testing.T) {
	rdb := testenv.RedisClusterClient(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedis(t.Context(), rdb, testenv.Prefix(t, rdb))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisClusterWait runs the suite on the Redis Cluster with writes that wait for a replica:
// each goes, with its WAIT, to the primary serving its table's slot.
func TestRedisClusterWait(t *testing.T) {
	rdb := testenv.RedisClusterClient(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedisWith(t.Context(), rdb, testenv.Prefix(t, rdb), store.RedisOptions{WaitReplicas: 1, WaitTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestRedisShards checks that a prefix keeps its number of shards, and that a one-shard store
// passes the suite too.
func TestRedisShards(t *testing.T) {
	rdb := testenv.Redis(t)
	prefix := testenv.Prefix(t, rdb)
	if _, err := store.NewRedisWith(t.Context(), rdb, prefix, store.RedisOptions{Shards: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewRedisWith(t.Context(), rdb, prefix, store.RedisOptions{Shards: 4}); err != nil {
		t.Fatalf("same shards again: %v", err)
	}
	if _, err := store.NewRedisWith(t.Context(), rdb, prefix, store.RedisOptions{Shards: 8}); err == nil {
		t.Fatal("a store with another number of shards was opened on the same prefix")
	}
	if _, err := store.NewRedis(t.Context(), rdb, "cardroom-test:{x}:"); err == nil {
		t.Fatal("a prefix with a brace was accepted")
	}
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.NewRedisWith(t.Context(), rdb, testenv.Prefix(t, rdb), store.RedisOptions{Shards: 1})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestMemoryLongLog reads back a log longer than one of the memory store's chunks.
func TestMemoryLongLog(t *testing.T) {
	ctx := t.Context()
	m := store.NewMemory()
	if err := m.Create(ctx, store.Table{ID: "long", State: []byte("s")}, store.Entry{Data: []byte("e0")}); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for v := uint64(1); v <= n; v++ {
		c := store.Commit{TableID: "long", From: v - 1, State: []byte("s"), Sequence: v,
			Entry: store.Entry{ActionID: fmt.Sprint("a", v), Data: fmt.Appendf(nil, "e%d", v)}}
		if err := m.Commit(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []uint64{0, 1, 255, 256, 257, 511, 512, 999, 1000, 1001} {
		log, err := m.Log(ctx, "long", from)
		if err != nil {
			t.Fatal(err)
		}
		if want := max(0, n+1-int(from)); len(log) != want {
			t.Fatalf("from %d: %d entries, want %d", from, len(log), want)
		}
		for i, e := range log {
			v := from + uint64(i)
			if e.Version != v || string(e.Data) != fmt.Sprint("e", v) {
				t.Fatalf("from %d: entry %d is version %d %q", from, i, e.Version, e.Data)
			}
		}
	}
	for _, v := range []uint64{1, 256, 257, 700, 1000} {
		_, prior, err := m.Load(ctx, "long", fmt.Sprint("a", v))
		if err != nil || prior == nil || prior.Version != v || string(prior.Data) != fmt.Sprint("e", v) {
			t.Fatalf("load a%d: %v %+v", v, err, prior)
		}
	}
}
