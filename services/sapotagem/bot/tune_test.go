package bot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sapotagem/engine"
)

func rate(games int, off uint64) float64 {
	wins := 0
	for i := range games {
		seat := i % 4
		bots := make([]kit.Bot[engine.Action], 4)
		bots[seat] = Heuristic{}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 4, Seed: uint64(i) + off, Options: &pb.Options{}, Start: time.Unix(0, 0)}
		res, _ := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 19)))
		out, _ := engine.Game{}.Outcome(res.State)
		if out.Results[seat].Winner {
			wins++
		}
	}
	return float64(wins) / float64(games)
}

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		t.Skip()
	}
	var mw, ro, off float64
	fmt.Sscan(os.Getenv("TUNE"), &mw, &ro, &engine.GreedyMarker, &engine.GreedyStrength, &engine.GreedyUnseen, &off)
	MarginWeight, Rollouts = mw, int(ro)
	fmt.Printf("%s -> %.3f\n", os.Getenv("TUNE"), rate(800, uint64(off)))
}

func TestStats(t *testing.T) {
	if os.Getenv("STATS") == "" {
		t.Skip()
	}
	var my, best, cards, jumpsLeft float64
	const games = 200
	for i := range games {
		seat := i % 4
		bots := make([]kit.Bot[engine.Action], 4)
		bots[seat] = Heuristic{}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 4, Seed: uint64(i) + 9000, Options: &pb.Options{}, Start: time.Unix(0, 0)}
		res, _ := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 19)))
		out, _ := engine.Game{}.Outcome(res.State)
		b := -100.0
		for _, r := range out.Results {
			if int(r.Seat) != seat && float64(r.Score) > b {
				b = float64(r.Score)
			}
		}
		my += float64(out.Results[seat].Score)
		best += b
		v := engine.Game{}.View(res.State, seat).(*pb.View)
		cards += float64(len(v.Seats[seat].Area))
		_ = jumpsLeft
	}
	fmt.Printf("my %.1f best other %.1f my cards %.1f\n", my/games, best/games, cards/games)
}
