package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// BenchmarkRandomGame/players=4 plays full random 4-player base games through the Game interface
// (Setup, Legal, Apply with events), as the harness would.
func BenchmarkRandomGame(b *testing.B) {
	for _, n := range []int{4} {
		b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) {
			g := Game{}
			p := enginetest.Playout[*State, Action]{Game: g}
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			moves := 0
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			cpu0 := enginetest.CPUTime()
			for i := 0; b.Loop(); i++ {
				res, err := p.Run(engine.Config{Seats: n, Seed: uint64(i), Options: OptionsOf(), Start: start}, r)
				if err != nil {
					b.Fatal(err)
				}
				moves += res.Moves
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(b.N)/(enginetest.CPUTime()-cpu0).Seconds(), "games/cpu-s")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
			b.ReportMetric(float64(moves)/float64(b.N), "actions/game")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(moves), "allocs/action")
		})
	}
}

// BenchmarkRandomGameDirect is the same game without the Playout driver: Legal and Apply only,
// and it reports allocations per action.
func BenchmarkRandomGameDirect(b *testing.B) {
	g := Game{}
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]Action, 0, 64)
	b.ReportAllocs()
	moves := 0
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := enginetest.CPUTime()
	for i := 0; b.Loop(); i++ {
		s, _, err := g.Setup(engine.Config{Seats: 4, Seed: uint64(i), Options: OptionsOf(), Start: start})
		if err != nil {
			b.Fatal(err)
		}
		for s.Phase != PhaseOver {
			seat := int(s.Turn)
			buf = g.Legal(s, seat, buf[:0])
			if _, err := g.Apply(s, engine.Move[Action]{Seat: seat, Action: buf[r.IntN(len(buf))], At: start}); err != nil {
				b.Fatal(err)
			}
			moves++
		}
	}
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(b.N)/(enginetest.CPUTime()-cpu0).Seconds(), "games/cpu-s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(moves)/float64(b.N), "actions/game")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(moves), "allocs/action")
}
