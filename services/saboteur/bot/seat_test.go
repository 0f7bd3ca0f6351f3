package bot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/enginetest"
	"cardroom.dev/services/saboteur/engine"
)

// seatRun is what one seat took in one game: its final nuggets (the outcome's score, thefts
// included), and per round the role it held and the nuggets that round paid it.
type seatRun struct {
	score  float64
	rounds []roundTake
}

type roundTake struct {
	role    pb.Role
	nuggets float64
}

// playSeat plays one 6-seat saboteur2 game dealt from seed with seat played by b and the other five
// by the normal bot, every choice drawn from a source of its own seeded by seed, and returns what
// that seat took.
func playSeat(t testing.TB, b kit.Bot[engine.Action], seat int, seed uint64) seatRun {
	bots := make([]kit.Bot[engine.Action], 6)
	for i := range bots {
		bots[i] = RoleAware{}
	}
	bots[seat] = b
	var run seatRun
	p := enginetest.Playout[*engine.State, engine.Action]{Game: engine.Game{}, Bots: bots,
		OnStep: func(_ *engine.State, st enginetest.Step[engine.Action]) error {
			for _, e := range st.Events {
				if re, ok := e.Payload.(*pb.Event).Kind.(*pb.Event_RoundEnded); ok {
					res := re.RoundEnded.GetResult()
					run.rounds = append(run.rounds, roundTake{res.GetRoles()[seat], float64(res.GetPayouts()[seat])})
				}
			}
			return nil
		}}
	cfg := kit.Config{Seats: 6, Seed: seed, Options: &pb.Options{}, Start: time.Unix(0, 0)}
	res, err := p.Run(cfg, rand.New(rand.NewPCG(seed, 0x5ea7)))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := engine.Game{}.Outcome(res.State)
	if !ok {
		t.Fatal("the game did not end")
	}
	for _, r := range o.GetResults() {
		if int(r.GetSeat()) == seat {
			run.score = float64(r.GetScore())
		}
	}
	return run
}

// meanCI is a sample's mean and its 95 % interval's half width (normal approximation).
func meanCI(xs []float64) (mean, half float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		half = 1.96 * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
	}
	return mean, half
}

var roleWords = map[pb.Role]string{
	pb.Role_ROLE_BLUE_DIGGER: "blue digger", pb.Role_ROLE_GREEN_DIGGER: "green digger", pb.Role_ROLE_BOSS: "boss",
	pb.Role_ROLE_SABOTEUR: "saboteur", pb.Role_ROLE_PROFITEER: "profiteer", pb.Role_ROLE_GEOLOGIST: "geologist",
}

// seatPairs is the default run's size: 72 pairs, each seat strong in 12.
const seatPairs = 72

// TestStrongSeatNuggetsWinRate: Saboteur's play strength measured per seat, as for the other
// games. In paired 6-seat Saboteur 2 games (the same deal played once with one seat strong and once
// with it normal, the other five normal both times; the seat taken in turn), issue #40 wants the
// strong seat's mean nuggets per game at least 1.25 times the normal seat's over 1,000 pairs
// (CARDROOM_WINRATE=1, make bots-winrate, which asserts it). It is not met: the strong bot, which
// plays for its side's round (the gold reached or not), took 1.03 times the normal seat's nuggets
// over 1,000 pairs (4.71 against 4.56 per game, paired difference +0.15 ±0.13; as a saboteur 0.51
// nuggets a round against 0.24, as a digger, boss, profiteer or geologist within the intervals of
// the normal seat's: docs/performance.md, "Bots"), and 1.07 over the default run's 72. It reports
// the nuggets per round by the role the seat held, with 95 % intervals. The default run (72 pairs
// at the strong bot's own iterations, about 25 s) requires at least 0.9 times: the search,
// deterministic given its seeds, measured 1.07 (paired difference +0.31 ±0.43 nuggets), and a
// change that made it play worse than the heuristic fails it. At the default run's reduced
// iterations of the other tests (80 and 160) the strong seat took 0.92 times: fewer.
func TestStrongSeatNuggetsWinRate(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("statistical test of play strength: run without -race and -short")
	}
	pairs := 1000
	if !enginetest.FullWinRate() {
		pairs = seatPairs
	}
	strong := NewStrong(StrongOptions{})
	var normalScores, strongScores, diffs []float64
	byRole := map[pb.Role][2][]float64{}
	for i := range pairs {
		seat, seed := i%6, uint64(winRateSeed+i)
		n, s := playSeat(t, RoleAware{}, seat, seed), playSeat(t, strong, seat, seed)
		normalScores, strongScores, diffs = append(normalScores, n.score), append(strongScores, s.score), append(diffs, s.score-n.score)
		for k, run := range []seatRun{n, s} {
			for _, r := range run.rounds {
				v := byRole[r.role]
				v[k] = append(v[k], r.nuggets)
				byRole[r.role] = v
			}
		}
	}
	mn, hn := meanCI(normalScores)
	ms, hs := meanCI(strongScores)
	md, hd := meanCI(diffs)
	var b strings.Builder
	fmt.Fprintf(&b, "%d pairs: nuggets per game, normal seat %.2f ±%.2f, strong seat %.2f ±%.2f (ratio %.2f; paired difference %+.2f ±%.2f)\n", pairs, mn, hn, ms, hs, ms/mn, md, hd)
	for _, role := range []pb.Role{pb.Role_ROLE_BLUE_DIGGER, pb.Role_ROLE_GREEN_DIGGER, pb.Role_ROLE_BOSS, pb.Role_ROLE_SABOTEUR, pb.Role_ROLE_PROFITEER, pb.Role_ROLE_GEOLOGIST} {
		v := byRole[role]
		an, ahn := meanCI(v[0])
		as, ahs := meanCI(v[1])
		fmt.Fprintf(&b, "  %-12s nuggets per round: normal %.2f ±%.2f (%d rounds), strong %.2f ±%.2f (%d rounds)\n", roleWords[role], an, ahn, len(v[0]), as, ahs, len(v[1]))
	}
	t.Log(b.String())
	min := 0.9
	if enginetest.FullWinRate() {
		min = 1.25
	}
	if ms < min*mn {
		t.Fatalf("the strong seat takes %.2f nuggets per game, %.2f times the normal seat's %.2f; want at least %.2f times", ms, ms/mn, mn, min)
	}
}
