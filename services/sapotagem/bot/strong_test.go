package bot

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/sapotagem/engine"
)

// oneAgainstThree plays games 4-player base games with bot one in seat i%4 of game i and the
// normal bot in the others; it returns one's wins (a shared win counts) and how many of them it won
// alone. Each game has its own seeded random source, so the games are independent and the counts
// are the same however they are spread: two goroutines play them (the machine is shared; one must
// be safe to call from two goroutines, which the bots are: they keep no state between decisions).
func oneAgainstThree(t testing.TB, games int, one kit.Bot[engine.Action], seed uint64) (wins, alone int) {
	var (
		mu   sync.Mutex
		next int
		errs []error
		wg   sync.WaitGroup
	)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= games {
					return
				}
				seat := i % 4
				bots := []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
				bots[seat] = one
				p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
				cfg := kit.Config{Seats: 4, Seed: seed + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
				res, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed)))
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("game %d: %w", i, err))
				} else if out, _ := (engine.Game{}).Outcome(res.State); out.GetResults()[seat].GetWinner() {
					wins++
					n := 0
					for _, r := range out.GetResults() {
						if r.GetWinner() {
							n++
						}
					}
					if n == 1 {
						alone++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	return wins, alone
}

func report(t testing.TB, what string, k, alone, n int) float64 {
	lo, hi := enginetest.Wilson(k, n)
	t.Logf("%s: %d wins of %d (%.1f%%, 95%% interval %.1f-%.1f%%; %d alone)", what, k, n,
		100*float64(k)/float64(n), 100*lo, 100*hi, alone)
	return float64(k) / float64(n)
}

// TestStrongWinRate: one strong bot against three normal ones. In Sapotagem a shared win needs
// equal points and equal card counts, which is rare, so parity is 25 %: the normal bot in the same
// seats of the same 1,000 games wins 255 (25.5 %; of its 160 wins in games 400-999, 156 were alone; docs/performance-log.md).
//
// With 1,000 games (CARDROOM_WINRATE=1, make bots-winrate) the strong bot must win at least 40 %,
// the figure, which it does not reach yet (323 of 1,000 measured, 32.3 %), and more than the normal bot
// does on the same games.
//
// The default run (make test) must cost at most about a minute of CPU (a game costs about a
// quarter of a second: the three normal bots' searches and the strong bot's), so it plays the
// first 120 of those games
// and requires 38 wins (31.7 %); it measured 45 (37.5 %, 43 of them alone). Were strong no better
// than normal (p = 0.25: mean 30, standard deviation sqrt(120·0.25·0.75) = 4.7) 38 or more would
// happen by luck about 6 % of the time, so passing says the search beats the heuristic it starts
// from; it cannot say by how much (the full run does). The games are seeded: the count changes
// only with the code.
func TestStrongWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games, min := winRateGames, winRateMinWins
	if enginetest.FullWinRate() {
		games, min = 1000, 400
	}
	k, a := oneAgainstThree(t, games, NewStrong(StrongOptions{}), 50_000)
	rate := report(t, "strong vs 3 normal, 4-player base games", k, a, games)
	if enginetest.FullWinRate() {
		// Parity on the same seeds: the normal bot in the strong bot's seat.
		kn, an := oneAgainstThree(t, games, Heuristic{}, 50_000)
		if normal := report(t, "normal vs 3 normal (parity), the same games", kn, an, games); rate <= normal {
			t.Errorf("strong's win rate %.3f is not above normal's %.3f on the same games", rate, normal)
		}
	}
	if k < min {
		t.Fatalf("%d wins of %d (%.3f), below %d", k, games, rate, min)
	}
}

// The default run's size and bound (see TestStrongWinRate).
const (
	winRateGames   = 120
	winRateMinWins = 38
)

// TestEasyWinRate: one easy bot against three normal ones wins at most 20 %.
func TestEasyWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games := 200
	if enginetest.FullWinRate() {
		games = 1000
	}
	k, a := oneAgainstThree(t, games, Levels.Easy(), 60_000)
	if rate := report(t, "easy vs 3 normal, 4-player base games", k, a, games); rate > 0.20 {
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
