package lobbytest

import (
	"slices"
	"testing"
	"time"

	"cardroom.dev/gateway/lobby"
)

// page reads a whole list, limit tables a page, and returns the ids in order.
func listAll(t *testing.T, s lobby.Store, l lobby.Listing, game string, limit int) []string {
	t.Helper()
	var ids []string
	q := lobby.TableQuery{Listing: l, Game: game, Limit: limit}
	for range 1000 {
		p, err := s.ListTables(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Tables) > limit {
			t.Fatalf("a page of %d tables for a limit of %d", len(p.Tables), limit)
		}
		for _, tb := range p.Tables {
			ids = append(ids, tb.ID)
		}
		if p.Next.IsZero() {
			return ids
		}
		// The cursor survives its round trip through a client.
		c, err := lobby.ParseCursor(p.Next.Token())
		if err != nil || c != p.Next {
			t.Fatalf("cursor %+v through its token: %+v, %v", p.Next, c, err)
		}
		q.After = c
	}
	t.Fatal("the list does not end")
	return nil
}

// testListing: the public lists hold the public tables of their state, newest first, page by
// page, per game and of every game; a private table is in none; a table moves from list to list
// in the write that changes its state.
func testListing(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	g1, g2 := "g"+uid(), "h"+uid()
	mk := func(i int, game string, st lobby.TableState, public bool) lobby.Table {
		tb := lobby.Table{ID: "t" + uid(), Game: game, State: st, Public: public, Capacity: 2,
			Players: []lobby.Player{{ID: "p" + uid(), Name: "Ann"}}, CreatedAt: t0.Add(time.Duration(i) * time.Second)}
		if st != lobby.TableOpen {
			tb.Seats = tb.Players
			tb.StartedAt = tb.CreatedAt.Add(time.Second)
		}
		if err := s.CreateTable(ctx, tb, time.Hour); err != nil {
			t.Fatal(err)
		}
		tb.Version = 1
		return tb
	}
	var live1, live2 []string // newest first
	var tables []lobby.Table
	for i := range 7 {
		tb := mk(i, g1, lobby.TableDealt, true)
		live1 = append([]string{tb.ID}, live1...)
		tables = append(tables, tb)
	}
	for i := range 3 {
		tb := mk(i, g2, lobby.TableStarting, true)
		live2 = append([]string{tb.ID}, live2...)
	}
	// Tables of the same start time are all listed, on whatever pages.
	same := []lobby.Table{mk(100, g1, lobby.TableDealt, true), mk(100, g1, lobby.TableDealt, true), mk(100, g1, lobby.TableDealt, true)}
	private := mk(50, g1, lobby.TableDealt, false)
	privateOpen := mk(51, g1, lobby.TableOpen, false)
	open := mk(52, g1, lobby.TableOpen, true)

	for _, limit := range []int{1, 2, 3, 100} {
		got := listAll(t, s, lobby.ListLive, g1, limit)
		if len(got) != 10 || !slices.Equal(got[3:], live1) {
			t.Fatalf("live %s, %d a page: %v, want three of %v then %v", g1, limit, got, same, live1)
		}
		for _, tb := range same {
			if !slices.Contains(got[:3], tb.ID) {
				t.Fatalf("live, %d a page: %s missing", limit, tb.ID)
			}
		}
	}
	if got := listAll(t, s, lobby.ListLive, g2, 2); !slices.Equal(got, live2) {
		t.Fatalf("live %s: %v, want %v", g2, got, live2)
	}
	all := listAll(t, s, lobby.ListLive, "", 4)
	if len(all) != 13 || slices.Contains(all, private.ID) {
		t.Fatalf("live of every game: %v", all)
	}
	if got := listAll(t, s, lobby.ListOpen, "", 10); !slices.Equal(got, []string{open.ID}) {
		t.Fatalf("open: %v, want only %s (not the private %s)", got, open.ID, privateOpen.ID)
	}

	// Finishing a table moves it to the finished list; closing one takes it out of every list.
	fin := tables[0]
	fin.State, fin.Deadline = lobby.TableFinished, t0.Add(time.Hour)
	if err := s.UpdateTable(ctx, fin, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := listAll(t, s, lobby.ListLive, g1, 100); slices.Contains(got, fin.ID) || len(got) != 9 {
		t.Fatalf("live after a finish: %v", got)
	}
	if got := listAll(t, s, lobby.ListFinished, g1, 100); !slices.Equal(got, []string{fin.ID}) {
		t.Fatalf("finished: %v", got)
	}
	loaded, err := s.LoadTable(ctx, open.ID)
	if err != nil {
		t.Fatal(err)
	}
	loaded.State = lobby.TableClosed
	if err := s.UpdateTable(ctx, loaded, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, l := range []lobby.Listing{lobby.ListOpen, lobby.ListLive, lobby.ListFinished} {
		if got := listAll(t, s, l, "", 100); slices.Contains(got, open.ID) {
			t.Fatalf("a closed table listed in %v", l)
		}
	}
	// A private table made public is listed from that write on.
	loaded, err = s.LoadTable(ctx, privateOpen.ID)
	if err != nil {
		t.Fatal(err)
	}
	loaded.Public = true
	if err := s.UpdateTable(ctx, loaded, time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := listAll(t, s, lobby.ListOpen, g1, 100); !slices.Equal(got, []string{privateOpen.ID}) {
		t.Fatalf("open after publishing: %v", got)
	}
	if p, err := s.ListTables(ctx, lobby.TableQuery{Listing: lobby.ListLive, Game: "none" + uid(), Limit: 5}); err != nil || len(p.Tables) != 0 || !p.Next.IsZero() {
		t.Fatalf("list of a game without tables: %+v, %v", p, err)
	}
}

// testListingExpiry: a listed table whose record expires leaves its list, and its people's index.
func testListingExpiry(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	game, player := "g"+uid(), "p"+uid()
	keep := lobby.Table{ID: "t" + uid(), Game: game, State: lobby.TableOpen, Public: true, CreatedAt: t0,
		Players: []lobby.Player{{ID: player, Name: "Ann"}}}
	gone := keep
	gone.ID, gone.CreatedAt = "t"+uid(), t0.Add(time.Second)
	if err := s.CreateTable(ctx, keep, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx, gone, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := listAll(t, s, lobby.ListOpen, game, 1); !slices.Equal(got, []string{gone.ID, keep.ID}) {
		t.Fatalf("open: %v", got)
	}
	waitFor(t, "the table expires", func() bool {
		got := listAll(t, s, lobby.ListOpen, game, 1)
		return slices.Equal(got, []string{keep.ID})
	})
	mine, err := s.TablesOf(ctx, player, 10)
	if err != nil || len(mine) != 1 || mine[0].ID != keep.ID {
		t.Fatalf("the player's tables after one expired: %v, %v", mine, err)
	}
}

// testTablesOf: a person's index holds the tables they have been at, newest first, bounded; bots
// have none.
func testTablesOf(t *testing.T, s lobby.Store) {
	ctx := t.Context()
	ann, bob := "p"+uid(), "p"+uid()
	var want []string
	for i := range lobby.MaxPlayerTables + 3 {
		tb := lobby.Table{ID: "t" + uid(), Game: "g", State: lobby.TableOpen, CreatedAt: t0.Add(time.Duration(i) * time.Second),
			Players: []lobby.Player{{ID: ann, Name: "Ann"}, {ID: "b" + uid(), Name: "Bot", Bot: true}}}
		if i == 0 {
			// Bob joins the first table after its creation and is seated.
			if err := s.CreateTable(ctx, tb, time.Hour); err != nil {
				t.Fatal(err)
			}
			tb.Version = 1
			tb.Players = append(tb.Players, lobby.Player{ID: bob, Name: "Bob"})
			tb.State, tb.Seats = lobby.TableDealt, tb.Players
			if err := s.UpdateTable(ctx, tb, time.Hour); err != nil {
				t.Fatal(err)
			}
		} else if err := s.CreateTable(ctx, tb, time.Hour); err != nil {
			t.Fatal(err)
		}
		want = append([]string{tb.ID}, want...)
	}
	got, err := s.TablesOf(ctx, ann, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tb := range got {
		ids = append(ids, tb.ID)
	}
	if !slices.Equal(ids, want[:lobby.MaxPlayerTables]) {
		t.Fatalf("Ann's tables: %d, want the newest %d", len(ids), lobby.MaxPlayerTables)
	}
	if got, err := s.TablesOf(ctx, ann, 2); err != nil || len(got) != 2 || got[0].ID != want[0] {
		t.Fatalf("Ann's two newest: %v, %v", got, err)
	}
	got, err = s.TablesOf(ctx, bob, 10)
	if err != nil || len(got) != 1 || got[0].ID != want[len(want)-1] || !got[0].Has(bob) {
		t.Fatalf("Bob's tables: %v, %v", got, err)
	}
}
