package storetest

import (
	"context"
	"math"
	"math/bits"
	"sort"
	"strings"
	"testing"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/stats"
)

// Expected are the figures of a workload computed directly from its tables, without the
// aggregator: what every store must hold after consuming the workload.
type Expected struct {
	Games   map[string]*ExpectedGame
	Players map[stats.PlayerKey]*ExpectedPlayer
	// Recent table ids per player, newest first (at most 20).
	Recent map[string][]string
	// Live: tables in play and distinct human players per game, and over all games.
	LiveTables  map[string]int64
	LivePlayers map[string]int64
	AllPlayers  int64
	Applied     int64
	Duplicates  int64
	Ignored     int64
	Rejected    map[string]int
}

// ExpectedGame holds one game's raw samples.
type ExpectedGame struct {
	Created, Finished, Aborted int64
	Actions, Durations, Scores []int64
	SeatGames, SeatWins        map[[2]int]int64
	PlayerCounts               map[int]int64
	Options                    map[string]int64
}

// ExpectedPlayer is one player's record in one game.
type ExpectedPlayer struct {
	Games, Wins, Aborted int64
	ScoreSum             int64
	Mu, Sigma            float64
	Rated                int64
	Human                bool
}

// Expect computes w's figures directly.
func Expect(w *Workload) *Expected {
	e := &Expected{Games: map[string]*ExpectedGame{}, Players: map[stats.PlayerKey]*ExpectedPlayer{}, Recent: map[string][]string{},
		LiveTables: map[string]int64{}, LivePlayers: map[string]int64{}, Rejected: w.Rejected, Ignored: int64(w.Ignored)}
	game := func(g string) *ExpectedGame {
		if e.Games[g] == nil {
			e.Games[g] = &ExpectedGame{SeatGames: map[[2]int]int64{}, SeatWins: map[[2]int]int64{}, PlayerCounts: map[int]int64{}, Options: map[string]int64{}}
		}
		return e.Games[g]
	}
	seen := map[string]string{} // table → "playing" or "done"
	for _, l := range w.Lifecycle {
		t := l.Table
		st := seen[t.ID]
		if st == "done" || (!l.Finished && st != "") {
			e.Duplicates++
			continue
		}
		e.Applied++
		g := game(t.Game)
		if !l.Finished {
			seen[t.ID] = "playing"
			g.Created++
			continue
		}
		seen[t.ID] = "done"
		f := t.Finished
		n := len(t.Seats)
		var res = make([]*gamev1.SeatResult, n)
		for _, r := range f.GetOutcome().GetResults() {
			res[r.GetSeat()] = r
		}
		aborted := f.GetOutcome().GetAborted()
		if aborted {
			g.Aborted++
		} else {
			g.Finished++
			g.Actions = append(g.Actions, int64(f.GetActions()))
			g.Durations = append(g.Durations, f.GetFinishedAt().AsTime().Sub(f.GetStartedAt().AsTime()).Milliseconds())
			g.PlayerCounts[n]++
			for i, r := range res {
				g.SeatGames[[2]int{n, i}]++
				if r.GetWinner() {
					g.SeatWins[[2]int{n, i}]++
				}
				g.Scores = append(g.Scores, r.GetScore())
			}
			for _, o := range optionKeys(t) {
				g.Options[o]++
			}
		}
		mu, sigma, rank := make([]float64, n), make([]float64, n), make([]uint32, n)
		for i, s := range t.Seats {
			k := stats.PlayerKey{Player: s.GetPlayer().GetPlayerId(), Game: t.Game}
			p := e.Players[k]
			if p == nil {
				p = &ExpectedPlayer{Mu: stats.DefaultRating.Mu, Sigma: stats.DefaultRating.Sigma, Human: s.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_HUMAN}
				e.Players[k] = p
			}
			r := e.Recent[k.Player]
			r = append([]string{t.ID}, r...)
			if len(r) > 20 {
				r = r[:20]
			}
			e.Recent[k.Player] = r
			if aborted {
				p.Aborted++
				continue
			}
			p.Games++
			if res[i].GetWinner() {
				p.Wins++
			}
			p.ScoreSum += res[i].GetScore()
			mu[i], sigma[i], rank[i] = p.Mu, p.Sigma, res[i].GetRank()
		}
		if !aborted {
			stats.DefaultRating.Rate(mu, sigma, rank)
			for i, s := range t.Seats {
				p := e.Players[stats.PlayerKey{Player: s.GetPlayer().GetPlayerId(), Game: t.Game}]
				p.Mu, p.Sigma = mu[i], sigma[i]
				p.Rated++
			}
		}
	}
	all := map[string]bool{}
	per := map[string]map[string]bool{}
	for _, t := range w.Tables {
		if seen[t.ID] != "playing" {
			continue
		}
		e.LiveTables[t.Game]++
		for _, s := range t.Seats {
			if s.GetPlayer().GetKind() == gamev1.PlayerKind_PLAYER_KIND_HUMAN {
				all[s.GetPlayer().GetPlayerId()] = true
				if per[t.Game] == nil {
					per[t.Game] = map[string]bool{}
				}
				per[t.Game][s.GetPlayer().GetPlayerId()] = true
			}
		}
	}
	for g, ps := range per {
		e.LivePlayers[g] = int64(len(ps))
	}
	e.AllPlayers = int64(len(all))
	return e
}

