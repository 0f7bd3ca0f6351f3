// Package lobbytest is the conformance suite every lobby store passes.
package lobbytest

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway/lobby"
)

// Run runs the suite against stores made by newStore. Stores may share a backend: ids and pools
// are unique per subtest.
func Run(t *testing.T, newStore func(t *testing.T) lobby.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s lobby.Store)
	}{
		{"Tables", testTables},
		{"TableLoadsAreCopies", testLoadsAreCopies},
		{"TableConcurrentJoins", testConcurrentJoins},
		{"TableRequestIDs", testRequestIDs},
		{"TableRequestIDsConcurrent", testRequestIDsConcurrent},
		{"TableRequestIDsBounded", testRequestIDsBounded},
		{"TableExpiry", testTableExpiry},
		{"CreateOnce", testCreateOnce},
		{"Tickets", testTickets},
		{"MatchFull", testMatchFull},
		{"MatchAfterWait", testMatchAfterWait},
		{"MatchParties", testMatchParties},
		{"MatchConcurrentClaims", testConcurrentClaims},
		{"Presence", testPresence},
		{"Drive", testDrive},
		{"DriveMany", testDriveMany},
		{"OwnedSet", testOwnedSet},
		{"MatchOwned", testMatchOwned},
		{"Listing", testListing},
		{"ListingExpiry", testListingExpiry},
		{"TablesOf", testTablesOf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func uid() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var t0 = time.UnixMilli(1_800_000_000_000)

// testLoadsAreCopies: a loaded table is the caller's to change; changing it in place (as a
// read-modify-write does before its write) changes nothing another load returns.
func testLoadsAreCopies(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	tb := lobby.Table{ID: id, Game: "g", Owner: "p1", State: lobby.TableStarting, Capacity: 2,
		Players: []lobby.Player{{ID: "p1", Name: "Ann"}, {ID: "p2", Name: "Bob"}},
		Seats:   []lobby.Player{{ID: "p2", Name: "Bob"}, {ID: "p1", Name: "Ann"}},
		Options: []byte{1, 2}, Tickets: []string{"k1", "k2"}, Refusal: []byte{3},
		Requests: []lobby.Request{{ID: "r1", Call: "AddBots:1"}}, CreatedAt: t0}
	if err := s.CreateTable(ctx, tb, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		got, err := s.LoadTable(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := tb
		want.Version = got.Version
		if got.CreatedAt.Equal(want.CreatedAt) {
			want.CreatedAt = got.CreatedAt // the same instant, maybe in another location
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("load %d: %+v, want %+v", i, got, want)
		}
		got.Players[0].Name, got.Seats[1].Level, got.Options[0], got.Tickets[0] = "Eve", 3, 9, "kx"
		got.Refusal[0], got.Requests[0].Call = 7, "Leave"
		_ = append(got.Players[:1], lobby.Player{ID: "p9"})
	}
}

func testTables(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id, code := "t"+uid(), "C"+uid()
	if _, err := s.LoadTable(ctx, id); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("load missing: %v", err)
	}
	tb := lobby.Table{ID: id, Game: "g", Owner: "p1", State: lobby.TableOpen, Capacity: 4, InviteCode: code,
		Players: []lobby.Player{{ID: "p1", Name: "Ann"}}, Options: []byte{1, 2}, PerAction: time.Second, CreatedAt: t0}
	if err := s.CreateTable(ctx, tb, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx, tb, 0); !errors.Is(err, lobby.ErrExists) {
		t.Fatalf("create twice: %v", err)
	}
	other := tb
	other.ID = "t" + uid()
	if err := s.CreateTable(ctx, other, 0); !errors.Is(err, lobby.ErrExists) {
		t.Fatalf("code reused: %v", err)
	}
	if got, err := s.TableByCode(ctx, code); err != nil || got != id {
		t.Fatalf("by code: %q %v", got, err)
	}
	if _, err := s.TableByCode(ctx, "nope"+uid()); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("unknown code: %v", err)
	}
	got, err := s.LoadTable(ctx, id)
	if err != nil || got.Game != "g" || len(got.Players) != 1 || got.PerAction != time.Second || !got.CreatedAt.Equal(t0) {
		t.Fatalf("load: %+v %v", got, err)
	}
	got.Players = append(got.Players, lobby.Player{ID: "p2", Name: "Bob"})
	stale := got
	if err := s.UpdateTable(ctx, got, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateTable(ctx, stale, 0); !errors.Is(err, lobby.ErrConflict) {
		t.Fatalf("stale update: %v", err)
	}
	got, _ = s.LoadTable(ctx, id)
	if len(got.Players) != 2 || got.Version != stale.Version+1 {
		t.Fatalf("after update: %+v", got)
	}
	missing := got
	missing.ID = "t" + uid()
	if err := s.UpdateTable(ctx, missing, 0); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("update missing: %v", err)
	}
}

func testConcurrentJoins(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id, Game: "g", State: lobby.TableOpen, Capacity: 32}, 0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				tb, err := s.LoadTable(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				tb.Players = append(tb.Players, lobby.Player{ID: fmt.Sprint("p", i)})
				err = s.UpdateTable(ctx, tb, 0)
				if errors.Is(err, lobby.ErrConflict) {
					continue
				}
				if err != nil {
					t.Error(err)
				}
				return
			}
		}()
	}
	wg.Wait()
	tb, _ := s.LoadTable(ctx, id)
	if len(tb.Players) != 16 || tb.Version != 17 {
		t.Fatalf("%d players at version %d, want 16 at 17", len(tb.Players), tb.Version)
	}
}

