package engine

import (
	"math/rand/v2"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
)

// playRandom plays one full random game with the state's own loop (one Legal call per step) and
// returns the number of actions.
func playRandom(g Game, c engine.Config, r *rand.Rand, buf *[]Action) int {
	s, _, _ := g.Setup(c)
	at := c.Start
	n := 0
	for s.Phase != PhaseOver {
		*buf = g.Legal(s, int(s.ToAct), (*buf)[:0])
		a := (*buf)[r.IntN(len(*buf))]
		if _, err := g.Apply(s, engine.Move[Action]{Seat: int(s.ToAct), Action: a, At: at}); err != nil {
			panic(err)
		}
		n++
	}
	return n
}

func benchGames(b *testing.B, seats int) {
	g := Game{}
	r := rand.New(rand.NewPCG(1, 2))
	c := cfg(seats, 0)
	c.Start = time.Unix(1_800_000_000, 0)
	buf := make([]Action, 0, 512)
	actions := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Seed = uint64(i)
		actions += playRandom(g, c, r, &buf)
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(actions)/float64(b.N), "actions/game")
}

func BenchmarkRandomGame4(b *testing.B) { benchGames(b, 4) }
func BenchmarkRandomGame3(b *testing.B) { benchGames(b, 3) }