// optionKeys lists a table's set options as "option=value", as the workload chose them.
func optionKeys(t *Table) []string {
	if len(t.optionKeys) == 0 {
		return []string{"(defaults)="}
	}
	return t.optionKeys
}

// nearestRank is the exact nearest-rank percentile of samples.
func nearestRank(samples []int64, p float64) int64 {
	s := append([]int64(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(math.Ceil(p * float64(len(s))))
	return s[max(k, 1)-1]
}

// middle is the middle of the 1/32-of-a-power-of-two bucket holding v (v itself below 64).
func middle(v int64) float64 {
	neg := v < 0
	if neg {
		v = -v
	}
	lo, hi := v, v
	if v >= 64 {
		shift := uint(bits.Len64(uint64(v)) - 1 - 5)
		lo = v >> shift << shift
		hi = lo + 1<<shift - 1
	}
	m := float64(lo) + float64(hi-lo)/2
	if neg {
		return -m
	}
	return m
}

// Check compares st's aggregates with the direct computation of w.
func Check(t testing.TB, ctx context.Context, st stats.Store, w *Workload) {
	t.Helper()
	e := Expect(w)
	for name, g := range e.Games {
		c, err := st.GameCounters(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		gs := stats.GameStatsOf(name, c, true)
		if int64(gs.GetTablesCreated()) != g.Created || int64(gs.GetGamesFinished()) != g.Finished || int64(gs.GetGamesAborted()) != g.Aborted {
			t.Errorf("%s: created/finished/aborted %d/%d/%d, want %d/%d/%d", name, gs.GetTablesCreated(), gs.GetGamesFinished(), gs.GetGamesAborted(), g.Created, g.Finished, g.Aborted)
		}
		checkDist(t, name+" actions", gs.GetActions(), g.Actions)
		checkDist(t, name+" duration", gs.GetDurationMs(), g.Durations)
		checkDist(t, name+" scores", gs.GetScores(), g.Scores)
		if len(gs.GetSeatPositions()) != len(g.SeatGames) {
			t.Errorf("%s: %d seat positions, want %d", name, len(gs.GetSeatPositions()), len(g.SeatGames))
		}
		for _, sp := range gs.GetSeatPositions() {
			k := [2]int{int(sp.GetPlayerCount()), int(sp.GetSeat())}
			if int64(sp.GetGames()) != g.SeatGames[k] || int64(sp.GetWins()) != g.SeatWins[k] {
				t.Errorf("%s seat %v: %d games %d wins, want %d %d", name, k, sp.GetGames(), sp.GetWins(), g.SeatGames[k], g.SeatWins[k])
			}
		}
		for _, pc := range gs.GetPlayerCounts() {
			if int64(pc.GetGames()) != g.PlayerCounts[int(pc.GetPlayerCount())] {
				t.Errorf("%s: %d games with %d players, want %d", name, pc.GetGames(), pc.GetPlayerCount(), g.PlayerCounts[int(pc.GetPlayerCount())])
			}
		}
		got := map[string]int64{}
		for _, o := range gs.GetOptions() {
			got[o.GetOption()+"="+o.GetValue()] = int64(o.GetGames())
		}
		if !equalCounts(got, g.Options) {
			t.Errorf("%s options %v, want %v", name, got, g.Options)
		}
	}
	boards := map[string]int{}
	for k, p := range e.Players {
		recs, err := st.PlayerRecords(ctx, k.Player)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, r := range recs {
			if r.GetGame() != k.Game {
				continue
			}
			found = true
			if int64(r.GetGames()) != p.Games || int64(r.GetWins()) != p.Wins || int64(r.GetAborted()) != p.Aborted || r.GetScoreSum() != p.ScoreSum {
				t.Errorf("%v: games/wins/aborted/score %d/%d/%d/%d, want %d/%d/%d/%d", k, r.GetGames(), r.GetWins(), r.GetAborted(), r.GetScoreSum(), p.Games, p.Wins, p.Aborted, p.ScoreSum)
			}
			if r.GetRating().GetMu() != p.Mu || r.GetRating().GetSigma() != p.Sigma || int64(r.GetRating().GetRatedGames()) != p.Rated {
				t.Errorf("%v: rating %v, want mu %v sigma %v rated %d", k, r.GetRating(), p.Mu, p.Sigma, p.Rated)
			}
		}
		if !found {
			t.Errorf("%v: no record", k)
		}
		if p.Human && p.Rated > 0 {
			boards[k.Game]++
			rank, ok, err := st.Rank(ctx, k.Game, k.Player)
			if err != nil || !ok {
				t.Errorf("%v: not on the leaderboard (%v)", k, err)
				continue
			}
			rows, _, err := st.Leaderboard(ctx, k.Game, rank, 1)
			if err != nil || len(rows) != 1 || rows[0].Player != k.Player || rows[0].Rating != stats.Display(p.Mu, p.Sigma) {
				t.Errorf("%v: leaderboard row %v (%v), want rating %v", k, rows, err, stats.Display(p.Mu, p.Sigma))
			}
		}
	}
	for g, n := range boards {
		rows, total, err := st.Leaderboard(ctx, g, 0, n+10)
		if err != nil || total != n || len(rows) != n {
			t.Errorf("%s leaderboard: %d rows of %d (%v), want %d", g, len(rows), total, err, n)
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].Rating > rows[i-1].Rating {
				t.Errorf("%s leaderboard out of order at %d", g, i)
			}
		}
	}
	for p, ids := range e.Recent {
		rs, err := st.Recent(ctx, p, 50)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.GetTableId())
		}
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("%s recent %v, want %v", p, got, ids)
		}
	}
	live, err := st.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !equalCounts(live.Tables, e.LiveTables) || !equalCounts(live.Players, e.LivePlayers) || live.AllPlayers != e.AllPlayers {
		t.Errorf("live %v %v %d, want %v %v %d", live.Tables, live.Players, live.AllPlayers, e.LiveTables, e.LivePlayers, e.AllPlayers)
	}
	in, err := st.Ingest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rejected int64
	for r, n := range e.Rejected {
		rejected += int64(n)
		if in["rejected:"+r] != int64(n) {
			t.Errorf("rejected %s: %d, want %d", r, in["rejected:"+r], n)
		}
	}
	if in[stats.CounterApplied] != e.Applied || in[stats.CounterDuplicates] != e.Duplicates || in[stats.CounterIgnored] != e.Ignored || in[stats.CounterRejected] != rejected {
		t.Errorf("ingest %v, want applied %d duplicates %d ignored %d rejected %d", in, e.Applied, e.Duplicates, e.Ignored, rejected)
	}
}

