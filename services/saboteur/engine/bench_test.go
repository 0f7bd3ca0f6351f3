package engine

import (
	"cardroom.dev/services/kit/engine/enginetest"
	"math/rand/v2"
	"runtime"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	"cardroom.dev/services/kit/engine"
)

// BenchmarkRandomRounds plays full random 10-player saboteur2 games, listing the legal moves before
// every action, and reports rounds per second and allocations per action.
func BenchmarkRandomRounds(b *testing.B) {
	g := Game{}
	r := rand.New(rand.NewPCG(1, 2))
	var buf []Action
	rounds, actions := 0, 0
	cpu0 := enginetest.CPUTime()
	m0 := allocsSince(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s, _, err := g.Setup(engine.Config{Seats: 10, Seed: uint64(i), Options: &pb.Options{}, Start: t0})
		if err != nil {
			b.Fatal(err)
		}
		for !s.over {
			buf = g.Legal(s, s.cur, buf[:0])
			if _, err := g.Apply(s, engine.Move[Action]{Seat: s.cur, Action: buf[r.IntN(len(buf))], At: t0}); err != nil {
				b.Fatal(err)
			}
			actions++
		}
		rounds += Rounds
	}
	b.ReportMetric(float64(rounds)/b.Elapsed().Seconds(), "rounds/s")
	// On a shared machine wall time understates the engine; the process's CPU time does not.
	b.ReportMetric(float64(rounds)/(enginetest.CPUTime()-cpu0).Seconds(), "rounds/cpu-s")
	b.ReportMetric(float64(actions)/float64(rounds), "actions/round")
	b.ReportMetric(float64(allocsSince(m0))/float64(actions), "allocs/action")
}

// crowded returns a 10-player position with many cards on the board and a hand of path cards.
func crowded(b *testing.B) *State {
	g := Game{}
	r := rand.New(rand.NewPCG(3, 4))
	for seed := uint64(0); ; seed++ {
		s, _, _ := g.Setup(engine.Config{Seats: 10, Seed: seed, Options: &pb.Options{}, Start: t0})
		var buf []Action
		for !s.over && s.round == 1 {
			buf = g.Legal(s, s.cur, buf[:0])
			a := buf[r.IntN(len(buf))]
			for _, x := range buf {
				if x.Kind == KindPlace && r.IntN(2) == 0 {
					a = x
					break
				}
			}
			if _, err := g.Apply(s, engine.Move[Action]{Seat: s.cur, Action: a, At: t0}); err != nil {
				b.Fatal(err)
			}
			if len(s.b.slots) >= 40 && s.phase == phaseTurn {
				s.hands[s.cur] = []uint8{c(pb.Card_CARD_CROSSROADS), c(pb.Card_CARD_T_NS_E), c(pb.Card_CARD_CURVE_NW),
					c(pb.Card_CARD_LADDER_EW), c(pb.Card_CARD_BRIDGE), c(pb.Card_CARD_DEAD_NSE)}
				s.front[s.cur] = 0
				return s
			}
		}
	}
}

// BenchmarkLegalCrowded lists the legal moves of a seat holding six path cards on a board of 40+
// cards.
func BenchmarkLegalCrowded(b *testing.B) {
	s := crowded(b)
	g := Game{}
	buf := g.Legal(s, s.cur, nil)
	b.ReportAllocs()
	cpu0 := enginetest.CPUTime()
	for b.Loop() {
		buf = g.Legal(s, s.cur, buf[:0])
	}
	b.ReportMetric(float64((enginetest.CPUTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(s.b.slots)-4), "cards")
	b.ReportMetric(float64(len(buf)), "moves")
}

// allocsSince returns the heap allocations made since a count taken earlier.
func allocsSince(before uint64) uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Mallocs - before
}
