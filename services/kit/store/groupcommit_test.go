package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"cardroom.dev/services/kit/store"
	"cardroom.dev/services/kit/testenv"
)

// TestRedisGroupCommit has 96 writers commit to 32 tables at once, so that commits go to Redis in
// shared pipelines: every commit gets its own answer (applied, or a conflict it retries), every
// table's log ends gap-free with each action once, and a commit whose caller gave up before it was
// sent is not applied. Midway the server forgets its scripts (SCRIPT FLUSH, as after a restart):
// the commits of that moment are sent again after the script is loaded.
func TestRedisGroupCommit(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := t.Context()
	s, err := store.NewRedis(ctx, rdb, testenv.Prefix(t, rdb))
	if err != nil {
		t.Fatal(err)
	}
	const tables, writers, actions = 32, 96, 40
	for i := range tables {
		if err := s.Create(ctx, store.Table{ID: fmt.Sprint("g", i), State: []byte("s"), CreatedAt: time.Now()}, store.Entry{Data: []byte("created")}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	flushed := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprint("g", w%tables)
			for a := range actions {
				if w == 0 && a == actions/2 {
					if err := rdb.ScriptFlush(ctx).Err(); err != nil {
						errs <- err
						return
					}
					close(flushed)
				}
				action := fmt.Sprint("w", w, "-", a)
				for {
					tb, prior, err := s.Load(ctx, id, action)
					if err != nil {
						// The load script is flushed too; the store loads it again.
						errs <- fmt.Errorf("load %s: %w", id, err)
						return
					}
					if prior != nil {
						break
					}
					err = s.Commit(ctx, store.Commit{TableID: id, From: tb.Version, State: []byte("s"), Sequence: tb.Version + 1,
						Entry: store.Entry{ActionID: action, Data: fmt.Appendf(nil, "%d:%s", tb.Version+1, action)}, Retain: time.Hour})
					if err == nil || errors.Is(err, store.ErrDuplicate) {
						break
					}
					if !errors.Is(err, store.ErrConflict) {
						errs <- fmt.Errorf("commit %s: %w", action, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	<-flushed
	for i := range tables {
		id := fmt.Sprint("g", i)
		log, err := s.Log(ctx, id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := writers / tables * actions; len(log) != want {
			t.Fatalf("%s: %d entries, want %d", id, len(log), want)
		}
		seen := map[string]bool{}
		for j, e := range log {
			var v uint64
			var action string
			if _, err := fmt.Sscanf(string(e.Data), "%d:%s", &v, &action); err != nil || v != uint64(j+1) || seen[action] {
				t.Fatalf("%s entry %d: %q (out of order or twice)", id, j, e.Data)
			}
			seen[action] = true
		}
	}

	// A commit whose context has ended is refused with the context's error and not applied.
	tb, _, err := s.Load(ctx, "g0", "")
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	err = s.Commit(gone, store.Commit{TableID: "g0", From: tb.Version, State: []byte("s"), Sequence: tb.Version + 1,
		Entry: store.Entry{ActionID: "late", Data: []byte("late")}, Retain: time.Hour})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("commit with an ended context: %v, want %v", err, context.Canceled)
	}
	if after, _, err := s.Load(ctx, "g0", ""); err != nil || after.Version != tb.Version {
		t.Fatalf("after the refused commit: version %d (%v), want %d", after.Version, err, tb.Version)
	}
}
