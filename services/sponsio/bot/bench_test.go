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

// positions collects the decisions (more than one legal action) of seeded games among normal
// bots.
func positions(t testing.TB, games int) []enginetest.Position[spe.Action] {
	var ps []enginetest.Position[spe.Action]
	for i := range games {
		p := enginetest.Playout[*spe.State, spe.Action]{Game: spe.Game{}, Bots: []engine.Bot[spe.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}},
			OnStep: func(s *spe.State, _ enginetest.Step[spe.Action]) error {
				if s.Phase == spe.PhaseOver {
					return nil
				}
				legal := spe.Game{}.Legal(s, int(s.ToAct), nil)
				if len(legal) > 1 {
					ps = append(ps, enginetest.Position[spe.Action]{View: spe.Game{}.View(s, int(s.ToAct)), Legal: legal})
				}
				return nil
			}}
		cfg := engine.Config{Seats: 4, Seed: 500 + uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 5))); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

// BenchmarkStrongDecision is one decision of the strong bot at its default budget, over the
// positions of a game; cpu-ms/decision is what one core spends.
func BenchmarkStrongDecision(b *testing.B) {
	enginetest.BenchDecisions(b, NewStrong(StrongOptions{}), positions(b, 1))
}
