package storetest

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"testing"

	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/stats"
)

var quiet = slog.New(slog.DiscardHandler)

// Run is the conformance suite of an aggregate store; newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) stats.Store) {
	t.Run("PositionCheck", func(t *testing.T) { testPosition(t, newStore(t)) })
	t.Run("Counters", func(t *testing.T) { testCounters(t, newStore(t)) })
	t.Run("Tables", func(t *testing.T) { testTables(t, newStore(t)) })
	t.Run("PlayersAndRecent", func(t *testing.T) { testPlayers(t, newStore(t)) })
	t.Run("Leaderboard", func(t *testing.T) { testBoard(t, newStore(t)) })
	t.Run("Live", func(t *testing.T) { testLive(t, newStore(t)) })
	t.Run("Workload", func(t *testing.T) { testWorkload(t, newStore(t)) })
}

func snapshot(t *testing.T, st stats.Store) *stats.Snapshot {
	t.Helper()
	s, err := st.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func apply(t *testing.T, st stats.Store, d *stats.Delta) {
	t.Helper()
	if err := st.Apply(t.Context(), d); err != nil {
		t.Fatalf("apply %d→%d: %v", d.From, d.To, err)
	}
}

func delta(from, to uint64) *stats.Delta {
	return &stats.Delta{From: from, To: to, RecentLimit: 20, Ingest: map[string]int64{}, Games: map[string]*stats.GameDelta{},
		Tables: map[string]*stats.TableRecord{}, Players: map[stats.PlayerKey]*statsv1.PlayerGameRecord{},
		Board: map[stats.PlayerKey]float64{}, Live: map[stats.PlayerKey]int64{}}
}

func testPosition(t *testing.T, st stats.Store) {
	ctx := t.Context()
	if p, err := st.Position(ctx); err != nil || p != 0 {
		t.Fatalf("new store at %d (%v)", p, err)
	}
	d := delta(3, 9)
	d.Ingest["applied"] = 1
	if err := st.Apply(ctx, d); !errors.Is(err, stats.ErrConflict) {
		t.Fatalf("apply from a wrong position: %v, want ErrConflict", err)
	}
	empty := snapshot(t, st)
	if empty.Position != 0 || len(empty.Ingest) != 0 {
		t.Fatalf("a refused delta changed the store: %+v", empty)
	}
	d.From = 0
	apply(t, st, d)
	if p, _ := st.Position(ctx); p != 9 {
		t.Fatalf("position %d, want 9", p)
	}
	before := snapshot(t, st)
	if err := st.Apply(ctx, d); !errors.Is(err, stats.ErrConflict) {
		t.Fatalf("applying the same delta twice: %v, want ErrConflict", err)
	}
	if after := snapshot(t, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("a refused delta changed the store")
	}
	apply(t, st, delta(9, 10)) // position only
	if p, _ := st.Position(ctx); p != 10 {
		t.Fatalf("position %d, want 10", p)
	}
}

func testCounters(t *testing.T, st stats.Store) {
	ctx := t.Context()
	d := delta(0, 1)
	d.Games["b"] = &stats.GameDelta{Incr: map[string]int64{"finished": 2, "score:h:-5": 1}, Min: map[string]int64{"score:min": -5}, Max: map[string]int64{"score:max": 7}}
	d.Games["a"] = &stats.GameDelta{Incr: map[string]int64{"finished": 1}, Min: map[string]int64{}, Max: map[string]int64{}}
	d.Ingest["rejected"], d.Ingest["rejected:x"] = 2, 2
	apply(t, st, d)
	d = delta(1, 2)
	d.Games["b"] = &stats.GameDelta{Incr: map[string]int64{"finished": 3}, Min: map[string]int64{"score:min": -2}, Max: map[string]int64{"score:max": 9}}
	d.Ingest["rejected"] = 1
	apply(t, st, d)
	games, err := st.Games(ctx)
	if err != nil || !reflect.DeepEqual(games, []string{"a", "b"}) {
		t.Fatalf("games %v (%v)", games, err)
	}
	c, err := st.GameCounters(ctx, "b")
	want := map[string]int64{"finished": 5, "score:h:-5": 1, "score:min": -5, "score:max": 9}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("counters %v (%v), want %v", c, err, want)
	}
	if c, _ := st.GameCounters(ctx, "nope"); len(c) != 0 {
		t.Fatalf("unknown game has counters %v", c)
	}
	in, err := st.Ingest(ctx)
	if err != nil || in["rejected"] != 3 || in["rejected:x"] != 2 {
		t.Fatalf("ingest %v (%v)", in, err)
	}
}

