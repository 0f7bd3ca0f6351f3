package bot

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/saboteur/engine"
	"google.golang.org/protobuf/proto"
)

// timed records the processor time each decision of a bot takes. The machine's cores are shared,
// so wall time would say how busy it was; the process's CPU time is what one core spends (the
// decision runs on one goroutine; the garbage collector's share is counted in).
type timed struct {
	bot kit.Bot[engine.Action]
	d   *[]time.Duration
}

func (t timed) Choose(v proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	t0 := enginetest.CPUTime()
	a := t.bot.Choose(v, legal, r)
	if len(legal) > 1 {
		*t.d = append(*t.d, enginetest.CPUTime()-t0)
	}
	return a
}

// decisionTimes plays 6-seat saboteur2 games with bot in seat 0 (whatever its role) and normal
// bots elsewhere and returns the time of each of bot's decisions (those with more than one legal
// action), sorted.
func decisionTimes(t testing.TB, games int, bot kit.Bot[engine.Action]) []time.Duration {
	var d []time.Duration
	for i := range games {
		bots := []kit.Bot[engine.Action]{timed{bot, &d}, RoleAware{}, RoleAware{}, RoleAware{}, RoleAware{}, RoleAware{}}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 6, Seed: 900 + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 3))); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(d)
	return d
}

func pct(d []time.Duration, p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }

func mean(d []time.Duration) time.Duration {
	var s time.Duration
	for _, x := range d {
		s += x
	}
	return s / time.Duration(len(d))
}

// TestStrongDecisionTime: the strong bot decides in at most 50 ms of CPU on average and 100 ms at
// p99 (one goroutine, so one core), over every decision of several games.
func TestStrongDecisionTime(t *testing.T) {
	if raceEnabled {
		t.Skip("timing: run without -race")
	}
	games := 4
	if testing.Short() {
		games = 1
	}
	d := decisionTimes(t, games, NewStrong(StrongOptions{}))
	n := decisionTimes(t, 2, RoleAware{})
	t.Logf("strong: %d decisions, mean %v, p50 %v, p99 %v, max %v; normal: p50 %v, p99 %v", len(d), mean(d), pct(d, 0.5), pct(d, 0.99), d[len(d)-1], pct(n, 0.5), pct(n, 0.99))
	if mean(d) > 50*time.Millisecond || pct(d, 0.99) > 100*time.Millisecond {
		t.Fatalf("strong decides too slowly: mean %v, p99 %v", mean(d), pct(d, 0.99))
	}
}
