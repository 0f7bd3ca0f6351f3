package stats

import (
	"math"
	"testing"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/bus"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// finishedMessage is a TableFinished of game at table with the players (humans) in seat order, the
// seats' ranks and who played their moves.
func finishedMessage(t *testing.T, seq uint64, table string, players []string, ranks []uint32, seats []*eventsv1.SeatActions) Message {
	t.Helper()
	cfg := &gamev1.TableConfig{Game: "sapotagem"}
	out := &gamev1.Outcome{}
	for i, p := range players {
		cfg.Seats = append(cfg.Seats, &gamev1.Seat{Index: uint32(i), Player: &gamev1.PlayerRef{PlayerId: p, DisplayName: p, Kind: gamev1.PlayerKind_PLAYER_KIND_HUMAN}})
		out.Results = append(out.Results, &gamev1.SeatResult{Seat: uint32(i), Rank: ranks[i], Score: int64(10 - ranks[i]), Winner: ranks[i] == 1})
	}
	start := time.UnixMilli(1_800_000_000_000)
	payload, err := anypb.New(&eventsv1.TableFinished{
		Config: cfg, Outcome: out, Actions: 30, SeatActions: seats,
		StartedAt: timestamppb.New(start), FinishedAt: timestamppb.New(start.Add(time.Minute)),
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := proto.Marshal(&eventsv1.Event{
		TableId: table, Game: "sapotagem", Sequence: 1, Version: 30, Payload: payload,
		Visibility: &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}},
		Time:       timestamppb.New(start.Add(time.Minute)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return Message{Subject: bus.Subjects{}.Public(table), Data: data, Seq: seq}
}

// TestStandInSeatNotThePlayersGame: a seat whose moves cardroom's bot mostly played for its
// absent player is recorded as abandoned for that player — not in their games, wins or rating,
// not on the leaderboard — while the others' game counts and is rated as usual. Exactly half is
// still the player's own game.
func TestStandInSeatNotThePlayersGame(t *testing.T) {
	ctx := t.Context()
	m := NewMemory()
	msgs := []Message{finishedMessage(t, 1, "t1", []string{"ann", "bob", "cid"}, []uint32{2, 1, 3}, []*eventsv1.SeatActions{
		{Seat: 0, Actions: 10, StandIn: 5}, // half: ann's own game
		{Seat: 1, Actions: 10, StandIn: 6}, // mostly the bot: not bob's
		{Seat: 2, Actions: 10},
	})}
	if _, err := ApplyBatch(ctx, m, DefaultAggregator, msgs, nil); err != nil {
		t.Fatal(err)
	}
	p := DefaultRating
	mu, sigma := []float64{p.Mu, p.Mu, p.Mu}, []float64{p.Sigma, p.Sigma, p.Sigma}
	p.Rate(mu, sigma, []uint32{2, 1, 3})
	for i, player := range []string{"ann", "bob", "cid"} {
		recs, err := m.PlayerRecords(ctx, player)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %v, %d records", player, err, len(recs))
		}
		r := recs[0]
		recent, err := m.Recent(ctx, player, 10)
		if err != nil || len(recent) != 1 {
			t.Fatalf("%s: %v, %d recent games", player, err, len(recent))
		}
		if player == "bob" {
			if r.GetGames() != 0 || r.GetWins() != 0 || r.GetAbandoned() != 1 || r.GetScoreSum() != 0 ||
				r.GetRating().GetRatedGames() != 0 || r.GetRating().GetMu() != p.Mu || r.GetRating().GetSigma() != p.Sigma {
				t.Errorf("bob's record %v: want one abandoned game, no game, no win, the prior rating", r)
			}
			if !recent[0].GetAbandoned() || recent[0].GetRatingAfter() != 0 {
				t.Errorf("bob's recent game %v: want abandoned, not rated", recent[0])
			}
			continue
		}
		if r.GetGames() != 1 || r.GetAbandoned() != 0 || r.GetRating().GetRatedGames() != 1 ||
			math.Abs(r.GetRating().GetMu()-mu[i]) > 1e-12 || math.Abs(r.GetRating().GetSigma()-sigma[i]) > 1e-12 {
			t.Errorf("%s's record %v: want one rated game (μ %v, σ %v)", player, r, mu[i], sigma[i])
		}
		if recent[0].GetAbandoned() || recent[0].GetRatingAfter() == 0 {
			t.Errorf("%s's recent game %v", player, recent[0])
		}
	}
	board, _, err := m.Leaderboard(ctx, "sapotagem", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range board {
		if b.Player == "bob" {
			t.Errorf("bob is on the leaderboard: %v", board)
		}
	}
	if len(board) != 2 {
		t.Errorf("leaderboard %v, want ann and cid", board)
	}
}