func testTables(t *testing.T, st stats.Store) {
	ctx := t.Context()
	d := delta(0, 1)
	d.Tables["t1"] = &stats.TableRecord{Game: "g", Humans: []string{"a", "b"}}
	d.Tables["t2"] = &stats.TableRecord{Game: "g", Done: true, Finished: 1000}
	d.Tables["t3"] = &stats.TableRecord{Game: "g", Done: true, Finished: 5000}
	apply(t, st, d)
	s, err := st.Load(ctx, stats.Keys{Tables: []string{"t1", "t2", "t3", "t4"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Position != 1 || len(s.Tables) != 3 || !reflect.DeepEqual(*s.Tables["t1"], stats.TableRecord{Game: "g", Humans: []string{"a", "b"}}) {
		t.Fatalf("load %+v", s)
	}
	d = delta(1, 2)
	d.Tables["t1"] = &stats.TableRecord{Game: "g", Done: true, Finished: 9000}
	d.HighWater, d.PruneBefore = 9000, 5000
	apply(t, st, d)
	s, err = st.Load(ctx, stats.Keys{Tables: []string{"t1", "t2", "t3"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.HighWater != 9000 || s.Tables["t2"] != nil || s.Tables["t3"] == nil || !s.Tables["t1"].Done {
		t.Fatalf("after pruning: %+v", s.Tables)
	}
	d = delta(2, 3)
	d.HighWater = 10 // never moves back
	apply(t, st, d)
	if s := snapshot(t, st); s.HighWater != 9000 || len(s.Tables) != 2 {
		t.Fatalf("snapshot %+v", s)
	}
}

func testPlayers(t *testing.T, st stats.Store) {
	ctx := t.Context()
	d := delta(0, 1)
	for _, g := range []string{"zeta", "alpha"} {
		d.Players[stats.PlayerKey{Player: "p1", Game: g}] = &statsv1.PlayerGameRecord{Game: g, Games: 3, Wins: 1, Rating: &statsv1.Rating{Mu: 25.123456789012345, Sigma: 1.0 / 3}}
	}
	for i := range 25 {
		d.Recent = append(d.Recent, stats.RecentPush{Player: "p1", Game: &statsv1.RecentGame{TableId: string(rune('a' + i))}})
	}
	apply(t, st, d)
	recs, err := st.PlayerRecords(ctx, "p1")
	if err != nil || len(recs) != 2 || recs[0].GetGame() != "alpha" || recs[1].GetRating().GetMu() != 25.123456789012345 || recs[1].GetRating().GetSigma() != 1.0/3 {
		t.Fatalf("records %v (%v)", recs, err)
	}
	s, err := st.Load(ctx, stats.Keys{Players: []stats.PlayerKey{{Player: "p1", Game: "zeta"}, {Player: "p2", Game: "zeta"}}})
	if err != nil || len(s.Players) != 1 || s.Players[stats.PlayerKey{Player: "p1", Game: "zeta"}].GetGames() != 3 {
		t.Fatalf("load %v (%v)", s, err)
	}
	rs, err := st.Recent(ctx, "p1", 50)
	if err != nil || len(rs) != 20 || rs[0].GetTableId() != "y" || rs[19].GetTableId() != "f" {
		t.Fatalf("recent %v (%v)", rs, err)
	}
	if rs, _ := st.Recent(ctx, "p1", 3); len(rs) != 3 || rs[2].GetTableId() != "w" {
		t.Fatalf("recent 3: %v", rs)
	}
	if recs, _ := st.PlayerRecords(ctx, "nobody"); len(recs) != 0 {
		t.Fatalf("unknown player has records")
	}
}

func testBoard(t *testing.T, st stats.Store) {
	ctx := t.Context()
	d := delta(0, 1)
	for p, r := range map[string]float64{"a": 10, "b": 10, "c": 12.5, "d": -1, "e": 10} {
		d.Board[stats.PlayerKey{Player: p, Game: "g"}] = r
	}
	apply(t, st, d)
	rows, total, err := st.Leaderboard(ctx, "g", 0, 10)
	want := []stats.Ranked{{Player: "c", Rating: 12.5}, {Player: "e", Rating: 10}, {Player: "b", Rating: 10}, {Player: "a", Rating: 10}, {Player: "d", Rating: -1}}
	if err != nil || total != 5 || !reflect.DeepEqual(rows, want) {
		t.Fatalf("leaderboard %v %d (%v), want %v", rows, total, err, want)
	}
	d = delta(1, 2)
	d.Board[stats.PlayerKey{Player: "d", Game: "g"}] = 11
	d.Board[stats.PlayerKey{Player: "c", Game: "g"}] = 0.1
	apply(t, st, d)
	rows, _, _ = st.Leaderboard(ctx, "g", 1, 3)
	want = []stats.Ranked{{Player: "e", Rating: 10}, {Player: "b", Rating: 10}, {Player: "a", Rating: 10}}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("page %v, want %v", rows, want)
	}
	if r, ok, err := st.Rank(ctx, "g", "c"); err != nil || !ok || r != 4 {
		t.Fatalf("rank of c %d %v %v", r, ok, err)
	}
	if _, ok, _ := st.Rank(ctx, "g", "zz"); ok {
		t.Fatal("absent player ranked")
	}
	if rows, total, _ := st.Leaderboard(ctx, "g", 9, 3); len(rows) != 0 || total != 5 {
		t.Fatalf("past the end: %v %d", rows, total)
	}
	if rows, total, _ := st.Leaderboard(ctx, "none", 0, 3); len(rows) != 0 || total != 0 {
		t.Fatalf("unknown game: %v %d", rows, total)
	}
}

func testLive(t *testing.T, st stats.Store) {
	ctx := t.Context()
	d := delta(0, 1)
	d.Games["g"] = &stats.GameDelta{Incr: map[string]int64{"tables_created": 2}}
	d.Games["h"] = &stats.GameDelta{Incr: map[string]int64{"tables_created": 1}}
	for k, v := range map[stats.PlayerKey]int64{{Game: "g"}: 2, {Game: "h"}: 1, {Game: "g", Player: "a"}: 2, {Game: "g", Player: "b"}: 1,
		{Game: "h", Player: "a"}: 1, {Player: "a"}: 3, {Player: "b"}: 1} {
		d.Live[k] = v
	}
	apply(t, st, d)
	l, err := st.Live(ctx)
	if err != nil || l.Tables["g"] != 2 || l.Tables["h"] != 1 || l.Players["g"] != 2 || l.Players["h"] != 1 || l.AllPlayers != 2 {
		t.Fatalf("live %+v (%v)", l, err)
	}
	d = delta(1, 2)
	for k, v := range map[stats.PlayerKey]int64{{Game: "g"}: -1, {Game: "h"}: -1, {Game: "g", Player: "b"}: -1, {Game: "h", Player: "a"}: -1, {Player: "a"}: -1, {Player: "b"}: -1} {
		d.Live[k] = v
	}
	apply(t, st, d)
	l, err = st.Live(ctx)
	if err != nil || l.Tables["g"] != 1 || l.Tables["h"] != 0 || l.Players["g"] != 1 || l.Players["h"] != 0 || l.AllPlayers != 1 {
		t.Fatalf("live %+v (%v)", l, err)
	}
	if s := snapshot(t, st); len(s.Online) != 3 {
		t.Fatalf("zero counts kept: %v", s.Online)
	}
}

func testWorkload(t *testing.T, st stats.Store) {
	CheckWorkload(t, st, NewWorkload(7, WorkloadOptions{Games: 1500, Players: 120, Faults: true}))
}

// CheckWorkload applies w's stream to st in batches of random sizes, some delivered twice, and
// compares with the direct computation and with a memory store fed in one go.
func CheckWorkload(t *testing.T, st stats.Store, w *Workload) {
	ctx := t.Context()
	msgs := w.Public()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(msgs); {
		n := 1 + r.IntN(300)
		j := min(i+n, len(msgs))
		if _, err := stats.ApplyBatch(ctx, st, w.Aggregator(), msgs[i:j], quiet); err != nil {
			t.Fatal(err)
		}
		if r.IntN(4) == 0 { // redelivery of an overlapping range
			back := max(i-r.IntN(200), 0)
			if _, err := stats.ApplyBatch(ctx, st, w.Aggregator(), msgs[back:j], quiet); err != nil {
				t.Fatal(err)
			}
		}
		i = j
	}
	if p, _ := st.Position(ctx); p != w.LastPublicSeq() {
		t.Fatalf("position %d, want %d", p, w.LastPublicSeq())
	}
	Check(t, ctx, st, w)
	ref := stats.NewMemory()
	if _, err := stats.ApplyBatch(context.Background(), ref, w.Aggregator(), msgs, quiet); err != nil {
		t.Fatal(err)
	}
	CompareSnapshots(t, snapshot(t, ref), snapshot(t, st))
}

// CompareSnapshots fails t when two snapshots differ, naming the first parts that do.
func CompareSnapshots(t testing.TB, want, got *stats.Snapshot) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	wv, gv := reflect.ValueOf(*want), reflect.ValueOf(*got)
	for i := range wv.NumField() {
		if !reflect.DeepEqual(wv.Field(i).Interface(), gv.Field(i).Interface()) {
			t.Errorf("snapshots differ in %s", wv.Type().Field(i).Name)
		}
	}
}