var errReused = errors.New("request id reused for another call")

// addBots is what the gateway's AddBots does with a request id: the bots and the id written in one
// compare-and-set, nothing written when the table already has the id. applied is false when the id
// was found.
func addBots(t *testing.T, s lobby.Store, id, requestID string, n int) (tb lobby.Table, applied bool, err error) {
	t.Helper()
	call := fmt.Sprint("AddBots:", n)
	for {
		tb, err = s.LoadTable(t.Context(), id)
		if err != nil {
			return tb, false, err
		}
		if r, ok := tb.Request(requestID); ok {
			if r.Call != call {
				return tb, false, errReused
			}
			return tb, false, nil
		}
		for i := range n {
			tb.Players = append(tb.Players, lobby.Player{ID: fmt.Sprintf("bot-%s-%d", uid(), i), Bot: true})
		}
		tb.Remember(lobby.Request{ID: requestID, Call: call})
		err = s.UpdateTable(t.Context(), tb, 0)
		if errors.Is(err, lobby.ErrConflict) {
			continue
		}
		if err != nil {
			return tb, false, err
		}
		tb.Version++
		return tb, true, nil
	}
}

func bots(tb lobby.Table) int {
	n := 0
	for _, p := range tb.Players {
		if p.Bot {
			n++
		}
	}
	return n
}

// testRequestIDs: a change made under a request id is stored with it; the same id again finds it
// (and the change), another id changes the table again.
func testRequestIDs(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id, Game: "g", Owner: "p1", State: lobby.TableOpen, Capacity: 8,
		Players: []lobby.Player{{ID: "p1"}}}, 0); err != nil {
		t.Fatal(err)
	}
	first, applied, err := addBots(t, s, id, "r1", 2)
	if err != nil || !applied || bots(first) != 2 {
		t.Fatalf("first call: applied %v, %d bots, %v", applied, bots(first), err)
	}
	again, applied, err := addBots(t, s, id, "r1", 2)
	if err != nil || applied {
		t.Fatalf("same id again: applied %v, %v", applied, err)
	}
	if again.Version != first.Version || !slices.Equal(again.Players, first.Players) || !slices.Equal(again.Requests, first.Requests) {
		t.Fatalf("same id again: %+v, want the first answer %+v", again, first)
	}
	if _, _, err := addBots(t, s, id, "r1", 3); !errors.Is(err, errReused) {
		t.Fatalf("same id, another count: %v", err)
	}
	other, applied, err := addBots(t, s, id, "r2", 2)
	if err != nil || !applied || bots(other) != 4 || other.Version != first.Version+1 {
		t.Fatalf("another id: applied %v, %d bots at version %d, %v", applied, bots(other), other.Version, err)
	}
	got, err := s.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := []lobby.Request{{ID: "r1", Call: "AddBots:2"}, {ID: "r2", Call: "AddBots:2"}}
	if !slices.Equal(got.Requests, want) || bots(got) != 4 {
		t.Fatalf("stored: requests %v, %d bots; want %v, 4", got.Requests, bots(got), want)
	}
}

