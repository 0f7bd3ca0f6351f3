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

// TestHeuristicEveryVariant lets the heuristic bot play every seat of tables with each variant
// alone and random combinations: every choice it makes must be legal and every game must end.
func TestHeuristicEveryVariant(t *testing.T) {
	old := Rollouts
	Rollouts = 8
	defer func() { Rollouts = old }()
	var tables []kit.Config
	for v := 1; v <= 25; v++ {
		for n := 3; n <= 6; n++ {
			o := engine.OptionsOf(v)
			if engine.CheckOptions(n, variantsSet(v)) == nil {
				tables = append(tables, kit.Config{Seats: n, Seed: uint64(v*10 + n), Options: o, Start: time.Unix(0, 0)})
				break
			}
		}
	}
	r := rand.New(rand.NewPCG(4, 4))
	for len(tables) < 60 {
		n := 3 + r.IntN(4)
		var vs []int
		var set uint32
		for v := 1; v <= 25; v++ {
			if r.IntN(6) == 0 {
				vs = append(vs, v)
				set |= 1 << v
			}
		}
		if engine.CheckOptions(n, set) == nil {
			tables = append(tables, kit.Config{Seats: n, Seed: uint64(len(tables)), Options: engine.OptionsOf(vs...), Start: time.Unix(0, 0)})
		}
	}
	for i, cfg := range tables {
		bots := make([]kit.Bot[engine.Action], cfg.Seats)
		for s := range bots {
			bots[s] = Heuristic{}
		}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 1))); err != nil {
			t.Fatalf("table %d (%v): %v", i, cfg.Options, err)
		}
	}
}

func variantsSet(vs ...int) uint32 {
	var m uint32
	for _, v := range vs {
		m |= 1 << v
	}
	return m
}
