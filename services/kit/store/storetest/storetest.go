// Package storetest is the conformance suite every table store passes.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"cardroom.dev/services/kit/store"
)

// Run runs the suite against fresh stores made by newStore. Stores may share a backend between
// subtests: table ids are unique per subtest.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateLoad", testCreateLoad},
		{"CommitAndLog", testCommitAndLog},
		{"Conflict", testConflict},
		{"IdempotentRetry", testIdempotentRetry},
		{"ExpectToken", testExpectToken},
		{"ConcurrentWriters", testConcurrentWriters},
		{"DeadlineClaims", testDeadlineClaims},
		{"Outbox", testOutbox},
		{"OutboxBatch", testOutboxBatch},
		{"FinishedExpire", testFinishedExpire},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func newTable(t *testing.T, s store.Store, id string) store.Table {
	t.Helper()
	tb := store.Table{ID: id, Config: []byte("cfg-" + id), State: []byte("s0"), CreatedAt: time.UnixMilli(1_700_000_000_000)}
	if err := s.Create(t.Context(), tb, store.Entry{Data: []byte("created")}); err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	return tb
}

func commit(ctx context.Context, s store.Store, id string, from uint64, actionID string) error {
	return s.Commit(ctx, store.Commit{
		TableID: id, From: from, State: fmt.Appendf(nil, "s%d", from+1),
		Entry:    store.Entry{ActionID: actionID, Data: fmt.Appendf(nil, "entry-%d-%s", from+1, actionID)},
		Sequence: from + 1, Retain: time.Hour,
	})
}

func testCreateLoad(t *testing.T, s store.Store) {
	ctx := t.Context()
	if _, _, err := s.Load(ctx, "missing", ""); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("load missing: %v, want ErrNotFound", err)
	}
	tb := newTable(t, s, "t1")
	if err := s.Create(ctx, tb, store.Entry{}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second create: %v, want ErrExists", err)
	}
	got, prior, err := s.Load(ctx, "t1", "nope")
	if err != nil || prior != nil {
		t.Fatalf("load: %v %v", err, prior)
	}
	if string(got.Config) != "cfg-t1" || string(got.State) != "s0" || got.Version != 0 || got.Finished ||
		!got.CreatedAt.Equal(tb.CreatedAt) {
		t.Fatalf("loaded %+v", got)
	}
	log, err := s.Log(ctx, "t1", 0)
	if err != nil || len(log) != 1 || string(log[0].Data) != "created" || log[0].Version != 0 {
		t.Fatalf("log: %v %+v", err, log)
	}
	if _, err := s.Log(ctx, "missing", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("log of missing: %v", err)
	}
	if err := commit(ctx, s, "missing", 0, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("commit to missing: %v", err)
	}
}

func testCommitAndLog(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "t1")
	for v := range uint64(5) {
		if err := commit(ctx, s, "t1", v, fmt.Sprint("a", v)); err != nil {
			t.Fatalf("commit %d: %v", v, err)
		}
	}
	got, _, err := s.Load(ctx, "t1", "")
	if err != nil || got.Version != 5 || string(got.State) != "s5" || got.Sequence != 5 {
		t.Fatalf("after commits: %v %+v", err, got)
	}
	log, err := s.Log(ctx, "t1", 3)
	if err != nil || len(log) != 3 {
		t.Fatalf("log from 3: %v %d entries", err, len(log))
	}
	for i, e := range log {
		if e.Version != uint64(3+i) || string(e.Data) != fmt.Sprintf("entry-%d-a%d", 3+i, 2+i) {
			t.Fatalf("entry %d: %+v (%s)", i, e, e.Data)
		}
	}
	if log, err := s.Log(ctx, "t1", 9); err != nil || len(log) != 0 {
		t.Fatalf("log past the end: %v %v", err, log)
	}
}

func testConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "t1")
	if err := commit(ctx, s, "t1", 0, "a"); err != nil {
		t.Fatal(err)
	}
	if err := commit(ctx, s, "t1", 0, "b"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale commit: %v, want ErrConflict", err)
	}
	got, prior, err := s.Load(ctx, "t1", "b")
	if err != nil || got.Version != 1 || prior != nil || string(got.State) != "s1" {
		t.Fatalf("a conflicting commit wrote something: %v %+v %v", err, got, prior)
	}
	if log, _ := s.Log(ctx, "t1", 0); len(log) != 2 {
		t.Fatalf("log has %d entries, want 2", len(log))
	}
}