// testRequestIDsConcurrent: retries of one request racing each other (on any replica) apply it once.
func testRequestIDsConcurrent(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id, Game: "g", State: lobby.TableOpen, Capacity: 64}, 0); err != nil {
		t.Fatal(err)
	}
	var (
		wg      sync.WaitGroup
		applied atomic.Int32
	)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := addBots(t, s, id, "same", 3)
			if err != nil {
				t.Error(err)
			}
			if ok {
				applied.Add(1)
			}
		}()
	}
	wg.Wait()
	tb, err := s.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if applied.Load() != 1 || bots(tb) != 3 || tb.Version != 2 {
		t.Fatalf("applied %d times, %d bots at version %d; want once, 3 at 2", applied.Load(), bots(tb), tb.Version)
	}
}

// testRequestIDsBounded: a table remembers the latest lobby.MaxRequests ids, oldest forgotten.
func testRequestIDsBounded(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id, Game: "g", State: lobby.TableOpen, Capacity: 1000}, 0); err != nil {
		t.Fatal(err)
	}
	n := lobby.MaxRequests + 6
	for i := range n {
		if _, applied, err := addBots(t, s, id, fmt.Sprint("r", i), 1); err != nil || !applied {
			t.Fatalf("request %d: applied %v, %v", i, applied, err)
		}
	}
	tb, err := s.LoadTable(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Requests) != lobby.MaxRequests || tb.Requests[0].ID != fmt.Sprint("r", n-lobby.MaxRequests) ||
		tb.Requests[len(tb.Requests)-1].ID != fmt.Sprint("r", n-1) {
		t.Fatalf("%d requests kept, from %v to %v", len(tb.Requests), tb.Requests[0], tb.Requests[len(tb.Requests)-1])
	}
	if _, ok := tb.Request("r0"); ok {
		t.Fatal("the oldest request id is still remembered")
	}
	if _, ok := tb.Request(fmt.Sprint("r", n-1)); !ok {
		t.Fatal("the newest request id is forgotten")
	}
}

func ticket(pool string, size, lo, hi int, bots bool, queued time.Time, wait time.Duration) lobby.Ticket {
	id := "k" + uid()
	tk := lobby.Ticket{ID: id, Pool: pool, Game: "g", PartySize: size, MinSeats: lo, MaxSeats: hi, BotsMayFill: bots,
		MaxWait: wait, CreatedAt: queued, QueuedAt: queued, State: lobby.TicketQueued}
	for i := range size {
		tk.Players = append(tk.Players, lobby.Player{ID: fmt.Sprintf("%s-%d", id, i)})
	}
	return tk
}

func create(t *testing.T, s lobby.Store, tks ...lobby.Ticket) []string {
	t.Helper()
	var ids []string
	for _, tk := range tks {
		if err := s.CreateTicket(t.Context(), tk); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.ID)
	}
	return ids
}

