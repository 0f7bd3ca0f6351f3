package enginetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Timed is a bot that records the processor time of each of its decisions among more than one
// legal action. The machine's cores are shared, so wall time would say how busy it was; the
// process's CPU time is what one core spends (a decision runs on one goroutine; the garbage
// collector's share is counted in).
type Timed[A any] struct {
	Bot   engine.Bot[A]
	Times *Times
}

// Choose implements engine.Bot.
func (t Timed[A]) Choose(v proto.Message, legal []A, r *rand.Rand) A {
	t0 := CPUTime()
	a := t.Bot.Choose(v, legal, r)
	if len(legal) > 1 {
		*t.Times = append(*t.Times, CPUTime()-t0)
	}
	return a
}

// Times are the processor times of a bot's decisions.
type Times []time.Duration

// Mean is their mean (0 for none).
func (d Times) Mean() time.Duration {
	if len(d) == 0 {
		return 0
	}
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return s / time.Duration(len(d))
}

// Pct is their p-quantile (p in [0, 1]; 0 for none).
func (d Times) Pct(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// String says how many, their mean, p50, p99 and maximum.
func (d Times) String() string {
	return fmt.Sprintf("%d decisions, mean %v, p50 %v, p99 %v, max %v", len(d), d.Mean(), d.Pct(0.5), d.Pct(0.99), d.Pct(1))
}

// Position is a decision to make: a seat's view and its legal actions.
type Position[A any] struct {
	View  proto.Message
	Legal []A
}

// BenchDecisions is b's loop over bot's decisions at positions, in turn, reporting the processor
// time one decision takes (cpu-ms/decision).
func BenchDecisions[A any](b *testing.B, bot engine.Bot[A], positions []Position[A]) {
	if len(positions) == 0 {
		b.Fatal("no positions to decide")
	}
	r := rand.New(rand.NewPCG(1, 1))
	cpu0 := CPUTime()
	for i := 0; b.Loop(); i++ {
		p := positions[i%len(positions)]
		bot.Choose(p.View, p.Legal, r)
	}
	b.ReportMetric(float64((CPUTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/decision")
}
