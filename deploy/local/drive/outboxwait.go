package main

// `drive outboxwait` waits until every table store's outbox is empty: every committed event is on
// the stream and marked published, so nothing more will be published (the outbox sweeper
// republishes what a fault left unmarked, possibly seconds after the tables finished). The stats
// check runs its rebuild after it, so that the rebuild reads the stream the live consumer will end
// at.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// outboxWaitMain is `drive outboxwait -redis URL [-prefix cardroom:] [-wait 30s]`.
func outboxWaitMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drive outboxwait", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("redis", "redis://127.0.0.1:6379/0", "the Redis of the table stores: redis://host:port/db, or a Redis Cluster as redis+cluster://node:port[?addr=node2:port...]")
	prefix := fs.String("prefix", "cardroom:", "key prefix under which the games' table stores keep their keys")
	wait := fs.Duration("wait", 30*time.Second, "how long the outboxes may take to empty")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rdb, err := openRedis(*url)
	if err != nil {
		fmt.Fprintln(stderr, "drive outboxwait:", err)
		return 2
	}
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *wait+time.Minute)
	defer cancel()
	start := time.Now()
	left, err := waitOutboxes(ctx, rdb, *prefix, *wait)
	if err != nil {
		fmt.Fprintln(stderr, "drive outboxwait:", err)
		return 2
	}
	if left > 0 {
		fmt.Fprintf(stdout, "the outboxes still hold %d tables after %s\n", left, *wait)
		return 1
	}
	fmt.Fprintf(stdout, "every outbox is empty (after %.2f s)\n", time.Since(start).Seconds())
	return 0
}

// waitOutboxes polls every outbox under prefix (the keys "<prefix><game>:{<shard tag>}:outbox" of
// services/kit/store, on every primary of a cluster) until all are empty or wait has passed, and
// returns how many tables they held at the last look.
func waitOutboxes(ctx context.Context, rdb redis.UniversalClient, prefix string, wait time.Duration) (int64, error) {
	deadline := time.Now().Add(wait)
	for {
		n, err := outboxTables(ctx, rdb, prefix)
		if err != nil {
			return 0, err
		}
		if n == 0 || time.Now().After(deadline) {
			return n, nil
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// outboxTables counts the tables in every outbox under prefix.
func outboxTables(ctx context.Context, rdb redis.UniversalClient, prefix string) (int64, error) {
	var (
		mu    sync.Mutex
		total int64
	)
	count := func(ctx context.Context, c *redis.Client) error {
		it := c.Scan(ctx, 0, prefix+"*}:outbox", 1000).Iterator()
		for it.Next(ctx) {
			key := it.Val()
			n, err := c.ZCard(ctx, key).Result()
			if err != nil {
				return fmt.Errorf("count %s: %w", key, err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("list the outboxes: %w", err)
		}
		return nil
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, count)
	case *redis.Client:
		err = count(ctx, c)
	default:
		err = fmt.Errorf("unsupported Redis client %T", rdb)
	}
	return total, err
}