func testTickets(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool := "pool-" + uid()
	tk := ticket(pool, 2, 2, 4, false, t0, time.Minute)
	tk.State = lobby.TicketForming
	tk.Players = tk.Players[:1]
	create(t, s, tk)
	if err := s.CreateTicket(ctx, tk); !errors.Is(err, lobby.ErrExists) {
		t.Fatalf("create twice: %v", err)
	}
	if n, _ := s.Waiting(ctx, pool); n != 0 {
		t.Fatalf("forming ticket counted as waiting: %d", n)
	}
	got, err := s.LoadTicket(ctx, tk.ID)
	if err != nil || got.State != lobby.TicketForming || got.Version != 1 || len(got.Players) != 1 || got.MaxWait != time.Minute {
		t.Fatalf("load: %+v %v", got, err)
	}
	got.Players = append(got.Players, lobby.Player{ID: "friend"})
	got.State = lobby.TicketQueued
	if err := s.UpdateTicket(ctx, got, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateTicket(ctx, got, 0); !errors.Is(err, lobby.ErrConflict) {
		t.Fatalf("stale: %v", err)
	}
	if n, _ := s.Waiting(ctx, pool); n != 2 {
		t.Fatalf("waiting %d, want 2", n)
	}
	if ps, _ := s.Pools(ctx); !slices.Contains(ps, pool) {
		t.Fatalf("pools %v lack %s", ps, pool)
	}
	got, _ = s.LoadTicket(ctx, tk.ID)
	got.State = lobby.TicketCancelled
	if err := s.UpdateTicket(ctx, got, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Waiting(ctx, pool); n != 0 {
		t.Fatalf("cancelled ticket still waiting: %d", n)
	}
	if _, ok, err := s.ClaimMatch(ctx, pool, "x", t0.Add(time.Hour)); ok || err != nil {
		t.Fatalf("claimed a cancelled ticket: %v %v", ok, err)
	}
	if _, err := s.LoadTicket(ctx, "k"+uid()); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func matched(t *testing.T, s lobby.Store, ids []string, table string) {
	t.Helper()
	for _, id := range ids {
		tk, err := s.LoadTicket(t.Context(), id)
		if err != nil || tk.State != lobby.TicketMatched || tk.TableID != table {
			t.Fatalf("ticket %s: state %v table %q (%v), want matched to %s", id, tk.State, tk.TableID, err, table)
		}
	}
}

func testMatchFull(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool := "pool-" + uid()
	ids := create(t, s,
		ticket(pool, 1, 4, 4, false, t0, time.Minute),
		ticket(pool, 1, 2, 3, false, t0.Add(time.Millisecond), time.Minute), // cannot share a 4-seat table
		ticket(pool, 1, 3, 4, false, t0.Add(2*time.Millisecond), time.Minute),
		ticket(pool, 1, 4, 6, false, t0.Add(3*time.Millisecond), time.Minute))
	if _, ok, _ := s.ClaimMatch(ctx, pool, "tbl1", t0.Add(time.Second)); ok {
		t.Fatal("matched 3 players at a 4-seat table before the wait")
	}
	ids = append(ids, create(t, s, ticket(pool, 1, 1, 4, false, t0.Add(4*time.Millisecond), time.Minute))...)
	m, ok, err := s.ClaimMatch(ctx, pool, "tbl1", t0.Add(time.Second))
	if err != nil || !ok || m.Seats != 4 || !slices.Equal(m.Tickets, []string{ids[0], ids[2], ids[3], ids[4]}) {
		t.Fatalf("match %+v %v %v", m, ok, err)
	}
	matched(t, s, m.Tickets, "tbl1")
	if n, _ := s.Waiting(ctx, pool); n != 1 {
		t.Fatalf("waiting %d, want 1", n)
	}
}

func testMatchAfterWait(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool := "pool-" + uid()
	ids := create(t, s, ticket(pool, 1, 2, 4, false, t0, time.Minute), ticket(pool, 1, 2, 4, false, t0.Add(time.Second), time.Minute))
	if _, ok, _ := s.ClaimMatch(ctx, pool, "a", t0.Add(59*time.Second)); ok {
		t.Fatal("matched before the wait ran out")
	}
	m, ok, _ := s.ClaimMatch(ctx, pool, "a", t0.Add(time.Minute))
	if !ok || m.Seats != 2 || !slices.Equal(m.Tickets, ids) {
		t.Fatalf("after the wait: %+v %v, want tickets %v", m, ok, ids)
	}
	// Alone, without bots: never; with bots: the table's minimum, bots filling.
	pool2 := "pool-" + uid()
	create(t, s, ticket(pool2, 1, 3, 4, false, t0, time.Second))
	if _, ok, _ := s.ClaimMatch(ctx, pool2, "b", t0.Add(time.Hour)); ok {
		t.Fatal("a lone ticket without bots was matched")
	}
	pool3 := "pool-" + uid()
	ids = create(t, s, ticket(pool3, 1, 3, 4, true, t0, time.Second))
	m, ok, _ = s.ClaimMatch(ctx, pool3, "c", t0.Add(time.Second))
	if !ok || m.Seats != 3 || !slices.Equal(m.Tickets, ids) {
		t.Fatalf("bots fill: %+v %v", m, ok)
	}
	if ps, _ := s.Pools(ctx); slices.Contains(ps, pool3) || slices.Contains(ps, pool) {
		t.Fatalf("empty pools still listed: %v", ps)
	}
}

func testMatchParties(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool := "pool-" + uid()
	ids := create(t, s,
		ticket(pool, 3, 4, 4, false, t0, time.Minute),
		ticket(pool, 2, 4, 4, false, t0.Add(time.Millisecond), time.Minute), // does not fit beside the three
		ticket(pool, 1, 4, 4, false, t0.Add(2*time.Millisecond), time.Minute))
	m, ok, _ := s.ClaimMatch(ctx, pool, "p", t0)
	if !ok || m.Seats != 4 || !slices.Equal(m.Tickets, []string{ids[0], ids[2]}) {
		t.Fatalf("parties: %+v %v", m, ok)
	}
}

func testConcurrentClaims(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool := "pool-" + uid()
	var all []lobby.Ticket
	for i := range 40 {
		all = append(all, ticket(pool, 1, 4, 4, false, t0.Add(time.Duration(i)*time.Millisecond), time.Minute))
	}
	create(t, s, all...)
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				table := fmt.Sprintf("w%d-%d", w, i)
				m, ok, err := s.ClaimMatch(ctx, pool, table, t0)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				for _, id := range m.Tickets {
					if prev, dup := seen[id]; dup {
						t.Errorf("ticket %s matched to %s and %s", id, prev, table)
					}
					seen[id] = table
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Fatalf("%d tickets matched, want 40", len(seen))
	}
}

func testPresence(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id := "t" + uid()
	_ = s.Touch(ctx, id, 0, t0)
	_ = s.Touch(ctx, id, 2, t0.Add(time.Second))
	p, err := s.Presence(ctx, id)
	if err != nil || len(p) != 2 || !p[0].Equal(t0) || !p[2].Equal(t0.Add(time.Second)) {
		t.Fatalf("presence %v %v", p, err)
	}
}

func testDrive(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	a, b := "d"+uid(), "d"+uid()
	_ = s.AddDrive(ctx, a)
	_ = s.AddDrive(ctx, b)
	now := time.Now()
	got1, err := s.ClaimDrive(ctx, "r1", now, time.Second, 1000)
	if err != nil || !slices.Contains(got1, a) {
		// Other subtests may share the backend: claim until ours are in.
		t.Fatalf("claim: %v %v", got1, err)
	}
	got2, _ := s.ClaimDrive(ctx, "r2", now, time.Second, 1000)
	if slices.Contains(got2, a) || slices.Contains(got2, b) {
		t.Fatalf("r2 claimed r1's tables: %v", got2)
	}
	if kept, _ := s.RenewDrive(ctx, "r2", []string{a}, now, time.Second); len(kept) != 0 {
		t.Fatalf("r2 renewed r1's lease: %v", kept)
	}
	if kept, _ := s.RenewDrive(ctx, "r1", []string{a, b}, now, time.Second); len(kept) != 2 {
		t.Fatalf("r1 renewed %v", kept)
	}
	later := now.Add(2 * time.Second)
	got2, _ = s.ClaimDrive(ctx, "r2", later, time.Second, 1000)
	if !slices.Contains(got2, a) || !slices.Contains(got2, b) {
		t.Fatalf("expired leases not claimed: %v", got2)
	}
	if kept, _ := s.RenewDrive(ctx, "r1", []string{a}, later, time.Second); len(kept) != 0 {
		t.Fatalf("r1 kept a lost lease: %v", kept)
	}
	_ = s.DropDrive(ctx, a)
	if got, _ := s.ClaimDrive(ctx, "r3", later.Add(time.Hour), time.Second, 1000); slices.Contains(got, a) || !slices.Contains(got, b) {
		t.Fatalf("after drop: %v", got)
	}
}

// testDriveMany renews more tables than one renewal script takes: exactly the owner's tables still
// in the drive set are kept, in the order asked.
func testDriveMany(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	ids := make([]string, 2500)
	for i := range ids {
		ids[i] = "m" + uid()
		if err := s.AddDrive(ctx, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	claimed := map[string]bool{}
	for {
		got, err := s.ClaimDrive(ctx, "rm", now, time.Minute, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		for _, id := range got {
			claimed[id] = true
		}
	}
	for _, id := range ids {
		if !claimed[id] {
			t.Fatalf("table %s not claimed", id)
		}
	}
	if err := s.DropDrive(ctx, ids[1234]); err != nil {
		t.Fatal(err)
	}
	ask := append(slices.Clone(ids), "m"+uid()) // the last never added
	kept, err := s.RenewDrive(ctx, "rm", ask, now, time.Minute)
	if want := slices.Delete(slices.Clone(ids), 1234, 1235); err != nil || !slices.Equal(kept, want) {
		t.Fatalf("renewed %d of %d tables (want %d), err %v", len(kept), len(ask), len(want), err)
	}
	if kept, err := s.RenewDrive(ctx, "other", ids, now, time.Minute); err != nil || len(kept) != 0 {
		t.Fatalf("another replica renewed %d tables, err %v", len(kept), err)
	}
	// Renewed for a minute from now: nobody can claim them a second from now.
	if got, _ := s.ClaimDrive(ctx, "other", now.Add(time.Second), time.Minute, 5000); slices.ContainsFunc(got, func(id string) bool { return claimed[id] }) {
		t.Fatal("a renewed table was claimed by another replica")
	}
}

// waitFor polls cond until it holds or the deadline passes (expiry has no event to wait on).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func testTableExpiry(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	id, code := "t"+uid(), "C"+uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id, Game: "g", State: lobby.TableOpen, InviteCode: code}, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the table expires", func() bool {
		_, err := s.LoadTable(ctx, id)
		return errors.Is(err, lobby.ErrNotFound)
	})
	if _, err := s.TableByCode(ctx, code); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("code of an expired table: %v", err)
	}
	// UpdateTable sets a new expiry.
	id2 := "t" + uid()
	if err := s.CreateTable(ctx, lobby.Table{ID: id2, Game: "g"}, time.Hour); err != nil {
		t.Fatal(err)
	}
	tb, _ := s.LoadTable(ctx, id2)
	if err := s.UpdateTable(ctx, tb, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the updated table expires", func() bool {
		_, err := s.LoadTable(ctx, id2)
		return errors.Is(err, lobby.ErrNotFound)
	})
}

// claimed claims every free table of the owned set for owner at now and reports whether id was one.
func claimed(t *testing.T, s lobby.Store, owner, id string, now time.Time) bool {
	t.Helper()
	got, err := s.ClaimDrive(t.Context(), owner, now, time.Second, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(got, id)
}

// testOwnedSet: a table is in the owned set exactly while its state is owned (starting, dealt,
// closing), entering and leaving it in the write that changes the state; a write between owned
// states keeps its lease; a claim holds it until the lease runs out.
func testOwnedSet(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	now := time.Now()
	open := lobby.Table{ID: "t" + uid(), Game: "g", State: lobby.TableOpen, Capacity: 2}
	if err := s.CreateTable(ctx, open, 0); err != nil {
		t.Fatal(err)
	}
	if claimed(t, s, "r1", open.ID, now) {
		t.Fatal("an open table is in the owned set")
	}
	tb, _ := s.LoadTable(ctx, open.ID)
	tb.State, tb.Deadline = lobby.TableStarting, t0
	if err := s.UpdateTable(ctx, tb, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LoadTable(ctx, open.ID); got.State != lobby.TableStarting || !got.Deadline.Equal(t0) {
		t.Fatalf("starting table loaded as %+v", got)
	}
	if !claimed(t, s, "r1", open.ID, now) {
		t.Fatal("a starting table is not in the owned set")
	}
	// Dealt: still owned, and the lease stays r1's.
	tb, _ = s.LoadTable(ctx, open.ID)
	tb.State = lobby.TableDealt
	if err := s.UpdateTable(ctx, tb, 0); err != nil {
		t.Fatal(err)
	}
	if claimed(t, s, "r2", open.ID, now) {
		t.Fatal("a write between owned states freed the lease")
	}
	if kept, _ := s.RenewDrive(ctx, "r1", []string{open.ID}, now, time.Second); len(kept) != 1 {
		t.Fatalf("r1 lost its lease across the write: %v", kept)
	}
	if !claimed(t, s, "r2", open.ID, now.Add(2*time.Second)) {
		t.Fatal("an expired lease was not claimed")
	}
	// Finished: out of the set, the lease gone with it.
	tb, _ = s.LoadTable(ctx, open.ID)
	tb.State = lobby.TableFinished
	if err := s.UpdateTable(ctx, tb, 0); err != nil {
		t.Fatal(err)
	}
	if kept, _ := s.RenewDrive(ctx, "r2", []string{open.ID}, now, time.Second); len(kept) != 0 {
		t.Fatalf("a finished table's lease renewed: %v", kept)
	}
	if claimed(t, s, "r3", open.ID, now.Add(time.Hour)) {
		t.Fatal("a finished table is in the owned set")
	}
	// Created in an owned state (a matched table's record): in the set at once.
	starting := lobby.Table{ID: "t" + uid(), Game: "g", State: lobby.TableStarting, Capacity: 2, Tickets: []string{"k1", "k2"}}
	if err := s.CreateTable(ctx, starting, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.LoadTable(ctx, starting.ID); !slices.Equal(got.Tickets, starting.Tickets) {
		t.Fatalf("tickets %v, want %v", got.Tickets, starting.Tickets)
	}
	if !claimed(t, s, "r1", starting.ID, now) {
		t.Fatal("a table created starting is not in the owned set")
	}
}

// testMatchOwned: a claimed match is recorded for its table, and the table is in the owned set,
// free to claim, before any table record exists; DropDrive forgets both.
func testMatchOwned(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	pool, table := "pool-"+uid(), "m"+uid()
	ids := create(t, s, ticket(pool, 1, 2, 2, false, t0, time.Minute), ticket(pool, 1, 2, 2, false, t0.Add(time.Millisecond), time.Minute))
	if _, err := s.LoadMatch(ctx, table); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("match before the claim: %v", err)
	}
	if _, ok, err := s.ClaimMatch(ctx, pool, table, t0); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	m, err := s.LoadMatch(ctx, table)
	if err != nil || m.TableID != table || m.Seats != 2 || !slices.Equal(m.Tickets, ids) {
		t.Fatalf("match %+v %v", m, err)
	}
	if !claimed(t, s, "r1", table, time.Now()) {
		t.Fatal("a matched table is not in the owned set")
	}
	if err := s.DropDrive(ctx, table); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadMatch(ctx, table); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("match after DropDrive: %v", err)
	}
	if claimed(t, s, "r2", table, time.Now().Add(time.Hour)) {
		t.Fatal("a dropped table is in the owned set")
	}
}

// testCreateOnce: a table or ticket created under a request id is written with the id's record; the
// id again writes nothing and answers the record, whatever table or ticket comes with it.
func testCreateOnce(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	key := "p-" + uid() + ":req"
	a, b := lobby.Table{ID: "t" + uid(), Game: "g", State: lobby.TableOpen, Capacity: 2, InviteCode: "A" + uid()},
		lobby.Table{ID: "t" + uid(), Game: "g", State: lobby.TableOpen, Capacity: 2, InviteCode: "B" + uid()}
	if _, found, err := s.CreateTableOnce(ctx, a, time.Hour, lobby.Once{Key: key, Call: "c1", ID: a.ID}, time.Hour); err != nil || found {
		t.Fatalf("first: found %v, %v", found, err)
	}
	prior, found, err := s.CreateTableOnce(ctx, b, time.Hour, lobby.Once{Key: key, Call: "c2", ID: b.ID}, time.Hour)
	if err != nil || !found || prior.Call != "c1" || prior.ID != a.ID {
		t.Fatalf("again: %+v found %v, %v", prior, found, err)
	}
	if _, err := s.LoadTable(ctx, b.ID); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("the second table was written: %v", err)
	}
	// A taken id records nothing.
	other := "p-" + uid() + ":req"
	if _, _, err := s.CreateTableOnce(ctx, a, time.Hour, lobby.Once{Key: other, Call: "c", ID: a.ID}, time.Hour); !errors.Is(err, lobby.ErrExists) {
		t.Fatalf("a taken id: %v", err)
	}
	if _, found, err := s.CreateTableOnce(ctx, b, time.Hour, lobby.Once{Key: other, Call: "c", ID: b.ID}, time.Hour); err != nil || found {
		t.Fatalf("after a taken id: found %v, %v", found, err)
	}
	tk := ticket("pool"+uid(), 1, 2, 2, false, t0, time.Minute)
	tk2 := ticket("pool"+uid(), 1, 2, 2, false, t0, time.Minute)
	tkey := "p-" + uid() + ":tk"
	if _, found, err := s.CreateTicketOnce(ctx, tk, lobby.Once{Key: tkey, Call: "t", ID: tk.ID}, time.Hour); err != nil || found {
		t.Fatalf("first ticket: found %v, %v", found, err)
	}
	prior, found, err = s.CreateTicketOnce(ctx, tk2, lobby.Once{Key: tkey, Call: "t", ID: tk2.ID}, time.Hour)
	if err != nil || !found || prior.ID != tk.ID {
		t.Fatalf("ticket again: %+v found %v, %v", prior, found, err)
	}
	if _, err := s.LoadTicket(ctx, tk2.ID); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("the second ticket was written: %v", err)
	}
}
