//go:build linux

package store_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
)

// benchTables is how many tables the commit benchmark plays at once.
const benchTables = 500

// BenchmarkCommit plays benchTables tables at once, each action a Load and a Commit (two round
// trips), on a private redis-server, on a primary with a replica (commits answered at once, and
// after WAIT 1) and on the package's three-primary cluster (the same two ways). Besides ns/op it
// reports actions/s, the Redis servers' CPU per action (used_cpu_user+sys of every node, from
// INFO; of the primaries alone besides) and this process's.
//
//	go test -run '^$' -bench BenchmarkCommit -benchtime 20000x ./store/
func BenchmarkCommit(b *testing.B) {
	b.Run("single", func(b *testing.B) {
		one, err := testenv.StartRedis()
		if err != nil {
			b.Skip(err)
		}
		b.Cleanup(one.Stop)
		rdb := redis.NewClient(&redis.Options{Addr: one.Addrs[0], PoolSize: 128})
		redisconn.SkipConnCheck(rdb) // as the services' clients (redisconn.Options.Client)
		b.Cleanup(func() { _ = rdb.Close() })
		node := func(ctx context.Context, f func(*redis.Client) error) error { return f(rdb) }
		benchCommit(b, rdb, node, node, store.RedisOptions{})
	})
	// A primary with a replica, commits answered at once (replication asynchronous) and after
	// WAIT 1: what waiting for the replica costs.
	for _, wait := range []int{0, 1} {
		b.Run("replicated-wait"+strconv.Itoa(wait), func(b *testing.B) {
			pair, err := testenv.StartRedisPair()
			if err != nil {
				b.Skip(err)
			}
			b.Cleanup(pair.Stop)
			rdb := redis.NewClient(&redis.Options{Addr: pair.Addrs[0], PoolSize: 128})
			replica := redis.NewClient(&redis.Options{Addr: pair.Addrs[1]})
			b.Cleanup(func() { _ = rdb.Close(); _ = replica.Close() })
			primary := func(ctx context.Context, f func(*redis.Client) error) error { return f(rdb) }
			both := func(ctx context.Context, f func(*redis.Client) error) error {
				if err := f(rdb); err != nil {
					return err
				}
				return f(replica)
			}
			benchCommit(b, rdb, both, primary, store.RedisOptions{WaitReplicas: wait, WaitTimeout: 2 * time.Second})
		})
	}
	for _, wait := range []int{0, 1} {
		name := "cluster3"
		if wait > 0 {
			name += "-wait1"
		}
		b.Run(name, func(b *testing.B) {
			rdb := testenv.RedisClusterClient(b)
			benchCommit(b, rdb, func(ctx context.Context, f func(*redis.Client) error) error {
				return rdb.ForEachShard(ctx, func(_ context.Context, n *redis.Client) error { return f(n) })
			}, func(ctx context.Context, f func(*redis.Client) error) error {
				return rdb.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error { return f(n) })
			}, store.RedisOptions{WaitReplicas: wait, WaitTimeout: 2 * time.Second})
		})
	}
}

// nodes visits every Redis node, primaries the primaries only.
func benchCommit(b *testing.B, rdb redis.UniversalClient, nodes, primaries func(context.Context, func(*redis.Client) error) error, opt store.RedisOptions) {
	ctx := b.Context()
	s, err := store.NewRedisWith(ctx, rdb, testenv.Prefix(b, rdb), opt)
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, benchTables)
	for i := range ids {
		ids[i] = fmt.Sprintf("bench-%d", i)
		if err := s.Create(ctx, store.Table{ID: ids[i], State: []byte("state"), CreatedAt: time.Now()}, store.Entry{Data: []byte("created")}); err != nil {
			b.Fatal(err)
		}
	}
	// Each goroutine plays its own tables: every table has one writer, as with the replica that
	// serves it.
	var next atomic.Int64
	var actions atomic.Int64
	state := make([]byte, 600) // about an engine state's size
	entry := make([]byte, 120)
	b.SetParallelism(benchParallel)
	writers := benchParallel * runtime.GOMAXPROCS(0)
	srvBefore, primBefore := redisCPU(ctx, b, nodes), redisCPU(ctx, b, primaries)
	cliBefore := processCPU()
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		g := int(next.Add(1)) - 1
		mine := []string{}
		for i := g; i < benchTables; i += writers {
			mine = append(mine, ids[i])
		}
		if len(mine) == 0 {
			mine = []string{ids[g%benchTables]}
		}
		for i := 0; pb.Next(); i++ {
			id := mine[i%len(mine)]
			t, _, err := s.Load(ctx, id, "")
			if err != nil {
				b.Error(err)
				return
			}
			err = s.Commit(ctx, store.Commit{TableID: id, From: t.Version, State: state, Sequence: t.Version + 1,
				Entry: store.Entry{ActionID: fmt.Sprint(g, "-", i), Data: entry}, Deadline: time.Now().Add(time.Minute), Retain: time.Hour})
			if err != nil {
				b.Error(err)
				return
			}
			actions.Add(1)
		}
	})
	b.StopTimer()
	elapsed := time.Since(start)
	n := float64(actions.Load())
	b.ReportMetric(n/elapsed.Seconds(), "actions/s")
	b.ReportMetric(float64(redisCPU(ctx, b, nodes)-srvBefore)/n, "redis-cpu-µs/action")
	b.ReportMetric(float64(redisCPU(ctx, b, primaries)-primBefore)/n, "primaries-cpu-µs/action")
	b.ReportMetric(float64(processCPU()-cliBefore)/n, "client-cpu-µs/action")
}