func equalCounts(a, b map[string]int64) bool {
	for k, v := range a {
		if v != 0 && b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if v != 0 && a[k] != v {
			return false
		}
	}
	return true
}

type dist interface {
	GetCount() uint64
	GetMean() float64
	GetMin() int64
	GetMax() int64
	GetP50() float64
	GetP90() float64
	GetP99() float64
}

func checkDist(t testing.TB, name string, d dist, samples []int64) {
	t.Helper()
	if int(d.GetCount()) != len(samples) {
		t.Errorf("%s: count %d, want %d", name, d.GetCount(), len(samples))
		return
	}
	if len(samples) == 0 {
		return
	}
	var sum int64
	lo, hi := samples[0], samples[0]
	for _, v := range samples {
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	if d.GetMean() != float64(sum)/float64(len(samples)) || d.GetMin() != lo || d.GetMax() != hi {
		t.Errorf("%s: mean/min/max %v/%d/%d, want %v/%d/%d", name, d.GetMean(), d.GetMin(), d.GetMax(), float64(sum)/float64(len(samples)), lo, hi)
	}
	for _, c := range []struct {
		p   float64
		got float64
	}{{0.5, d.GetP50()}, {0.9, d.GetP90()}, {0.99, d.GetP99()}} {
		exact := nearestRank(samples, c.p)
		if want := min(max(middle(exact), float64(lo)), float64(hi)); c.got != want {
			t.Errorf("%s: p%v %v, want %v (exact %d)", name, c.p*100, c.got, want, exact)
		}
		if math.Abs(c.got-float64(exact)) > math.Abs(float64(exact))/64+0.5 {
			t.Errorf("%s: p%v %v too far from exact %d", name, c.p*100, c.got, exact)
		}
		if c.got < float64(lo) || c.got > float64(hi) {
			t.Errorf("%s: p%v %v outside [%d, %d]", name, c.p*100, c.got, lo, hi)
		}
	}
}