func testIdempotentRetry(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "t1")
	if err := commit(ctx, s, "t1", 0, "act-1"); err != nil {
		t.Fatal(err)
	}
	// The same action id again, whether computed from the old or the new version, writes nothing.
	for _, from := range []uint64{0, 1} {
		if err := commit(ctx, s, "t1", from, "act-1"); !errors.Is(err, store.ErrDuplicate) {
			t.Fatalf("retry from %d: %v, want ErrDuplicate", from, err)
		}
	}
	got, prior, err := s.Load(ctx, "t1", "act-1")
	if err != nil || prior == nil || prior.Version != 1 || string(prior.Data) != "entry-1-act-1" || got.Version != 1 {
		t.Fatalf("load with action id: %v %+v %+v", err, got, prior)
	}
}

// testExpectToken checks the write tokens: Create and Commit set the table's token, Load returns it
// (all 64 bits), and a commit that expects another token is refused as a conflict even at the
// right version, writing nothing; one that expects none is not checked.
func testExpectToken(t *testing.T, s store.Store) {
	ctx := t.Context()
	const created, first, second = 1<<64 - 3, 1<<63 + 1, 42
	tb := store.Table{ID: "t1", Config: []byte("cfg"), State: []byte("s0"), Token: created}
	if err := s.Create(ctx, tb, store.Entry{Data: []byte("created")}); err != nil {
		t.Fatal(err)
	}
	if got, _, err := s.Load(ctx, "t1", ""); err != nil || got.Token != created {
		t.Fatalf("token after create: %v %d, want %d", err, got.Token, uint64(created))
	}
	write := func(from, token, expect uint64, actionID string) error {
		return s.Commit(ctx, store.Commit{
			TableID: "t1", From: from, State: fmt.Appendf(nil, "s%d", from+1),
			Entry:    store.Entry{ActionID: actionID, Data: []byte("e-" + actionID)},
			Sequence: from + 1, Retain: time.Hour, Token: token, Expect: expect,
		})
	}
	if err := write(0, first, created-1, "a"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("commit expecting another token: %v, want ErrConflict", err)
	}
	if got, prior, err := s.Load(ctx, "t1", "a"); err != nil || got.Version != 0 || prior != nil || got.Token != created {
		t.Fatalf("a refused commit wrote something: %v %+v %v", err, got, prior)
	}
	if err := write(0, first, created, "a"); err != nil {
		t.Fatalf("commit expecting the token: %v", err)
	}
	if got, _, err := s.Load(ctx, "t1", ""); err != nil || got.Version != 1 || got.Token != first {
		t.Fatalf("after the commit: %v %+v", err, got)
	}
	// Expecting nothing checks nothing; the right token at the wrong version is still a conflict.
	if err := write(1, second, 0, "b"); err != nil {
		t.Fatalf("commit expecting no token: %v", err)
	}
	if err := write(1, 7, second, "c"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale version with the current token: %v, want ErrConflict", err)
	}
	if got, _, err := s.Load(ctx, "t1", ""); err != nil || got.Version != 2 || got.Token != second {
		t.Fatalf("after expecting none: %v %+v", err, got)
	}
}

