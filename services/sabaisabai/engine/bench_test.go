package engine

import (
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// BenchmarkRandomRound4 plays full random 4-player games of one round (the final round: no call,
// ends when a row is emptied or after 30 turn cycles) with random throws, as enginetest.Playout
// plays them (every seat's legal actions listed at every step).
func BenchmarkRandomRound4(b *testing.B) {
	p := enginetest.Playout[*State, Action]{Game: Game{}}
	r := rand.New(rand.NewPCG(1, 2))
	moves := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cfg := engine.Config{Seats: 4, Seed: uint64(i), Options: &pb.Options{Rounds: 1}, Start: start}
		res, err := p.Run(cfg, r)
		if err != nil {
			b.Fatal(err)
		}
		moves += res.Moves
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
	b.ReportMetric(float64(moves)/float64(b.N), "actions/round")
}
