package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sapotagem/engine"
)

// TestHeuristicWinRate: the heuristic bot in seat (i mod 4) against three random bots, 4-player
// base games. A shared win counts as a win.
func TestHeuristicWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	const games = 600
	wins := 0
	for i := range games {
		seat := i % 4
		bots := make([]kit.Bot[engine.Action], 4)
		bots[seat] = Heuristic{}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 4, Seed: uint64(i) + 1000, Options: &pb.Options{}, Start: time.Unix(0, 0)}
		res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 9)))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := engine.Game{}.Outcome(res.State)
		if out.Results[seat].Winner {
			wins++
		}
	}
	rate := float64(wins) / games
	t.Logf("heuristic bot won %d of %d 4-player base games against three random bots (%.1f%%)", wins, games, 100*rate)
	if rate < 0.60 {
		t.Fatalf("win rate %.1f%% below 60%%", 100*rate)
	}
}