// BenchmarkMarkPublished is one batch of outbox marks, as the rules server writes them after the
// stream's acknowledgements: markBatch tables of benchTables, each just committed, on a private
// redis-server and on the package's cluster. It reports the servers' CPU per mark, read from INFO
// around each MarkPublished call (the commits between calls are not counted).
func BenchmarkMarkPublished(b *testing.B) {
	b.Run("single", func(b *testing.B) {
		one, err := testenv.StartRedis()
		if err != nil {
			b.Skip(err)
		}
		b.Cleanup(one.Stop)
		rdb := redis.NewClient(&redis.Options{Addr: one.Addrs[0]})
		b.Cleanup(func() { _ = rdb.Close() })
		benchMark(b, rdb, func(ctx context.Context, f func(*redis.Client) error) error { return f(rdb) })
	})
	b.Run("cluster3", func(b *testing.B) {
		rdb := testenv.RedisClusterClient(b)
		benchMark(b, rdb, func(ctx context.Context, f func(*redis.Client) error) error {
			return rdb.ForEachShard(ctx, func(_ context.Context, n *redis.Client) error { return f(n) })
		})
	})
}

// markBatch is the marks of one MarkPublished call in BenchmarkMarkPublished.
const markBatch = 256

func benchMark(b *testing.B, rdb redis.UniversalClient, nodes func(context.Context, func(*redis.Client) error) error) {
	ctx := b.Context()
	s, err := store.NewRedis(ctx, rdb, testenv.Prefix(b, rdb))
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, benchTables)
	versions := make([]uint64, benchTables)
	for i := range ids {
		ids[i] = fmt.Sprintf("mark-%d", i)
		if err := s.Create(ctx, store.Table{ID: ids[i], State: []byte("state"), CreatedAt: time.Now()}, store.Entry{Data: []byte("created")}); err != nil {
			b.Fatal(err)
		}
	}
	state, entry := make([]byte, 600), make([]byte, 120)
	marks := make([]store.Mark, markBatch)
	var cpu int64
	next := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for j := range marks {
			i := next % benchTables
			next++
			err := s.Commit(ctx, store.Commit{TableID: ids[i], From: versions[i], State: state, Sequence: versions[i] + 1,
				Entry: store.Entry{ActionID: fmt.Sprint(next), Data: entry}, Retain: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			versions[i]++
			marks[j] = store.Mark{TableID: ids[i], From: versions[i], Sequence: versions[i]}
		}
		before := redisCPU(ctx, b, nodes)
		b.StartTimer()
		if err := s.MarkPublished(ctx, marks); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += redisCPU(ctx, b, nodes) - before
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N*markBatch), "redis-cpu-µs/mark")
}

// benchParallel is the goroutines per GOMAXPROCS of the commit benchmark.
const benchParallel = 64

// BenchmarkClaimDue is one deadline sweep (nothing due, the common case) over a store of 500
// tables with future deadlines, by number of shards, on the package's cluster; it reports the
// servers' CPU per sweep besides the sweep's latency.
func BenchmarkClaimDue(b *testing.B) {
	rdb := testenv.RedisClusterClient(b)
	for _, shards := range []int{1, 4, 16, 64, 256} {
		b.Run(strconv.Itoa(shards), func(b *testing.B) {
			ctx := b.Context()
			s, err := store.NewRedisWith(ctx, rdb, testenv.Prefix(b, rdb), store.RedisOptions{Shards: shards})
			if err != nil {
				b.Fatal(err)
			}
			for i := range benchTables {
				id := fmt.Sprintf("sweep-%d", i)
				if err := s.Create(ctx, store.Table{ID: id, State: []byte("s"), Deadline: time.Now().Add(time.Hour)}, store.Entry{Data: []byte("c")}); err != nil {
					b.Fatal(err)
				}
			}
			nodes := func(ctx context.Context, f func(*redis.Client) error) error {
				return rdb.ForEachShard(ctx, func(_ context.Context, n *redis.Client) error { return f(n) })
			}
			before := redisCPU(ctx, b, nodes)
			b.ResetTimer()
			for b.Loop() {
				if ids, _, err := s.ClaimDue(ctx, time.Now(), time.Minute, 64); err != nil || len(ids) != 0 {
					b.Fatalf("claim: %v %v", ids, err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(redisCPU(ctx, b, nodes)-before)/float64(b.N), "redis-cpu-µs/sweep")
		})
	}
}

// redisCPU sums used_cpu_user and used_cpu_sys of the nodes, in µs.
func redisCPU(ctx context.Context, b *testing.B, nodes func(context.Context, func(*redis.Client) error) error) int64 {
	var total atomic.Int64
	err := nodes(ctx, func(n *redis.Client) error {
		info, err := n.Info(ctx, "cpu").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\r\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
				f, _ := strconv.ParseFloat(v, 64)
				total.Add(int64(f * 1e6))
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return total.Load()
}

// processCPU is this process's user and system CPU time, in µs.
func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}
