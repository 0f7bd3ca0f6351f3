package engine

import (
	"cardroom.dev/services/kit/engine/enginetest"
	"math/rand/v2"
	"runtime"
	"testing"

	"cardroom.dev/services/kit/engine"
)

// playRandom plays one full random game with the state's own loop (one Legal call per step) and
// returns the number of actions.
func playRandom(g Game, c engine.Config, r *rand.Rand, buf *[]Action) int {
	s, _, _ := g.Setup(c)
	n := 0
	for s.Phase != PhaseOver {
		*buf = g.Legal(s, int(s.ToAct), (*buf)[:0])
		a := (*buf)[r.IntN(len(*buf))]
		if _, err := g.Apply(s, engine.Move[Action]{Seat: int(s.ToAct), Action: a, At: c.Start}); err != nil {
			panic(err)
		}
		n++
	}
	return n
}

// benchGames plays full random games (all rounds). games/s is by the wall clock; games/cpu-s by
// the process's CPU time, which is the fairer figure on a shared machine (run with -cpu 1).
func benchGames(b *testing.B, seats int) {
	g := Game{}
	r := rand.New(rand.NewPCG(1, 2))
	c := cfg(seats, 0)
	buf := make([]Action, 0, 512)
	actions := 0
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := enginetest.CPUTime()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Seed = uint64(i)
		actions += playRandom(g, c, r, &buf)
	}
	b.StopTimer()
	cpu := enginetest.CPUTime() - cpu0
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "games/cpu-s")
	b.ReportMetric(float64(actions)/float64(b.N), "actions/game")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(actions), "allocs/action")
}

func BenchmarkRandomGame4(b *testing.B) { benchGames(b, 4) }
func BenchmarkRandomGame3(b *testing.B) { benchGames(b, 3) }

// BenchmarkEncodeDecodeState is the harness's per-action state round trip, mid-game.
func BenchmarkEncodeDecodeState(b *testing.B) {
	g := Game{}
	s := stateAt(4, 5, 60)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ := g.EncodeState(s)
		if _, err := g.DecodeState(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkView is one seat's view, mid-game.
func BenchmarkView(b *testing.B) {
	g := Game{}
	s := stateAt(4, 5, 60)
	b.ReportAllocs()
	for b.Loop() {
		_ = g.View(s, 1)
	}
}
