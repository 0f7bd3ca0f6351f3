package bot

import (
	"math/rand/v2"
	"testing"
	"time"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	spe "cardroom.dev/services/sponsio/engine"
)

// oneAgainstThree plays games 4-player games with bot one in seat i%4 and the normal bot in the
// others; it returns one's wins (a shared win counts) and the time of each of its decisions.
func oneAgainstThree(t testing.TB, games int, one engine.Bot[spe.Action], seed uint64) (int, enginetest.Times) {
	wins := 0
	var d enginetest.Times
	for i := range games {
		seat := i % 4
		bots := []engine.Bot[spe.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
		bots[seat] = enginetest.Timed[spe.Action]{Bot: one, Times: &d}
		p := enginetest.Playout[*spe.State, spe.Action]{Game: spe.Game{}, Bots: bots}
		cfg := engine.Config{Seats: 4, Seed: seed + uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
		res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed)))
		if err != nil {
			t.Fatal(err)
		}
		o, _ := spe.Game{}.Outcome(res.State)
		if o.GetResults()[seat].GetWinner() {
			wins++
		}
	}
	return wins, d
}

func report(t testing.TB, what string, k, n int) float64 {
	lo, hi := enginetest.Wilson(k, n)
	t.Logf("%s: %d wins of %d (%.1f%%, 95%% interval %.1f-%.1f%%)", what, k, n, 100*float64(k)/float64(n), 100*lo, 100*hi)
	return float64(k) / float64(n)
}

// TestStrongWinRate: one strong bot against three normal ones, 4-player games, must win at least
// 40 % of 1,000 games (the figure). It runs only with CARDROOM_WINRATE=1 (make
// bots-winrate): the strong bot does not meet it yet (docs/performance.md, "Bots": it plays at
// about parity with the normal bot), and a default run that asserted it would always fail.
func TestStrongWinRate(t *testing.T) {
	if !enginetest.FullWinRate() {
		t.Skip("1,000 games: set CARDROOM_WINRATE=1 (make bots-winrate)")
	}
	const games = 1000
	k, d := oneAgainstThree(t, games, NewStrong(StrongOptions{}), 70_000)
	t.Logf("strong: %d decisions, CPU p50 %v, p99 %v", len(d), d.Pct(0.5), d.Pct(0.99))
	if rate := report(t, "strong vs 3 normal, 4-player games", k, games); rate < 0.40 {
		t.Fatalf("win rate %.3f below 0.40", rate)
	}
}

// TestStrongBeatsRandomWinRate: one strong bot against three random ones wins at least 80 % of 40
// games (95 % of 80 measured; the normal bot wins 84.8 %). At p = 0.93 the count's standard
// deviation is sqrt(40*0.93*0.07) = 1.6 wins, so the bound, 32, is 3.2 deviations below the mean
// of 37; a search that chose badly (at the random bot's 25 %) could not come near it.
func TestStrongBeatsRandomWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -short")
	}
	const games = 40
	wins := 0
	b := NewStrong(StrongOptions{})
	for i := range games {
		seat := i % 4
		bots := make([]engine.Bot[spe.Action], 4)
		bots[seat] = b
		p := enginetest.Playout[*spe.State, spe.Action]{Game: spe.Game{}, Bots: bots}
		cfg := engine.Config{Seats: 4, Seed: uint64(i), Options: &sponsiov1.Options{}, Start: time.Unix(1_800_000_000, 0)}
		res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 1)))
		if err != nil {
			t.Fatal(err)
		}
		if o, _ := (spe.Game{}).Outcome(res.State); o.GetResults()[seat].GetWinner() {
			wins++
		}
	}
	if rate := report(t, "strong vs 3 random, 4-player games", wins, games); rate < 0.80 {
		t.Fatalf("win rate %.3f below 0.80", rate)
	}
}

// TestStrongDecisionTime: the strong bot decides in at most 50 ms of CPU at the median and 100 ms
// at p99 (one goroutine, so one core), over every decision of a few games against normal bots.
func TestStrongDecisionTime(t *testing.T) {
	if raceEnabled {
		t.Skip("timing: run without -race")
	}
	_, d := oneAgainstThree(t, 4, NewStrong(StrongOptions{}), 90_000)
	t.Logf("strong: %d decisions, CPU p50 %v, p99 %v, max %v", len(d), d.Pct(0.5), d.Pct(0.99), d.Pct(1))
	if d.Pct(0.5) > 50*time.Millisecond || d.Pct(0.99) > 100*time.Millisecond {
		t.Fatalf("strong decides too slowly: p50 %v, p99 %v", d.Pct(0.5), d.Pct(0.99))
	}
}

// TestEasyWinRate: one easy bot against three normal ones wins at most 20 %.
func TestEasyWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -short")
	}
	games := 200
	if enginetest.FullWinRate() {
		games = 1000
	}
	k, _ := oneAgainstThree(t, games, Levels.Easy(), 80_000)
	if rate := report(t, "easy vs 3 normal, 4-player games", k, games); rate > 0.20 {
		t.Fatalf("win rate %.3f above 0.20", rate)
	}
}
