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

// positions collects the decisions (more than one legal action) of seeded games among normal
// bots.
func positions(t testing.TB, games int) []enginetest.Position[engine.Action] {
	var ps []enginetest.Position[engine.Action]
	for i := range games {
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}},
			OnStep: func(s *engine.State, _ enginetest.Step[engine.Action]) error {
				if s.Phase != engine.PhasePlay {
					return nil
				}
				legal := engine.Game{}.Legal(s, int(s.Turn), nil)
				if len(legal) > 1 {
					ps = append(ps, enginetest.Position[engine.Action]{View: engine.Game{}.View(s, int(s.Turn)), Legal: legal})
				}
				return nil
			}}
		cfg := kit.Config{Seats: 4, Seed: 500 + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 5))); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

// BenchmarkStrongDecision is one decision of the strong bot at its default budget, over the
// positions of a few games; cpu-ms/decision is what one core spends.
func BenchmarkStrongDecision(b *testing.B) {
	enginetest.BenchDecisions(b, NewStrong(StrongOptions{}), positions(b, 3))
}
