package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/store/storetest"
	"cardroom.dev/services/kit/testenv"
	"github.com/redis/go-redis/v9"
)

// TestRedisWait runs the suite with writes that wait for a replica, on a primary with one, and
// shows that a write no replica confirmed is refused (ErrUnconfirmed, Unavailable), as is its
// retry until a replica has it; once one does, the retry is answered from the log, and the replica
// holds what was answered.
func TestRedisWait(t *testing.T) {
	pair := testenv.RedisPair(t)
	primary := redis.NewClient(&redis.Options{Addr: pair.Addrs[0]})
	replica := redis.NewClient(&redis.Options{Addr: pair.Addrs[1]})
	t.Cleanup(func() { _ = primary.Close(); _ = replica.Close() })
	// Writes the replica should confirm get 2 s (a loaded machine can take hundreds of ms to
	// schedule both servers); those that cannot be confirmed, 200 ms.
	const patient, quick = 2 * time.Second, 200 * time.Millisecond
	open := func(t *testing.T, prefix string, timeout time.Duration) *store.Redis {
		s, err := store.NewRedisWith(t.Context(), primary, prefix, store.RedisOptions{WaitReplicas: 1, WaitTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	t.Run("Suite", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store { return open(t, testenv.Prefix(t, primary), patient) })
	})

	t.Run("Unconfirmed", func(t *testing.T) {
		ctx := t.Context()
		prefix := testenv.Prefix(t, primary)
		s := open(t, prefix, patient)
		q := open(t, prefix, quick) // the same tables, waiting less
		created := store.Table{ID: "w1", Config: []byte("cfg"), State: []byte("s0"), CreatedAt: time.UnixMilli(1_700_000_000_000)}
		if err := s.Create(ctx, created, store.Entry{Data: []byte("created")}); err != nil {
			t.Fatal(err)
		}
		actOn := func(s *store.Redis, from uint64, id string) error {
			return s.Commit(ctx, store.Commit{TableID: "w1", From: from, State: []byte("s-" + id),
				Entry: store.Entry{ActionID: id, Data: []byte("entry-" + id)}, Sequence: from + 1, Retain: time.Hour})
		}
		if err := actOn(s, 0, "a1"); err != nil {
			t.Fatalf("commit with the replica attached: %v", err)
		}
		if v := version(t, replica, s, "w1"); v != 1 {
			t.Fatalf("the replica has version %d after a confirmed commit, want 1", v)
		}

		// The replica leaves: nothing the primary writes now reaches a replica.
		if err := replica.ReplicaOf(ctx, "no", "one").Err(); err != nil {
			t.Fatal(err)
		}
		err := actOn(q, 1, "a2")
		if !errors.Is(err, store.ErrUnconfirmed) || !store.Unavailable(err) {
			t.Fatalf("commit with no replica: %v, want ErrUnconfirmed (unavailable)", err)
		}
		// It went through on the primary only; its retry is refused the same way, as is a create
		// retried there.
		if err := actOn(q, 1, "a2"); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("commit retried: %v, want ErrDuplicate (the load that follows answers it)", err)
		}
		if _, _, err := q.Load(ctx, "w1", "a2"); !errors.Is(err, store.ErrUnconfirmed) {
			t.Fatalf("retry's load with no replica: %v, want ErrUnconfirmed", err)
		}
		if err := q.Create(ctx, created, store.Entry{Data: []byte("created")}); !errors.Is(err, store.ErrUnconfirmed) {
			t.Fatalf("create retried with no replica: %v, want ErrUnconfirmed", err)
		}
		// Nor is the table confirmed for the outbox sweeper, which would publish a2's events.
		tb, _, err := q.Load(ctx, "w1", "")
		if err != nil || tb.Version != 2 {
			t.Fatalf("load with no replica: version %d, %v; want 2 (on the primary)", tb.Version, err)
		}
		if err := q.Confirm(ctx, "w1", tb.Token); !errors.Is(err, store.ErrUnconfirmed) {
			t.Fatalf("confirm with no replica: %v, want ErrUnconfirmed", err)
		}
		// A refused commit or read writes nothing more than the action: a conflict stands as it is.
		if err := actOn(q, 0, "a3"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("stale commit with no replica: %v, want ErrConflict", err)
		}

		// The replica comes back and copies the primary: the retry is answered from the log.
		host, port := splitAddr(pair.Addrs[0])
		if err := replica.ReplicaOf(ctx, host, port).Err(); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := pair.UntilReplicated(wctx); err != nil {
			t.Fatal(err)
		}
		tb, prior, err := s.Load(ctx, "w1", "a2")
		if err != nil || prior == nil || prior.Version != 2 || string(prior.Data) != "entry-a2" || tb.Version != 2 {
			t.Fatalf("retry's load with the replica back: %+v %+v %v, want version 2 and a2's entry", tb, prior, err)
		}
		if v := version(t, replica, s, "w1"); v != 2 {
			t.Fatalf("the replica has version %d after the retry was answered, want 2", v)
		}
		if err := s.Confirm(ctx, "w1", tb.Token); err != nil {
			t.Fatalf("confirm with the replica back: %v", err)
		}
		if err := s.Confirm(ctx, "w1", tb.Token+1); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("confirm of another write: %v, want ErrConflict", err)
		}
		if err := s.Confirm(ctx, "nope", 1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("confirm of no table: %v, want ErrNotFound", err)
		}
		if err := s.Create(ctx, created, store.Entry{Data: []byte("created")}); !errors.Is(err, store.ErrExists) {
			t.Fatalf("create retried with the replica back: %v, want ErrExists", err)
		}
	})
}

// version reads table id's version on node (the replica), where s keeps it.
func version(t *testing.T, node *redis.Client, s *store.Redis, id string) int {
	t.Helper()
	ctx := t.Context()
	keys, err := node.Keys(ctx, "*t:"+id).Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("table %s on %s: keys %v, %v", id, node.Options().Addr, keys, err)
	}
	v, err := node.HGet(ctx, keys[0], "v").Int()
	if err != nil {
		t.Fatalf("table %s's version on %s: %v", id, node.Options().Addr, err)
	}
	return v
}

func splitAddr(a string) (string, string) {
	for i := len(a) - 1; i >= 0; i-- {
		if a[i] == ':' {
			return a[:i], a[i+1:]
		}
	}
	return a, ""
}
