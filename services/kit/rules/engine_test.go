package rules_test

import (
	"cardroom.dev/services/kit/rules/rulestest/highcard"
	"math/rand/v2"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestHighCardPlayouts drives the test game with the shared playout tools, as every game's tests
// do: random games with timeouts, replay determinism, state round trips, refused moves unchanged.
func TestHighCardPlayouts(t *testing.T) {
	g := highcard.New()
	cfg := func(i int) engine.Config {
		return engine.Config{Seats: 2 + i%5, Seed: uint64(i), Options: wrapperspb.UInt32(uint32(1 + i%4)),
			TurnTime: time.Duration(i%2) * time.Second, Start: time.UnixMilli(1_800_000_000_000)}
	}
	p := enginetest.Playout[*highcard.State, string]{Game: g, TimeoutChance: 0.2, Tick: 300 * time.Millisecond}
	r := rand.New(rand.NewPCG(1, 2))
	p.OnStep = func(s *highcard.State, st enginetest.Step[string]) error {
		if err := enginetest.CheckStateRoundTrip(g, s); err != nil {
			return err
		}
		seat := r.IntN(s.Seats)
		return enginetest.CheckUnchangedOnError(g, s, engine.Move[string]{Seat: seat, Action: "pass", At: st.At})
	}
	for i := range 500 {
		res, err := p.Run(cfg(i), rand.New(rand.NewPCG(uint64(i), 0)))
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		if out, ok := g.Outcome(res.State); !ok || len(out.GetResults()) != res.State.Seats {
			t.Fatalf("game %d ended without an outcome", i)
		}
	}
	enginetest.CheckDeterminism(t, enginetest.Playout[*highcard.State, string]{Game: g, TimeoutChance: 0.3}, 200, cfg)
	enginetest.CheckLabels(t, enginetest.Playout[*highcard.State, string]{Game: g, TimeoutChance: 0.3}, g, 200, cfg)
}
