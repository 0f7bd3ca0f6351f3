package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
)

// greedyReference is Greedy written plainly: every action's capture scored from scratch with
// areaPoints and its unseen-card expectation summed faction by faction. Greedy works out what the
// actions share once; it must choose exactly what this does.
func (s *State) greedyReference(seat int8, legal []Action) Action {
	area := s.Areas[s.areaOf(seat)]
	base := s.areaPoints(area)
	sign := 1.0
	if s.lowGoal() {
		sign = -1
	}
	var table uint64
	for i := 0; i < int(s.NPlayed); i++ {
		table |= bit(s.Table[i].Card)
	}
	trump := uint64(0)
	if s.TrumpCard >= 0 && !s.on(vAnonymousHelp) {
		trump = bit(s.TrumpCard)
	}
	last := s.Acted == s.N-1
	after := float64(s.N - 1 - s.Acted)
	unseen := allCards &^ (s.Hands[seat] | table | trump | s.Discard | s.Removed)
	for i := int8(0); i < s.N; i++ {
		unseen &^= s.Areas[i]
	}
	tbl := s.scoreTable()
	best, bestVal := legal[0], -1e9
	for _, a := range legal {
		val := -GreedyMarker
		if a.Kind == KindPlay {
			l := s.Lead
			if l < 0 {
				l = colourOf(a.Card)
			}
			key := func(c int8) int {
				switch colourOf(c) {
				case s.TrumpColour:
					return 100 + int(rankOf(c))
				case l:
					return int(rankOf(c))
				}
				return 0
			}
			bestKey := 0
			for i := 0; i < int(s.NPlayed); i++ {
				if p := s.Table[i]; p.Source != srcRemote {
					bestKey = max(bestKey, key(p.Card))
				}
			}
			val = -GreedyStrength * float64(rankOf(a.Card)) / 13
			if key(a.Card) > bestKey {
				capture := area | table | trump | bit(a.Card)
				gain := sign * float64(s.areaPoints(capture)-base)
				if !last && unseen != 0 && GreedyUnseen != 0 {
					exp := 0.0
					for f := range factionMask {
						n := popcount(capture & factionMask[f])
						exp += float64(popcount(unseen&factionMask[f])) * float64(tbl[min(n+1, 12)]-tbl[n])
					}
					exp += float64(popcount(unseen&bombMask)) * float64(Data.BombEach)
					gain += sign * GreedyUnseen * after * exp / float64(popcount(unseen))
				}
				hold := 1.0
				if !last && unseen != 0 {
					beat := colourMask[colourOf(a.Card)] &^ (bit(a.Card)<<1 - 1)
					if colourOf(a.Card) != s.TrumpColour && s.TrumpColour >= 0 {
						beat |= colourMask[s.TrumpColour]
					}
					per := float64(popcount(beat&unseen)) / float64(popcount(unseen))
					hold = math.Pow(1-per, after)
				}
				val += hold * gain
			}
		}
		if val > bestVal {
			best, bestVal = a, val
		}
	}
	return best
}

// TestGreedyMatchesReference: on every play-phase decision of random games over random tables
// (every scoring table, Wild Bomb, the low goals, teams), Greedy chooses what the plain
// reference chooses.
func TestGreedyMatchesReference(t *testing.T) {
	g := Game{}
	var buf []Action
	n, wild := 0, 0
	for i := range 150 {
		cfg := randomConfig(i)
		s, _, err := g.Setup(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(i), 31))
		for steps := 0; s.Phase != PhaseOver && steps < 500; steps++ {
			seat := toAct(s)
			buf = g.Legal(s, seat, buf[:0])
			if s.Phase == PhasePlay && len(buf) > 1 {
				got, want := s.Greedy(int8(seat), buf), s.greedyReference(int8(seat), buf)
				if got != want {
					t.Fatalf("game %d (%s): Greedy chose %v, the reference %v", i, describeVariants(s.Variants), got, want)
				}
				n++
				if s.on(vWildBomb) {
					wild++
				}
			}
			s.Apply(seat, buf[r.IntN(len(buf))])
		}
	}
	if n < 1000 || wild == 0 {
		t.Fatalf("only %d decisions compared (%d with Wild Bomb)", n, wild)
	}
	t.Logf("%d decisions compared, %d with Wild Bomb", n, wild)
}

// toAct is the seat whose action s waits for.
func toAct(s *State) int {
	if s.Phase == PhaseSleeve {
		for seat := range int(s.N) {
			if s.Sleeve[seat] < 0 {
				return seat
			}
		}
	}
	return int(s.Turn)
}

// TestSamplerDealsAsSample: a Sampler dealing again and again into one reused state gives the
// worlds Sample gives, draw for draw.
func TestSamplerDealsAsSample(t *testing.T) {
	n := 0
	playStates(t, 20, func(s *State, me int) {
		v := Game{}.View(s, me).(*pb.View)
		sp, ok := NewSampler(v)
		if !ok {
			t.Fatal("base game not sampled")
		}
		r1, r2 := rand.New(rand.NewPCG(uint64(n), 4)), rand.New(rand.NewPCG(uint64(n), 4))
		var w State
		for range 3 {
			want, _ := Sample(v, r1)
			sp.Deal(r2, &w)
			if w != *want {
				t.Fatalf("Deal gave %+v, Sample %+v", w.core, want.core)
			}
		}
		n++
	})
}
