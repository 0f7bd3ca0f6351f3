package bot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/kit/engine/search"
	"cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/protobuf/proto"
)

// timed records the processor time of each searched decision of a strong bot. The machine's
// cores are shared, so wall time would say how busy it was; the process's CPU time is what one
// core spends (the decision runs on one goroutine; the garbage collector's share is counted in).
type timed struct {
	*Strong
	d *enginetest.Times
}

func (t timed) Wants(view proto.Message, legal []engine.Action) (engine.Action, bool) {
	want, ok := Heuristic{}.Wants(view, legal)
	if _, search := t.roots(view, want, slices.Clone(legal)); !ok || !search || t.d == nil {
		return t.Strong.Wants(view, legal)
	}
	t0 := enginetest.CPUTime()
	a, ok := t.Strong.Wants(view, legal)
	*t.d = append(*t.d, enginetest.CPUTime()-t0)
	return a, ok
}

// oneAgainstThree plays games 4-seat games (botTable) with bot one in seat i%4 and the normal bot
// in the others; it returns one's wins (a shared win counts) and how many of them it won alone.
//
// SABAI_SHARD=k/n plays only the games i with i%n == k (to spread a long run over processes; the
// counts of the shards add up to the whole run's).
func oneAgainstThree(t testing.TB, games int, one kit.Bot[engine.Action], seed uint64) (wins, alone, played int) {
	k, n := 0, 1
	if sh := os.Getenv("SABAI_SHARD"); sh != "" {
		if _, err := fmt.Sscanf(sh, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n {
			t.Fatalf("SABAI_SHARD=%q: want k/n", sh)
		}
	}
	for i := k; i < games; i += n {
		played++
		seat := i % 4
		bots := []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}}
		bots[seat] = one
		s, err := playTable(botTable(seed+uint64(i)), bots, rand.New(rand.NewPCG(uint64(i), seed)))
		if err != nil {
			t.Fatalf("game %d: %v", i, err)
		}
		o, _ := engine.Game{}.Outcome(s)
		if o.GetResults()[seat].GetWinner() {
			wins++
			n := 0
			for _, r := range o.GetResults() {
				if r.GetWinner() {
					n++
				}
			}
			if n == 1 {
				alone++
			}
		}
	}
	return wins, alone, played
}

func report(t testing.TB, what string, k, alone, n int) float64 {
	lo, hi := enginetest.Wilson(k, n)
	t.Logf("%s: %d wins of %d (%.1f%%, 95%% interval %.1f-%.1f%%; %d alone, %.1f%%)", what, k, n,
		100*float64(k)/float64(n), 100*lo, 100*hi, alone, 100*float64(alone)/float64(n))
	return float64(k) / float64(n)
}

// TestPolicyIsTheHeuristic: the worlds' policy (engine.State.Policy, read from the state's
// knowledge) makes the heuristic bot's move (Heuristic.Wants, read from the view) whenever the
// heuristic wants to act, at every step of seeded games, for every seat.
func TestPolicyIsTheHeuristic(t *testing.T) {
	g := engine.Game{}
	checked := 0
	var buf []engine.Action
	for i := range 40 {
		p := enginetest.Playout[*engine.State, engine.Action]{Game: g,
			Bots: []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, nil},
			OnStep: func(s *engine.State, _ enginetest.Step[engine.Action]) error {
				for seat := range 4 {
					buf = g.Legal(s, seat, buf[:0])
					if len(buf) == 0 {
						continue
					}
					want, ok := Heuristic{}.Wants(g.View(s, seat), buf)
					if !ok {
						continue
					}
					checked++
					if got := s.Policy(seat, buf); got != want {
						t.Fatalf("seat %d: the policy plays %+v, the heuristic %+v", seat, got, want)
					}
				}
				return nil
			}}
		cfg := kit.Config{Seats: 4, Seed: uint64(i), Options: botTable(0).Options, Start: start}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), 8))); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d moves compared", checked)
}

// decisions collects the searched decisions (view and legal actions) of seeded games among
// normal bots.
func decisions(t testing.TB, games int) []enginetest.Position[engine.Action] {
	var ps []enginetest.Position[engine.Action]
	g := engine.Game{}
	for i := range games {
		p := enginetest.Playout[*engine.State, engine.Action]{Game: g,
			Bots: []kit.Bot[engine.Action]{Heuristic{}, Heuristic{}, Heuristic{}, Heuristic{}},
			OnStep: func(s *engine.State, _ enginetest.Step[engine.Action]) error {
				for seat := range 4 {
					legal := g.Legal(s, seat, nil)
					if len(legal) == 0 {
						continue
					}
					v := g.View(s, seat)
					want, ok := Heuristic{}.Wants(v, legal)
					if _, search := (&Strong{}).roots(v, want, slices.Clone(legal)); ok && search {
						ps = append(ps, enginetest.Position[engine.Action]{View: v, Legal: legal})
					}
				}
				return nil
			}}
		if _, err := p.Run(kit.Config{Seats: 4, Seed: 500 + uint64(i), Options: botTable(0).Options, Start: start},
			rand.New(rand.NewPCG(uint64(i), 5))); err != nil {
			t.Fatal(err)
		}
	}
	return ps
}

