package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func cfgFor(i int) engine.Config {
	classic := i%3 == 0
	opts := &pb.Options{}
	n := 2 + i%11
	if classic {
		opts.Mode = pb.Mode_MODE_CLASSIC
		n = 3 + i%8
		opts.ClassicDiscardTwoToRepair = i%2 == 0
	}
	tt := time.Duration(0)
	if i%4 == 1 {
		tt = 30 * time.Second
	}
	return engine.Config{Seats: n, Seed: uint64(i)*7919 + 1, Options: opts, TurnTime: tt, Start: t0}
}

func TestRandomPlayoutsSmoke(t *testing.T) {
	g := Game{}
	for i := range 200 {
		cfg := cfgFor(i)
		p := enginetest.Playout[*State, Action]{Game: g, TimeoutChance: 0.05, OnStep: func(s *State, st enginetest.Step[Action]) error {
			if !s.over {
				if !slices.Equal(s.Conservation(), s.Deck()) {
					t.Fatalf("game %d: conservation broken", i)
				}
			}
			if !s.BoardConsistent() {
				t.Fatalf("game %d: board inconsistent", i)
			}
			return nil
		}}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 3))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}
