package redisconn_test

import (
	"context"
	"strconv"
	"testing"

	"cardroom.dev/services/kit/redisconn"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
)

// TestSkipConnCheck: with SkipConnCheck, a pooled connection the server closed while it was idle
// is found dead by the next command (which fails, go-redis's retries being off) and dropped, and
// the command after it gets a new connection; without it, go-redis's check drops the connection
// before the command is sent.
func TestSkipConnCheck(t *testing.T) {
	admin := testenv.Redis(t)
	for _, skip := range []bool{false, true} {
		opt := admin.Options()
		// One connection, and no retries: the command shows what the pool handed it.
		c := redis.NewClient(&redis.Options{Addr: opt.Addr, Username: opt.Username, Password: opt.Password, DB: opt.DB, PoolSize: 1, MaxRetries: -1})
		if skip {
			redisconn.SkipConnCheck(c)
		}
		ctx := context.Background()
		id, err := c.ClientID(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		// The kill is answered after the server has closed the socket.
		if err := admin.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Err(); err != nil {
			t.Fatal(err)
		}
		err = c.Ping(ctx).Err()
		if skip && err == nil {
			t.Errorf("skip=%v: a command on a connection the server closed succeeded", skip)
		}
		if !skip && err != nil {
			t.Errorf("skip=%v: the dead connection was not dropped before the command: %v", skip, err)
		}
		next, err := c.ClientID(ctx).Result()
		if err != nil {
			t.Fatalf("skip=%v: the command after: %v", skip, err)
		}
		if next == id {
			t.Errorf("skip=%v: the dead connection (client id %d) is still in use", skip, id)
		}
		_ = c.Close()
	}
}

// TestClientSkipsConnCheck: the clients Options.Client makes, of every kind, skip the check.
func TestClientSkipsConnCheck(t *testing.T) {
	admin := testenv.Redis(t)
	o, err := redisconn.Parse(testenv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	o.Single.PoolSize, o.Single.MaxRetries = 1, -1
	c := o.Client()
	defer c.Close()
	ctx := context.Background()
	id, err := c.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.ClientKillByFilter(ctx, "ID", strconv.FormatInt(id, 10)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx).Err(); err == nil {
		t.Error("a command on a connection the server closed succeeded: the client checked it first")
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Errorf("the command after: %v", err)
	}
}
