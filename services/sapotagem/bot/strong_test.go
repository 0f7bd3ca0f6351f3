package bot

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sapotagem/engine"
)

// oneAgainstThree plays games 4-player base games with bot one in seat i%4 and the normal bot in
// the others, and counts one's wins (a shared win counts).
func oneAgainstThree(t testing.TB, games int, one kit.Bot[engine.Action], seed uint64) int {
	wins := 0
	for i := range games {
		seat := i % 4
		bots := []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
		bots[seat] = one
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		cfg := kit.Config{Seats: 4, Seed: seed + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed)))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := engine.Game{}.Outcome(res.State)
		if out.Results[seat].Winner {
			wins++
		}
	}
	return wins
}

func report(t testing.TB, what string, k, n int) float64 {
	lo, hi := enginetest.Wilson(k, n)
	t.Logf("%s: %d wins of %d (%.1f%%, 95%% interval %.1f-%.1f%%)", what, k, n, 100*float64(k)/float64(n), 100*lo, 100*hi)
	return float64(k) / float64(n)
}

// TestStrongWinRate: one strong bot against three normal ones. With 1,000 games
// (CARDROOM_WINRATE=1, make bots-winrate) it must win at least 40 %, the figure, which it
// does not reach yet (32.3 % measured, docs/performance.md). The default run plays 200 games and
// requires at least 57 wins (28.5 %). Were strong no better than normal (p = 0.25; a shared win
// counts as a win, which lifts parity a little) the count would have mean 50 and standard
// deviation sqrt(200*0.25*0.75) = 6.1, so 57 or more happens by luck about 13 % of the time; at
// the measured 32.3 % the mean is 64.6 (deviation 6.6) and fewer than 57 happens about 13 % of
// the time. The games are seeded, so the result does not change from run to run.
func TestStrongWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games, min := 200, 0.285
	if enginetest.FullWinRate() {
		games, min = 1000, 0.40
	}
	k := oneAgainstThree(t, games, NewStrong(StrongOptions{}), 50_000)
	if rate := report(t, "strong vs 3 normal, 4-player base games", k, games); rate < min {
		t.Fatalf("win rate %.3f below %.3f", rate, min)
	}
}

// TestEasyWinRate: one easy bot against three normal ones wins at most 20 %.
func TestEasyWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games := 200
	if enginetest.FullWinRate() {
		games = 1000
	}
	k := oneAgainstThree(t, games, Levels.Easy(), 60_000)
	if rate := report(t, "easy vs 3 normal, 4-player base games", k, games); rate > 0.20 {
		t.Fatalf("win rate %.3f above 0.20", rate)
	}
}

// TestStrongDeterministic: with iterations only, the same rand source gives the same decision.
func TestStrongDeterministic(t *testing.T) {
	s, _, err := engine.Game{}.Setup(kit.Config{Seats: 4, Seed: 7, Options: &pb.Options{}, Start: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	seat := int(s.Turn)
	legal := engine.Game{}.Legal(s, seat, nil)
	v := engine.Game{}.View(s, seat)
	b := NewStrong(StrongOptions{Iterations: 200})
	a1, st := b.Decide(v, legal, rand.New(rand.NewPCG(1, 2)))
	a2, _ := b.Decide(v, legal, rand.New(rand.NewPCG(1, 2)))
	if a1 != a2 {
		t.Fatalf("same seed, different moves: %v, %v", a1, a2)
	}
	if st.Iterations != 200 {
		t.Fatalf("%d iterations, want 200", st.Iterations)
	}
	if fmt.Sprint(a1) == "" {
		t.Fatal("no move")
	}
}
