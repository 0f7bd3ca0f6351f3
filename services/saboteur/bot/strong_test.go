package bot

import (
	"math"
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

// byRole plays a seat by its current role: Saboteur for a saboteur, Digger for a gold digger
// (blue or green) or the boss, who win when the gold is reached, and the normal bot for the
// geologists and the profiteer, whose interests lie elsewhere (crystals; fewer winners).
type byRole struct {
	Saboteur, Digger kit.Bot[engine.Action]
}

func (b byRole) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	v, _ := view.(*pb.View)
	switch v.GetRole() {
	case pb.Role_ROLE_SABOTEUR:
		return b.Saboteur.Choose(view, legal, r)
	case pb.Role_ROLE_BLUE_DIGGER, pb.Role_ROLE_GREEN_DIGGER, pb.Role_ROLE_BOSS:
		return b.Digger.Choose(view, legal, r)
	}
	return RoleAware{}.Choose(view, legal, r)
}

// goldRounds plays games of 6-seat saboteur2 with every seat played by b and counts the rounds
// dealt with at least one saboteur at the table, and of them those whose gold was reached.
func goldRounds(t testing.TB, games int, b kit.Bot[engine.Action], seed uint64) (gold, rounds int) {
	bots := make([]kit.Bot[engine.Action], 6)
	for i := range bots {
		bots[i] = b
	}
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
		OnStep: func(_ *engine.State, st enginetest.Step[engine.Action]) error {
			for _, e := range st.Events {
				re, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoundEnded)
				if !ok {
					continue
				}
				for _, role := range re.RoundEnded.Result.Roles {
					if role == pb.Role_ROLE_SABOTEUR {
						rounds++
						if re.RoundEnded.Result.GoldReached {
							gold++
						}
						break
					}
				}
			}
			return nil
		}}
	for i := range games {
		cfg := kit.Config{Seats: 6, Seed: seed + uint64(i), Options: &pb.Options{}, Start: time.Unix(0, 0)}
		if _, err := p.Run(cfg, rand.New(rand.NewPCG(uint64(i), seed))); err != nil {
			t.Fatal(err)
		}
	}
	return gold, rounds
}

func rate(t testing.TB, what string, k, n int) float64 {
	p := float64(k) / float64(n)
	t.Logf("%s: gold reached in %d of %d rounds with a saboteur (%.1f%%, ±%.1f)", what, k, n, 100*p, 196*math.Sqrt(p*(1-p)/float64(n)))
	return p
}

// The play-strength figures of the issue, on 6-seat saboteur2: every seat plays by its role (byRole),
// and the share of rounds dealt with a saboteur in which the gold is reached is compared between
// normal bots everywhere and strong bots on one side. All arms play the same seeded deals, so the
// comparison is paired. With CARDROOM_WINRATE=1 (make bots-winrate) each arm plays 1,000 games at
// the strong bot's default iterations and the 10 points are asserted; by default each
// plays winRateGames games at winRateIterations (a saboteur's: winRateSaboteurIterations), with the
// bounds each test names.
const (
	winRateGames              = 24
	winRateIterations         = 80
	winRateSaboteurIterations = 160
	winRateSeed               = 70_000
)

func winRateSize() (games int, o StrongOptions) {
	if enginetest.FullWinRate() {
		return 1000, StrongOptions{}
	}
	return winRateGames, StrongOptions{Iterations: winRateIterations, SaboteurIterations: winRateSaboteurIterations}
}

// TestStrongSaboteursWinRate: strong saboteurs lower the share of rounds whose gold is reached,
// against normal gold diggers, by at least 10 points over 1,000 games (the figure; 10.6
// measured, 95 % interval 9.1–12.1: docs/performance.md). The default run (24 games, about 57
// rounds dealt with a saboteur, 80 and 160 iterations) requires a drop of at least 10 points (6
// rounds): it measures 13.8 (paired playouts, search.Paired), the tree search with the saboteur's
// own bounds 14.0, the version before those bounds (StrongSaboteurIterations,
// StrongSaboteurHorizon, no StrongMargin) 7.0. With the normal rate near 95 % a 57-round share has
// a standard deviation of about 2.9 points, the difference of two independent ones about 4.1, so a
// search no better than the heuristic would drop it by 10 points or more about 1 % of the time; the
// arms play the same deals, which takes out much of that spread. The games are seeded, so the
// result does not change from run to run.
func TestStrongSaboteursWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games, o := winRateSize()
	min := 0.10
	g0, n0 := goldRounds(t, games, byRole{RoleAware{}, RoleAware{}}, winRateSeed)
	p0 := rate(t, "normal diggers, normal saboteurs", g0, n0)
	g1, n1 := goldRounds(t, games, byRole{NewStrong(o), RoleAware{}}, winRateSeed)
	p1 := rate(t, "normal diggers, strong saboteurs", g1, n1)
	if p0-p1 < min {
		t.Fatalf("strong saboteurs lower the gold rate by %.1f points, want at least %.1f", 100*(p0-p1), 100*min)
	}
}

