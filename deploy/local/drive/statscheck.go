package main

// `drive statscheck` compares two stats stores in one Redis key by key: the live stats service's
// aggregates (folded by its durable consumer through whatever faults happened) and those
// `cardroom stats rebuild` recomputed from the event stream under another prefix. They must be
// equal once the live consumer has applied the stream as far as the rebuild did.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// skipped are keys (relative to a store's prefix) that are not aggregates: the ingestion counters
// count what reached the consumer (redeliveries after a fault show there as duplicates), not what
// the stream holds.
var skipped = map[string]bool{"ingest": true}

// statsCheckMain is `drive statscheck -redis URL -live PREFIX -rebuilt PREFIX [-wait 30s]`.
func statsCheckMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drive statscheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("redis", "redis://127.0.0.1:6379/0", "the Redis holding both stores: redis://host:port/db, or a Redis Cluster as redis+cluster://node:port[?addr=node2:port...]")
	live := fs.String("live", "cardroom:stats:", "key prefix of the live stats store")
	rebuilt := fs.String("rebuilt", "", "key prefix of the rebuilt stats store")
	wait := fs.Duration("wait", 30*time.Second, "how long the live store may take to reach the rebuilt one's stream position")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rdb, err := openRedis(*url)
	if err != nil {
		fmt.Fprintln(stderr, "drive statscheck:", err)
		return 2
	}
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *wait+time.Minute)
	defer cancel()
	// Every key of a stats store carries the hash tag {stats} after its prefix (services/stats.Tag).
	n, diffs, err := compareStores(ctx, rdb, *live+statsTag, *rebuilt+statsTag, *wait)
	if err != nil {
		fmt.Fprintln(stderr, "drive statscheck:", err)
		return 2
	}
	if len(diffs) > 0 {
		for _, d := range diffs[:min(len(diffs), 20)] {
			fmt.Fprintln(stdout, "differs:", d)
		}
		fmt.Fprintf(stdout, "the live stats differ from the rebuilt ones in %d of %d keys\n", len(diffs), n)
		return 1
	}
	fmt.Fprintf(stdout, "the live stats equal the rebuilt ones: %d keys\n", n)
	return 0
}

// openRedis opens a client of one Redis (redis://, rediss://) or of a Redis Cluster
// (redis+cluster://, rediss+cluster://, the forms of services/kit/redisconn, which this module does
// not import).
func openRedis(rawURL string) (redis.UniversalClient, error) {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	switch scheme {
	case "redis+cluster", "rediss+cluster":
		opt, err := redis.ParseClusterURL(strings.TrimSuffix(scheme, "+cluster") + "://" + rest)
		if err != nil {
			return nil, err
		}
		return redis.NewClusterClient(opt), nil
	default:
		opt, err := redis.ParseURL(rawURL)
		if err != nil {
			return nil, err
		}
		return redis.NewClient(opt), nil
	}
}

// statsTag is services/stats.Tag (this module does not import the stats service).
const statsTag = "{stats}:"

// compareStores waits (up to wait) until the live store's stream position is the rebuilt one's,
// then compares every key but the skipped ones, and returns how many keys it compared and how
// they differ.
func compareStores(ctx context.Context, rdb redis.UniversalClient, live, rebuilt string, wait time.Duration) (int, []string, error) {
	want, err := rdb.HGet(ctx, rebuilt+"meta", "pos").Result()
	if err != nil {
		return 0, nil, fmt.Errorf("the rebuilt store's position: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		got, err := rdb.HGet(ctx, live+"meta", "pos").Result()
		if err != nil && err != redis.Nil {
			return 0, nil, fmt.Errorf("the live store's position: %w", err)
		}
		if got == want {
			break
		}
		if time.Now().After(deadline) {
			return 0, []string{fmt.Sprintf("meta: the live store is at stream sequence %q after %s, the rebuilt one at %s", got, wait, want)}, nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		}
	}
	a, err := dumpStore(ctx, rdb, live)
	if err != nil {
		return 0, nil, err
	}
	b, err := dumpStore(ctx, rdb, rebuilt)
	if err != nil {
		return 0, nil, err
	}
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diffs []string
	for _, k := range keys {
		va, okA := a[k]
		vb, okB := b[k]
		switch {
		case !okA:
			diffs = append(diffs, fmt.Sprintf("%s: only in the rebuilt store", k))
		case !okB:
			diffs = append(diffs, fmt.Sprintf("%s: only in the live store", k))
		case va != vb:
			diffs = append(diffs, fmt.Sprintf("%s: live %.200s, rebuilt %.200s", k, va, vb))
		}
	}
	return len(keys), diffs, nil
}

// dumpStore reads every key under prefix (but the skipped ones) as a canonical text of its type
// and content, by key without the prefix.
func dumpStore(ctx context.Context, rdb redis.UniversalClient, prefix string) (map[string]string, error) {
	out := map[string]string{}
	// On a cluster, SCAN goes to the primary holding the store's slot: every key under prefix
	// carries its hash tag.
	var scanner redis.Cmdable = rdb
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, prefix)
		if err != nil {
			return nil, fmt.Errorf("the node holding %s*: %w", prefix, err)
		}
		scanner = node
	}
	iter := scanner.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		full := iter.Val()
		k := strings.TrimPrefix(full, prefix)
		if skipped[k] {
			continue
		}
		v, err := dumpKey(ctx, rdb, full)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", full, err)
		}
		out[k] = v
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("scan %s*: %w", prefix, err)
	}
	return out, nil
}

func dumpKey(ctx context.Context, rdb redis.UniversalClient, key string) (string, error) {
	typ, err := rdb.Type(ctx, key).Result()
	if err != nil {
		return "", err
	}
	var parts []string
	switch typ {
	case "string":
		s, err := rdb.Get(ctx, key).Result()
		return "string " + s, err
	case "hash":
		m, err := rdb.HGetAll(ctx, key).Result()
		if err != nil {
			return "", err
		}
		for f, v := range m {
			parts = append(parts, fmt.Sprintf("%q=%q", f, v))
		}
		slices.Sort(parts)
	case "set":
		parts, err = rdb.SMembers(ctx, key).Result()
		if err != nil {
			return "", err
		}
		slices.Sort(parts)
	case "zset":
		zs, err := rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			return "", err
		}
		for _, z := range zs {
			parts = append(parts, fmt.Sprintf("%v:%g", z.Member, z.Score))
		}
	case "list":
		parts, err = rdb.LRange(ctx, key, 0, -1).Result()
		if err != nil {
			return "", err
		}
	default:
		return typ, nil // gone meanwhile ("none"), or a type no store writes
	}
	return typ + " " + strings.Join(parts, " "), nil
}
