package engine

import (
	"math/rand/v2"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
)

func cfg(seats int, seed uint64) engine.Config {
	return engine.Config{Seats: seats, Seed: seed, Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
}

func TestSmokePlayout(t *testing.T) {
	p := enginetest.Playout[*State, Action]{Game: Game{}}
	for i := range 200 {
		res, err := p.Run(cfg(3+i%2, uint64(i)), rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			t.Log(Render(res.State.view(0)))
			o, _ := Game{}.Outcome(res.State)
			t.Log(o.Summary, res.Moves)
		}
	}
}
