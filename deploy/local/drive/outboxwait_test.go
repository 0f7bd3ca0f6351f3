package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisForTest returns a client of the Redis at 127.0.0.1:6379, skipping the test without one
// (failing it when CARDROOM_REQUIRE_SERVICES=1).
func redisForTest(t *testing.T) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		if os.Getenv("CARDROOM_REQUIRE_SERVICES") == "1" {
			t.Fatalf("Redis at 127.0.0.1:6379 is required (CARDROOM_REQUIRE_SERVICES=1): %v", err)
		}
		t.Skipf("no Redis at 127.0.0.1:6379 (%v): start one to run this test", err)
	}
	return rdb
}

func TestOutboxTables(t *testing.T) {
	ctx := context.Background()
	rdb := redisForTest(t)
	prefix := "drive-test-" + time.Now().Format("150405.000000") + ":"
	keys := []string{prefix + "sponsio:{ab-0}:outbox", prefix + "saboteur:{cd-3}:outbox"}
	t.Cleanup(func() { rdb.Del(context.Background(), append(keys, prefix+"sponsio:{ab-0}:deadlines")...) })

	if n, err := outboxTables(ctx, rdb, prefix); err != nil || n != 0 {
		t.Fatalf("no outbox: %d tables, %v; want 0", n, err)
	}
	rdb.ZAdd(ctx, keys[0], redis.Z{Score: 1, Member: "t1"}, redis.Z{Score: 2, Member: "t2"})
	rdb.ZAdd(ctx, keys[1], redis.Z{Score: 1, Member: "t3"})
	rdb.ZAdd(ctx, prefix+"sponsio:{ab-0}:deadlines", redis.Z{Score: 1, Member: "t1"}) // not an outbox
	if n, err := outboxTables(ctx, rdb, prefix); err != nil || n != 3 {
		t.Fatalf("two outboxes: %d tables, %v; want 3", n, err)
	}
	if n, err := waitOutboxes(ctx, rdb, prefix, 0); err != nil || n != 3 {
		t.Fatalf("waitOutboxes with nothing to wait for: %d, %v; want 3", n, err)
	}
	rdb.Del(ctx, keys...)
	if n, err := waitOutboxes(ctx, rdb, prefix, time.Minute); err != nil || n != 0 {
		t.Fatalf("emptied outboxes: %d, %v; want 0", n, err)
	}
}