// TestStrongDiggersWinRate: strong gold diggers (blue, green and the boss) against normal
// saboteurs must not lower the share of rounds whose gold is reached by more than 4 points (2
// rounds of about 57 in the default run; the same bound over 1,000 games with CARDROOM_WINRATE=1):
// a search that played its team's turns noticeably worse (the first version lost 9 to 12 points)
// fails it. The figure it once carried, strong diggers raising the rate by 10 points, could not be
// met (normal bots already reach the gold in about 95 % of such rounds, and in Saboteur 2 a blue
// digger scores nothing from a green digger's gold, nor a green from a blue's): issue #40 replaced
// it by one strong seat's nuggets against a normal seat's (TestStrongSeatNuggetsWinRate).
func TestStrongDiggersWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	games, o := winRateSize()
	min := -0.04
	g0, n0 := goldRounds(t, games, byRole{RoleAware{}, RoleAware{}}, winRateSeed)
	p0 := rate(t, "normal diggers, normal saboteurs", g0, n0)
	g2, n2 := goldRounds(t, games, byRole{RoleAware{}, NewStrong(o)}, winRateSeed)
	p2 := rate(t, "strong diggers, normal saboteurs", g2, n2)
	if p2-p0 < min {
		t.Fatalf("strong diggers change the gold rate by %+.1f points, want at least %+.1f", 100*(p2-p0), 100*min)
	}
}

// TestStrongDeterministic: with iterations only, the same rand source gives the same decision.
func TestStrongDeterministic(t *testing.T) {
	ps := positions(t, 1)
	b := NewStrong(StrongOptions{Iterations: 50, SaboteurIterations: 50})
	for _, p := range ps[:10] {
		a1, st := b.Decide(p.View, p.Legal, rand.New(rand.NewPCG(1, 2)))
		a2, _ := b.Decide(p.View, p.Legal, rand.New(rand.NewPCG(1, 2)))
		if a1 != a2 {
			t.Fatalf("same seed, different moves: %v, %v", a1, a2)
		}
		if p.View.(*pb.View).Role == pb.Role_ROLE_SABOTEUR {
			// A saboteur plays each candidate in the same worlds: 50 playouts at most, a whole
			// number of worlds.
			if st.Iterations > 50 || st.Iterations <= 50-StrongSaboteurWidth {
				t.Fatalf("a saboteur's %d playouts, want at most 50 and more than %d", st.Iterations, 50-StrongSaboteurWidth)
			}
		} else if st.Iterations != 50 {
			t.Fatalf("%d iterations, want 50", st.Iterations)
		}
		if !slices.Contains(p.Legal, a1) {
			t.Fatalf("illegal move %v", a1)
		}
	}
}

// TestStrongPlaysLegalGames: strong bots in every seat, of every mode and size the sampler models
// or not (classic falls back where it must), finish their games with legal moves only (the
// harness refuses any other).
func TestStrongPlaysLegalGames(t *testing.T) {
	for i, n := range []int{2, 5, 6} {
		opts := &pb.Options{}
		if i%2 == 1 {
			opts.Mode = pb.Mode_MODE_CLASSIC
		}
		bots := make([]kit.Bot[engine.Action], n)
		for j := range bots {
			bots[j] = NewStrong(StrongOptions{Iterations: 5, SaboteurIterations: 5})
		}
		p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots}
		if _, err := p.Run(kit.Config{Seats: n, Seed: uint64(i), Options: opts, Start: time.Unix(0, 0)}, rand.New(rand.NewPCG(uint64(i), 1))); err != nil {
			t.Fatalf("%d seats, %v: %v", n, opts.Mode, err)
		}
	}
}
