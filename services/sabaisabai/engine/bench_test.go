package engine

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
)

// benchPlayouts plays random 4-player games with random throws as enginetest.Playout plays them
// (every seat's legal actions listed at every step, a random seat among those that can act) and
// reports rounds/s, actions per round and allocations per action.
func benchPlayouts(b *testing.B, opts *pb.Options, roundsPerGame int) {
	p := enginetest.Playout[*State, Action]{Game: Game{}}
	r := rand.New(rand.NewPCG(1, 2))
	moves := 0
	var m0, m1 runtime.MemStats
	b.ReportAllocs()
	runtime.ReadMemStats(&m0)
	cpu0 := enginetest.CPUTime()
	for i := 0; b.Loop(); i++ {
		cfg := engine.Config{Seats: 4, Seed: uint64(i), Options: opts, Start: start}
		res, err := p.Run(cfg, r)
		if err != nil {
			b.Fatal(err)
		}
		moves += res.Moves
	}
	cpu := enginetest.CPUTime() - cpu0
	runtime.ReadMemStats(&m1)
	rounds := float64(b.N * roundsPerGame)
	b.ReportMetric(rounds/b.Elapsed().Seconds(), "rounds/s")
	// Per second of the process's processor time: what one idle core does, even on a machine
	// busy with other work (with -cpu 1 the garbage collector's share is counted too).
	b.ReportMetric(rounds/cpu.Seconds(), "rounds/cpu-s")
	b.ReportMetric(float64(moves)/rounds, "actions/round")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(moves), "allocs/action")
}

// BenchmarkRandomRound4 plays full random 4-player games of one round. A one-round game's round is
// its final round (Ruling E3): no sabai sabai call, it ends when a row is emptied or after 30 turn
// cycles, so it is the longest kind of round.
func BenchmarkRandomRound4(b *testing.B) {
	benchPlayouts(b, &pb.Options{Rounds: 1}, 1)
}

// BenchmarkRandomRound4Direct plays the same games as BenchmarkRandomRound4 — every seat's legal
// actions listed at every step, a random seat among those that can act plays a random one of them,
// the virtual clock one second per action, a deadline applied when nobody can act or it has passed
// — driven by typed calls with buffers kept across games instead of the generic Playout.
func BenchmarkRandomRound4Direct(b *testing.B) {
	g := Game{}
	opts := &pb.Options{Rounds: 1}
	r := rand.New(rand.NewPCG(1, 2))
	var bufs [4][]Action
	actors := make([]int, 0, 4)
	moves := 0
	var m0, m1 runtime.MemStats
	b.ReportAllocs()
	runtime.ReadMemStats(&m0)
	cpu0 := enginetest.CPUTime()
	for i := 0; b.Loop(); i++ {
		s, _, err := g.Setup(engine.Config{Seats: 4, Seed: uint64(i), Options: opts, Start: start})
		if err != nil {
			b.Fatal(err)
		}
		now := start
		for {
			if _, over := g.Outcome(s); over {
				break
			}
			actors = actors[:0]
			for seat := range bufs {
				bufs[seat] = g.Legal(s, seat, bufs[seat][:0])
				if len(bufs[seat]) > 0 {
					actors = append(actors, seat)
				}
			}
			deadline, waits := g.Deadline(s)
			switch {
			case len(actors) > 0 && !(waits && !now.Before(deadline)):
				seat := actors[r.IntN(len(actors))]
				if next := now.Add(time.Second); !waits || next.Before(deadline) {
					now = next
				}
				_, err = g.Apply(s, engine.Move[Action]{Seat: seat, Action: bufs[seat][r.IntN(len(bufs[seat]))], At: now})
			case waits:
				if deadline.After(now) {
					now = deadline
				}
				_, err = g.Timeout(s, now)
			default:
				b.Fatal("stuck: not over, nobody can act, no deadline")
			}
			if err != nil {
				b.Fatal(err)
			}
			moves++
		}
	}
	cpu := enginetest.CPUTime() - cpu0
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "rounds/cpu-s")
	b.ReportMetric(float64(moves)/float64(b.N), "actions/round")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(moves), "allocs/action")
}

// BenchmarkRandomGame4 plays full random 4-player games with the default five rounds (four that
// random calls of sabai sabai end early, then the final round) and reports rounds/s over them.
func BenchmarkRandomGame4(b *testing.B) {
	benchPlayouts(b, &pb.Options{}, DefaultRounds)
}

// BenchmarkLegal lists one seat's legal actions in a mid-game state.
func BenchmarkLegal(b *testing.B) {
	s := midGame(b)
	buf := make([]Action, 0, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = Game{}.Legal(s, i%4, buf[:0])
	}
}

// BenchmarkView builds one seat's view in a mid-game state.
func BenchmarkView(b *testing.B) {
	s := midGame(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Game{}.View(s, i%4)
	}
}

func midGame(b *testing.B) *State {
	p := enginetest.Playout[*State, Action]{Game: Game{}, MaxSteps: 60}
	res, _ := p.Run(engine.Config{Seats: 4, Seed: 3, Options: &pb.Options{Rounds: 1}, Start: start}, rand.New(rand.NewPCG(3, 3)))
	if res.State == nil {
		b.Fatal("no state")
	}
	return res.State
}
