package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	spe "cardroom.dev/services/sponsio/engine"
)

// winRate plays games 4-player games with the heuristic bot in seat i%4 against random bots.
func winRate(t testing.TB, games int, h Heuristic) float64 { return winRateN(t, 4, games, h) }

// winRateN plays games with seats players, the heuristic bot in seat i%seats, the others random.
func winRateN(t testing.TB, seats, games int, h Heuristic) float64 {
	g := spe.Game{}
	wins := 0
	for i := range games {
		seat := i % seats
		bots := make([]engine.Bot[spe.Action], seats)
		bots[seat] = h
		p := enginetest.Playout[*spe.State, spe.Action]{Game: g, Bots: bots}
		c := engine.Config{Seats: seats, Seed: uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
		res, err := p.Run(c, rand.New(rand.NewPCG(uint64(i), 77)))
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		o, _ := g.Outcome(res.State)
		if o.GetResults()[seat].GetWinner() {
			wins++
		}
	}
	return float64(wins) / float64(games)
}

func TestHeuristicBeatsRandom(t *testing.T) {
	const games = 500
	rate := winRate(t, games, Heuristic{})
	t.Logf("heuristic bot won %.1f%% of %d 4-player games against 3 random bots", 100*rate, games)
	if rate < 0.60 {
		t.Fatalf("win rate %.3f below 0.60", rate)
	}
}

func TestHeuristicBeatsRandomThreePlayers(t *testing.T) {
	const games = 300
	rate := winRateN(t, 3, games, Heuristic{})
	t.Logf("heuristic bot won %.1f%% of %d 3-player games against 2 random bots", 100*rate, games)
	if rate < 0.60 {
		t.Fatalf("win rate %.3f below 0.60", rate)
	}
}
