package storetest

import (
	"context"
	"net"
	"slices"
	"sort"
	"testing"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"cardroom.dev/services/stats"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// serveStats runs a StatsService over st on an in-memory listener and returns a client.
func serveStats(t testing.TB, st stats.Store) statsv1.StatsServiceClient {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer()
	statsv1.RegisterStatsServiceServer(gs, stats.NewServer(st, quiet))
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	cc, err := grpc.NewClient("passthrough:///stats", grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return statsv1.NewStatsServiceClient(cc)
}

// wantViolation checks the status code and, when field is set, a RuleViolation naming it (with
// violation code vcode when set).
func wantViolation(t *testing.T, err error, code codes.Code, field, vcode string) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code {
		t.Fatalf("status %v, want %v", err, code)
	}
	if field == "" {
		return
	}
	for _, d := range st.Details() {
		if v, ok := d.(*gamev1.RuleViolation); ok && v.GetField() == field && (vcode == "" || v.GetCode() == vcode) {
			return
		}
	}
	t.Fatalf("no RuleViolation naming %q in %v", field, st.Details())
}

// RunService serves what a memory store aggregates of w and checks every call of the StatsService
// against Expect(w), errors included. w needs at least two games; its games' names in order are
// used for the calls that name a game.
func RunService(t *testing.T, w *Workload) {
	ctx := t.Context()
	st := stats.NewMemory()
	if _, err := stats.ApplyBatch(ctx, st, w.Aggregator(), w.Public(), quiet); err != nil {
		t.Fatal(err)
	}
	e := Expect(w)
	c := serveStats(t, st)
	var names []string
	for g := range e.Games {
		names = append(names, g)
	}
	slices.Sort(names)
	if len(names) < 2 {
		t.Fatalf("the workload plays %v: RunService needs two games", names)
	}
	// board is the game whose leaderboard is paged, alone the one whose live figures are asked alone.
	first, board, alone := names[0], names[len(names)-1], names[len(names)/2]

	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			call  func() error
			code  codes.Code
			field string
		}{
			{"game required", func() error { _, err := c.GetGameStats(ctx, &statsv1.GetGameStatsRequest{}); return err }, codes.InvalidArgument, "game"},
			{"unknown game", func() error {
				_, err := c.GetGameStats(ctx, &statsv1.GetGameStatsRequest{Game: "chess"})
				return err
			}, codes.NotFound, ""},
			{"player required", func() error { _, err := c.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{}); return err }, codes.InvalidArgument, "player_id"},
			{"recent limit", func() error {
				_, err := c.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{PlayerId: "p0001", RecentLimit: 51})
				return err
			}, codes.InvalidArgument, "recent_limit"},
			{"unknown player", func() error {
				_, err := c.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{PlayerId: "nobody"})
				return err
			}, codes.NotFound, ""},
			{"board game required", func() error { _, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{}); return err }, codes.InvalidArgument, "game"},
			{"board limit", func() error {
				_, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, Limit: 101})
				return err
			}, codes.InvalidArgument, "limit"},
			{"not on the board", func() error {
				_, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, AroundPlayerId: "bot-" + board + "-1"})
				return err
			}, codes.NotFound, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				vcode := ""
				if tc.field != "" {
					vcode = "MISSING_FIELD"
					if tc.field == "limit" || tc.field == "recent_limit" {
						vcode = "INVALID_FIELD"
					}
				}
				wantViolation(t, tc.call(), tc.code, tc.field, vcode)
			})
		}
	})

	t.Run("Games", func(t *testing.T) {
		list, err := c.ListGames(ctx, &statsv1.ListGamesRequest{})
		if err != nil || len(list.GetGames()) != len(names) || list.GetGames()[0].GetGame() != first {
			t.Fatalf("ListGames %v (%v)", list, err)
		}
		for _, g := range list.GetGames() {
			want := e.Games[g.GetGame()]
			if int64(g.GetGamesFinished()) != want.Finished || int64(g.GetGamesAborted()) != want.Aborted || len(g.GetScores().GetBuckets()) != 0 {
				t.Errorf("%s: %v", g.GetGame(), g)
			}
		}
		resp, err := c.GetGameStats(ctx, &statsv1.GetGameStatsRequest{Game: first})
		if err != nil {
			t.Fatal(err)
		}
		gs := resp.GetStats()
		var wins, games uint64
		for _, sp := range gs.GetSeatPositions() {
			wins += sp.GetWins()
			games += sp.GetGames()
			if sp.GetWinRate() != float64(sp.GetWins())/float64(sp.GetGames()) {
				t.Errorf("win rate %v", sp)
			}
		}
		if games != uint64(len(e.Games[first].Scores)) || wins < gs.GetGamesFinished() || len(gs.GetOptions()) == 0 || len(gs.GetScores().GetBuckets()) == 0 {
			t.Errorf("%s stats %v", first, gs)
		}
	})

	t.Run("Player", func(t *testing.T) {
		var games, wins int64
		for k, p := range e.Players {
			if k.Player == "p0007" {
				games += p.Games
				wins += p.Wins
			}
		}
		resp, err := c.GetPlayerStats(ctx, &statsv1.GetPlayerStatsRequest{PlayerId: "p0007", RecentLimit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if int64(resp.GetGames()) != games || int64(resp.GetWins()) != wins || len(resp.GetRecent()) != 5 ||
			resp.GetRecent()[0].GetTableId() != e.Recent["p0007"][0] || resp.GetKind() != gamev1.PlayerKind_PLAYER_KIND_HUMAN || resp.GetDisplayName() != "Player 7" {
			t.Fatalf("player %v, want %d games %d wins", resp, games, wins)
		}
		if !sort.SliceIsSorted(resp.GetRecords(), func(i, j int) bool { return resp.GetRecords()[i].GetGame() < resp.GetRecords()[j].GetGame() }) {
			t.Fatal("records not sorted by game")
		}
	})

	t.Run("Leaderboard", func(t *testing.T) {
		top, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, Limit: 5})
		if err != nil || len(top.GetEntries()) != 5 || top.GetTotal() < 5 {
			t.Fatalf("top %v (%v)", top, err)
		}
		for i, en := range top.GetEntries() {
			if en.GetRank() != uint64(i+1) || en.GetGames() == 0 || en.GetDisplayName() == "" {
				t.Errorf("row %d: %v", i, en)
			}
			if i > 0 && en.GetRating().GetDisplay() > top.GetEntries()[i-1].GetRating().GetDisplay() {
				t.Errorf("row %d out of order", i)
			}
		}
		all, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, who := range []int{0, len(all.GetEntries()) / 2, len(all.GetEntries()) - 1} {
			p := all.GetEntries()[who].GetPlayerId()
			page, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, Limit: 7, AroundPlayerId: p})
			if err != nil || len(page.GetEntries()) != 7 {
				t.Fatalf("around %s: %v (%v)", p, page, err)
			}
			found := false
			for _, en := range page.GetEntries() {
				if en.GetPlayerId() == p {
					found = en.GetRank() == uint64(who+1)
				}
			}
			if !found {
				t.Errorf("around %s (rank %d): %v", p, who+1, page.GetEntries())
			}
		}
		off, err := c.GetLeaderboard(ctx, &statsv1.GetLeaderboardRequest{Game: board, Limit: 2, Offset: 3})
		if err != nil || off.GetEntries()[0].GetPlayerId() != all.GetEntries()[3].GetPlayerId() || off.GetEntries()[0].GetRank() != 4 {
			t.Fatalf("offset page %v (%v)", off, err)
		}
	})

	t.Run("Live", func(t *testing.T) {
		live, err := c.GetLiveStats(ctx, &statsv1.GetLiveStatsRequest{})
		if err != nil || int64(live.GetPlayersOnline()) != e.AllPlayers || len(live.GetGames()) != len(names) {
			t.Fatalf("live %v (%v), want %d players", live, err, e.AllPlayers)
		}
		for _, g := range live.GetGames() {
			if int64(g.GetTablesInPlay()) != e.LiveTables[g.GetGame()] || int64(g.GetPlayersOnline()) != e.LivePlayers[g.GetGame()] {
				t.Errorf("%s: %v", g.GetGame(), g)
			}
		}
		one, err := c.GetLiveStats(ctx, &statsv1.GetLiveStatsRequest{Game: alone})
		if err != nil || len(one.GetGames()) != 1 || int64(one.GetPlayersOnline()) != e.LivePlayers[alone] {
			t.Fatalf("%s live %v (%v)", alone, one, err)
		}
	})

	t.Run("Ingest", func(t *testing.T) {
		in, err := c.GetIngestStats(ctx, &statsv1.GetIngestStatsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var rejected int
		for _, r := range in.GetRejectedByReason() {
			if int(r.GetCount()) != e.Rejected[r.GetReason()] {
				t.Errorf("rejected %s: %d, want %d", r.GetReason(), r.GetCount(), e.Rejected[r.GetReason()])
			}
			rejected += int(r.GetCount())
		}
		if in.GetStreamSequence() != w.LastPublicSeq() || int64(in.GetApplied()) != e.Applied || int(in.GetRejected()) != rejected || rejected == 0 {
			t.Fatalf("ingest %v", in)
		}
	})
}
