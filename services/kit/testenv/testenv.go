// Package testenv gives tests the real services they run against: a Redis server and a NATS server
// with JetStream. When one is not reachable the test is skipped with a message, unless
// CARDROOM_REQUIRE_SERVICES=1 (as in CI), where it fails.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Required reports whether tests must fail rather than skip when a service is missing.
func Required() bool { return os.Getenv("CARDROOM_REQUIRE_SERVICES") == "1" }

func unavailable(t testing.TB, what, addr string, err error) {
	t.Helper()
	if Required() {
		t.Fatalf("%s at %s is required (CARDROOM_REQUIRE_SERVICES=1) but not reachable: %v", what, addr, err)
	}
	t.Skipf("skipping: %s at %s not reachable (%v); start it or set its URL to run this test", what, addr, err)
}

// RedisURL is the Redis the tests use: CARDROOM_TEST_REDIS_URL or redis://127.0.0.1:6379/0.
func RedisURL() string {
	if u := os.Getenv("CARDROOM_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Redis returns a client of the test Redis, closed when the test ends, or skips/fails.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		t.Fatalf("CARDROOM_TEST_REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		unavailable(t, "Redis", opt.Addr, err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// Prefix returns a key prefix unique to this test run, so tests never see each other's keys.
// Keys under it are deleted when the test ends.
// On a Redis Cluster, every primary is scanned.
func Prefix(t testing.TB, rdb redis.UniversalClient) string {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	p := "cardroom-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		clean := func(ctx context.Context, node redis.UniversalClient) error {
			iter := node.Scan(ctx, 0, p+"*", 1000).Iterator()
			for iter.Next(ctx) {
				node.Del(ctx, iter.Val())
			}
			return iter.Err()
		}
		if c, ok := rdb.(*redis.ClusterClient); ok {
			_ = c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error { return clean(ctx, node) })
			return
		}
		_ = clean(ctx, rdb)
	})
	return p
}

// NATSURL is the external NATS the integration tests use: CARDROOM_TEST_NATS_URL or
// nats://127.0.0.1:4222.
func NATSURL() string {
	if u := os.Getenv("CARDROOM_TEST_NATS_URL"); u != "" {
		return u
	}
	return "nats://127.0.0.1:4222"
}

// ExternalNATS returns the external NATS URL when a server answers there, or skips/fails.
func ExternalNATS(t testing.TB) string {
	t.Helper()
	u := NATSURL()
	host := u
	if len(host) > 7 && host[:7] == "nats://" {
		host = host[7:]
	}
	c, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		unavailable(t, "NATS", host, err)
	}
	_ = c.Close()
	return u
}