// TestStrongDeterministic: with iterations only, the same view gets the same decision, from the
// same number of iterations; the search runs on turn decisions and leaves reactions to the
// heuristic.
func TestStrongDeterministic(t *testing.T) {
	ps := decisions(t, 1)
	if len(ps) < 20 {
		t.Fatalf("only %d decisions", len(ps))
	}
	b := NewStrong(StrongOptions{Iterations: 60})
	for _, p := range ps[:20] {
		a1, ok1 := b.Wants(p.View, p.Legal)
		a2, ok2 := b.Wants(proto.Clone(p.View), slices.Clone(p.Legal))
		if !ok1 || !ok2 || a1 != a2 {
			t.Fatalf("the same view, two decisions: %+v, %+v", a1, a2)
		}
		_, st, searched := b.Decide(p.View, p.Legal, rand.New(rand.NewPCG(1, 2)))
		if !searched || st.Iterations > 60 || st.Iterations < 60-len(p.Legal) {
			t.Fatalf("searched %v, %d playouts; want about 60", searched, st.Iterations)
		}
		if !slices.Contains(p.Legal, a1) {
			t.Fatalf("chose %+v, not a legal action", a1)
		}
	}
}

// TestLevels: the strong level is the search bot, the normal one the heuristic bot, the easy one
// the heuristic with mistakes that waits when the heuristic does.
func TestLevels(t *testing.T) {
	if b, ok := Levels.For(search.Strong).(*Strong); !ok {
		t.Errorf("strong is %T", b)
	}
	if b := Levels.For(search.Normal); b != (Heuristic{}) {
		t.Errorf("normal is %T", b)
	}
	if b, ok := Levels.Easy().(kit.Waiter[engine.Action]); !ok {
		t.Errorf("easy is %T, not a Waiter", b)
	}
}

// TestStrongDecisionTime: the strong bot decides its turn moves in at most 50 ms of CPU on average
// and 100 ms at p99 (one goroutine, so one core), over every searched decision of several games.
func TestStrongDecisionTime(t *testing.T) {
	if raceEnabled {
		t.Skip("timing: run without -race")
	}
	games := 4
	if enginetest.FullWinRate() {
		games = 20
	}
	var d enginetest.Times
	_, _, _ = oneAgainstThree(t, games, timed{NewStrong(StrongOptions{}), &d}, 90_000)
	t.Logf("strong: %v", d)
	if d.Mean() > 50*time.Millisecond || d.Pct(0.99) > 100*time.Millisecond {
		t.Fatalf("strong decides too slowly: mean %v, p99 %v", d.Mean(), d.Pct(0.99))
	}
}

// BenchmarkStrongDecision is one searched decision of the strong bot at its default iterations,
// over the decisions of a few games; cpu-ms/decision is what one core spends.
func BenchmarkStrongDecision(b *testing.B) {
	enginetest.BenchDecisions(b, NewStrong(StrongOptions{}), decisions(b, 3))
}

// TestStrongWinRate: one strong bot against three normal ones (botTable: 4 bot seats, the default
// reactions, the throw window of a table with a person). In sabai-sabai ties for the most victory
// points are frequent and a shared win counts, so parity is well above 25 %: the normal bot in the
// same seats wins 40.0 % of 200 such games (18.0 % alone; docs/performance-log.md, "sabai-sabai").
//
// With 1,000 games at the default playouts (CARDROOM_WINRATE=1, make bots-winrate) the strong bot
// must win at least 40 %, the figure, and more than the normal bot does on the same games.
//
// The default run (make test) must last about a minute, so it plays 100 games at 100 playouts and
// requires 42 wins: it measured 46 (20 alone). At parity (p = 0.40, sd sqrt(100·0.4·0.6) = 4.9) 42
// or more happens by luck about 38 % of the time, so this run does not prove the strong bot better
// than the normal one (the full run does that); it catches a search that plays worse than the
// heuristic it starts from (the same games without the confidence rule won 38; easy wins 5 %). The
// games are seeded: the result changes only with the code.
func TestStrongWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games, it, min := winRateGames, winRateIterations, winRateBound
	if enginetest.FullWinRate() {
		games, it, min = 1000, 0, 0.40
	}
	k, a, p := oneAgainstThree(t, games, NewStrong(StrongOptions{Iterations: it}), 50_000)
	rate := report(t, "strong vs 3 normal, 4-seat bot tables", k, a, p)
	if rate < min {
		t.Fatalf("win rate %.3f below %.3f", rate, min)
	}
	if enginetest.FullWinRate() {
		// Parity on the same seeds: the normal bot in the strong bot's seat.
		k, a, p := oneAgainstThree(t, games, Heuristic{}, 50_000)
		if normal := report(t, "normal vs 3 normal (parity), the same games", k, a, p); rate <= normal {
			t.Fatalf("strong's win rate %.3f is not above normal's %.3f on the same games", rate, normal)
		}
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
	k, a, p := oneAgainstThree(t, games, Levels.Easy(), 60_000)
	if rate := report(t, "easy vs 3 normal, 4-seat bot tables", k, a, p); rate > 0.20 {
		t.Fatalf("win rate %.3f above 0.20", rate)
	}
}

// The default run of TestStrongWinRate (make test): games at iterations per decision, and the
// least win rate it requires.
const (
	winRateGames      = 100
	winRateIterations = 100
	winRateBound      = 0.42
)
