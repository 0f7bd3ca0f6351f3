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

// decisionTimes plays games with bot in seat 0 and normal bots elsewhere and returns the time of
// each of bot's decisions (those with more than one legal action), sorted.
func decisionTimes(t testing.TB, games int, bot kit.Bot[engine.Action]) enginetest.Times {
	var d enginetest.Times
	for i := range games {
		bots := []kit.Bot[engine.Action]{enginetest.Timed[engine.Action]{Bot: bot, Times: &d}, Heuristic{}, Heuristic{}, Heuristic{}}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 4, Seed: 900 + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 3))); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestStrongDecisionTime: the strong bot decides in at most 50 ms of CPU on average and 100 ms at
// p99 (one goroutine, so one core), over every decision of several games.
func TestStrongDecisionTime(t *testing.T) {
	if raceEnabled {
		t.Skip("timing: run without -race")
	}
	d := decisionTimes(t, 6, NewStrong(StrongOptions{}))
	n := decisionTimes(t, 2, Heuristic{})
	t.Logf("strong: %v; normal: %v", d, n)
	if d.Mean() > 50*time.Millisecond || d.Pct(0.99) > 100*time.Millisecond {
		t.Fatalf("strong decides too slowly: mean %v, p99 %v", d.Mean(), d.Pct(0.99))
	}
}