// testConcurrentWriters has 64 writers race on one table, each retrying on conflict until its
// action lands: every action is applied exactly once, in a gap-free log.
func testConcurrentWriters(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "t1")
	const writers = 64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprint("w", w)
			for {
				tb, prior, err := s.Load(ctx, "t1", id)
				if err != nil {
					errs <- err
					return
				}
				if prior != nil {
					return
				}
				err = commit(ctx, s, "t1", tb.Version, id)
				if err == nil || errors.Is(err, store.ErrDuplicate) {
					return
				}
				if !errors.Is(err, store.ErrConflict) {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	log, err := s.Log(ctx, "t1", 1)
	if err != nil || len(log) != writers {
		t.Fatalf("log: %v, %d entries, want %d", err, len(log), writers)
	}
	seen := map[string]bool{}
	for i, e := range log {
		if e.Version != uint64(i+1) {
			t.Fatalf("entry %d has version %d", i, e.Version)
		}
		var v uint64
		var id string
		if _, err := fmt.Sscanf(string(e.Data), "entry-%d-%s", &v, &id); err != nil || v != e.Version || seen[id] {
			t.Fatalf("entry %d: %q (duplicate or out of order)", i, e.Data)
		}
		seen[id] = true
	}
}

// testDeadlineClaims has competing replicas claim due deadlines: each due table goes to exactly one
// of them, a future deadline to none, and a claim not followed by a commit comes back after its lease.
func testDeadlineClaims(t *testing.T, s store.Store) {
	ctx := t.Context()
	now := time.Now()
	const tables = 40
	for i := range tables {
		id := fmt.Sprint("d", i)
		newTable(t, s, id)
		dl := now.Add(-time.Duration(i+1) * time.Millisecond)
		if i%4 == 3 {
			dl = now.Add(time.Hour) // not due
		}
		if err := s.Commit(ctx, store.Commit{TableID: id, From: 0, State: []byte("s"), Entry: store.Entry{Data: []byte("e")},
			Deadline: dl, Retain: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ids, _, err := s.ClaimDue(ctx, now, time.Minute, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ids) == 0 {
					return
				}
				mu.Lock()
				for _, id := range ids {
					claimed[id]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claimed) != tables*3/4 {
		t.Fatalf("claimed %d tables, want %d", len(claimed), tables*3/4)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Fatalf("table %s claimed %d times", id, n)
		}
	}
	// The earliest deadline left: the claimed tables', at the end of their lease (to the
	// millisecond, which is what the stores keep).
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	if ids, next, err := s.ClaimDue(ctx, now, time.Minute, 3); err != nil || len(ids) != 0 || ms(next) != ms(now.Add(time.Minute)) {
		t.Fatalf("claim with nothing due: %v %v, next %v; want none, next %v", err, ids, next, now.Add(time.Minute))
	}
	// Lease over without a commit: the tables are due again.
	again, next, err := s.ClaimDue(ctx, now.Add(2*time.Minute), time.Minute, 100)
	if err != nil || len(again) != tables*3/4 {
		t.Fatalf("after the lease: %v, %d tables", err, len(again))
	}
	if ms(next) != ms(now.Add(3*time.Minute)) {
		t.Fatalf("next deadline %v after claiming again, want %v", next, now.Add(3*time.Minute))
	}
	// A commit that clears the deadline takes the table out of the index.
	tb, _, _ := s.Load(ctx, again[0], "")
	if tb.Deadline.IsZero() {
		t.Fatalf("table %s lost its deadline", again[0])
	}
	if err := s.Commit(ctx, store.Commit{TableID: again[0], From: tb.Version, State: []byte("s"), Entry: store.Entry{Data: []byte("e")}, Retain: time.Hour}); err != nil {
		t.Fatal(err)
	}
	left, _, err := s.ClaimDue(ctx, now.Add(4*time.Minute), time.Minute, 100)
	if err != nil || len(left) != tables*3/4-1 || slices.Contains(left, again[0]) {
		t.Fatalf("after clearing one deadline: %v %v", err, left)
	}
}

func testOutbox(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "o1")
	newTable(t, s, "o2")
	for _, id := range []string{"o1", "o2"} {
		if err := commit(ctx, s, id, 0, "a"); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(time.Minute)
	pending, err := s.Unpublished(ctx, later, 10)
	if err != nil || !slices.Contains(pending, "o1") || !slices.Contains(pending, "o2") {
		t.Fatalf("unpublished: %v %v", err, pending)
	}
	if p, _ := s.Unpublished(ctx, time.Now().Add(-time.Hour), 10); len(p) != 0 {
		t.Fatalf("unpublished before the commits: %v", p)
	}
	if err := s.MarkPublished(ctx, []store.Mark{{TableID: "o1", Sequence: 1}, {TableID: "o2", Sequence: 0}, {TableID: "gone", Sequence: 3}}); err != nil {
		t.Fatal(err)
	}
	pending, _ = s.Unpublished(ctx, later, 10)
	if slices.Contains(pending, "o1") || !slices.Contains(pending, "o2") {
		t.Fatalf("after marking o1: %v", pending)
	}
	tb, _, _ := s.Load(ctx, "o1", "")
	if tb.Published != 1 {
		t.Fatalf("o1 published = %d", tb.Published)
	}

	// o2's events 1 (version 1) and 2 (version 2): the publication of 2 is confirmed, that of 1
	// is not. The mark for 2 alone must not count 1 as published.
	if err := commit(ctx, s, "o2", 1, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkPublished(ctx, []store.Mark{{TableID: "o2", From: 2, Sequence: 2}}); err != nil {
		t.Fatal(err)
	}
	if tb, _, _ := s.Load(ctx, "o2", ""); tb.Published != 0 {
		t.Fatalf("a mark above an unconfirmed event moved published to %d", tb.Published)
	}
	if pending, _ = s.Unpublished(ctx, later, 10); !slices.Contains(pending, "o2") {
		t.Fatalf("o2 left the outbox with event 1 unconfirmed: %v", pending)
	}
	// Confirmations in order: 1, then 2.
	if err := s.MarkPublished(ctx, []store.Mark{{TableID: "o2", From: 1, Sequence: 1}, {TableID: "o2", From: 2, Sequence: 2}}); err != nil {
		t.Fatal(err)
	}
	if tb, _, _ := s.Load(ctx, "o2", ""); tb.Published != 2 {
		t.Fatalf("o2 published = %d after marks 1 and 2", tb.Published)
	}
	if pending, _ = s.Unpublished(ctx, later, 10); slices.Contains(pending, "o2") {
		t.Fatalf("o2 still in the outbox: %v", pending)
	}
}

// testOutboxBatch marks many tables (over every shard of a sharded store) in one call, several
// marks per table, interleaved with other tables' marks: each table's marks count in the order
// given, whatever the other tables' marks.
func testOutboxBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	const tables = 48
	id := func(i int) string { return fmt.Sprintf("ob%d", i) }
	for i := range tables {
		newTable(t, s, id(i))
		for v := range uint64(2) {
			if err := commit(ctx, s, id(i), v, fmt.Sprint("a", v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Per table, by i%4: events 1 then 2 confirmed (published 2); 2 then 1 (the mark for 2 comes
	// first and does not count: published 1); 2 alone (published 0); everything from the start
	// (published 2).
	plans := [4][]store.Mark{
		{{From: 1, Sequence: 1}, {From: 2, Sequence: 2}},
		{{From: 2, Sequence: 2}, {From: 1, Sequence: 1}},
		{{From: 2, Sequence: 2}},
		{{From: 0, Sequence: 2}},
	}
	want := [4]uint64{2, 1, 0, 2}
	var marks []store.Mark
	for round := range 2 {
		for i := range tables {
			if plan := plans[i%4]; round < len(plan) {
				m := plan[round]
				m.TableID = id(i)
				marks = append(marks, m)
			}
		}
		marks = append(marks, store.Mark{TableID: "ob-gone", From: 1, Sequence: 1})
	}
	if err := s.MarkPublished(ctx, marks); err != nil {
		t.Fatal(err)
	}
	pending, err := s.Unpublished(ctx, time.Now().Add(time.Minute), 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tables {
		tb, _, err := s.Load(ctx, id(i), "")
		if err != nil {
			t.Fatal(err)
		}
		if tb.Published != want[i%4] {
			t.Errorf("%s: published %d, want %d", id(i), tb.Published, want[i%4])
		}
		if in := slices.Contains(pending, id(i)); in != (want[i%4] < 2) {
			t.Errorf("%s: in the outbox %v with published %d of 2", id(i), in, tb.Published)
		}
	}
	if len(pending) != tables/2 {
		t.Errorf("outbox holds %d tables, want %d: %v", len(pending), tables/2, pending)
	}
}

func testFinishedExpire(t *testing.T, s store.Store) {
	ctx := t.Context()
	newTable(t, s, "f1")
	if err := s.Commit(ctx, store.Commit{TableID: "f1", From: 0, State: []byte("end"), Entry: store.Entry{Data: []byte("e")},
		Deadline: time.Now().Add(time.Hour), Finished: true, Retain: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	tb, _, err := s.Load(ctx, "f1", "")
	if err != nil || !tb.Finished {
		t.Fatalf("finished table right after: %v %+v", err, tb)
	}
	if ids, _, _ := s.ClaimDue(ctx, time.Now().Add(2*time.Hour), time.Minute, 10); slices.Contains(ids, "f1") {
		t.Fatal("a finished table kept its deadline")
	}
	// Wait for the expiry itself, bounded.
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, _, err := s.Load(ctx, "f1", ""); errors.Is(err, store.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("finished table did not expire")
		}
		<-tick.C
	}
	if _, err := s.Log(ctx, "f1", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("log after expiry: %v", err)
	}
}
