package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/saboteur/engine"
)

// goldRate plays games of 6-player saboteur2 with every seat run by b and returns the share of
// rounds in which the gold was reached.
func goldRate(t *testing.T, b kit.Bot[engine.Action], games int) float64 {
	t.Helper()
	bots := make([]kit.Bot[engine.Action], 6)
	for i := range bots {
		bots[i] = b
	}
	rounds, gold := 0, 0
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
		OnStep: func(_ *engine.State, st enginetest.Step[engine.Action]) error {
			for _, e := range st.Events {
				if re, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoundEnded); ok {
					rounds++
					if re.RoundEnded.Result.GoldReached {
						gold++
					}
				}
			}
			return nil
		}}
	for i := range games {
		cfg := kit.Config{Seats: 6, Seed: uint64(1000 + i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 77))); err != nil {
			t.Fatal(err)
		}
	}
	return float64(gold) / float64(rounds)
}

func TestRoleAwareReachesGoldMoreOften(t *testing.T) {
	games := 500
	var smart, random float64
	t.Run("rates", func(t *testing.T) {
		t.Run("role-aware", func(t *testing.T) { t.Parallel(); smart = goldRate(t, RoleAware{}, games) })
		t.Run("random", func(t *testing.T) { t.Parallel(); random = goldRate(t, Random{}, games) })
	})
	t.Logf("6-player saboteur2, %d games each: gold reached in %.1f%% of rounds with role-aware bots, %.1f%% with random bots",
		games, 100*smart, 100*random)
	if smart < random+0.15 {
		t.Fatalf("role-aware %.3f is not clearly above random %.3f", smart, random)
	}
}

func TestBotOnlyChoosesLegal(t *testing.T) {
	g := engine.Game{}
	for i := range 50 {
		n := 2 + i%11
		opts := &pb.Options{}
		if i%2 == 1 {
			opts.Mode = pb.Mode_MODE_CLASSIC
			n = 3 + i%8
		}
		bots := make([]kit.Bot[engine.Action], n)
		for j := range bots {
			bots[j] = RoleAware{}
		}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: g, Bots: bots}
		if _, err := p.Run(kit.Config{Seats: n, Seed: uint64(i), Options: opts, Start: time.Unix(0, 0)}, rand.New(rand.NewPCG(uint64(i), 1))); err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
	}
}
