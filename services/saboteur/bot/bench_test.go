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

// positions collects the play-phase decisions (more than one legal action) of seeded 6-seat
// saboteur2 games among normal bots.
func positions(t testing.TB, games int) []enginetest.Position[engine.Action] {
	var ps []enginetest.Position[engine.Action]
	bots := make([]kit.Bot[engine.Action], 6)
	for i := range bots {
		bots[i] = RoleAware{}
	}
	for i := range games {
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
			OnStep: func(s *engine.State, _ enginetest.Step[engine.Action]) error {
				seat := s.ToAct()
				if seat < 0 {
					return nil
				}
				legal := engine.Game{}.Legal(s, seat, nil)
				if len(legal) > 1 && legal[0].Kind != engine.KindPick && legal[0].Kind != engine.KindSteal {
					ps = append(ps, enginetest.Position[engine.Action]{View: engine.Game{}.View(s, seat), Legal: legal})
				}
				return nil
			}}
		cfg := kit.Config{Seats: 6, Seed: 500 + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 5))); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

// BenchmarkStrongDecision is one decision of the strong bot at its default iterations, over the
// positions of a few games; cpu-ms/decision is what one core spends.
func BenchmarkStrongDecision(b *testing.B) {
	enginetest.BenchDecisions(b, NewStrong(StrongOptions{}), positions(b, 3))
}

// BenchmarkStrongSaboteurDecision is BenchmarkStrongDecision over a saboteur's positions only (its
// paired playouts, search.Paired), of more games, since a seat is a saboteur in about one round of
// five.
func BenchmarkStrongSaboteurDecision(b *testing.B) {
	var ps []enginetest.Position[engine.Action]
	for _, p := range positions(b, 12) {
		if p.View.(*pb.View).Role == pb.Role_ROLE_SABOTEUR {
			ps = append(ps, p)
		}
	}
	enginetest.BenchDecisions(b, NewStrong(StrongOptions{}), ps)
}
