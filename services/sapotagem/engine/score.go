package engine

import (
	"fmt"
	"strings"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
)

// scoreTable is the faction scoring table in force.
func (s *State) scoreTable() *[13]int {
	switch {
	case s.on(vInnocentOrGuilty):
		return &Data.ScoreInnocent
	case s.on(vSoapedFrog):
		return &Data.ScoreSoaped
	}
	return &Data.ScoreBase
}

// AreaPoints scores one play area: its faction rows, then its bombs (ruling S2), or with Wild
// Bomb each bomb added to the row that suits the owner best under the table's goal.
func (s *State) areaPoints(m uint64) int {
	table := s.scoreTable()
	if !s.on(vWildBomb) {
		// The common case, kept cheap (the bots' playouts score often): rows, then bombs.
		p := 0
		for f := range factionMask {
			p += table[popcount(m&factionMask[f])]
		}
		switch bombs := popcount(m & bombMask); bombs {
		case 4:
			p += Data.BombAll
		default:
			p += bombs * Data.BombEach
		}
		return p
	}
	var counts [6]int
	for f := range factionMask {
		counts[f] = popcount(m & factionMask[f])
	}
	bombs := popcount(m & bombMask)
	rows := func() int {
		p := 0
		for _, c := range counts {
			p += table[c]
		}
		return p
	}
	return bestWild(&counts, bombs, 0, rows, s.lowGoal())
}

// bestWild tries every way to add the remaining bombs to rows from row `from` on.
func bestWild(counts *[6]int, bombs, from int, rows func() int, low bool) int {
	if bombs == 0 {
		return rows()
	}
	best, first := 0, true
	for f := from; f < 6; f++ {
		counts[f]++
		p := bestWild(counts, bombs-1, f, rows, low)
		counts[f]--
		if first || (low && p < best) || (!low && p > best) {
			best, first = p, false
		}
	}
	return best
}

// scores are a finished game's figures, by seat.
type scores struct {
	area  [6]int // the seat's own area points (shared area: the team's, on every member)
	unit  [6]int // the score that ranks the seat (the team's with teams)
	cards [6]int // the tie-break card count of the seat's unit
}

// score computes the final scores.
func (s *State) score() scores {
	var r scores
	var pen [6]int
	for seat := int8(0); seat < s.N; seat++ {
		if s.on(vCostlyAbsence) {
			pen[seat] = Data.CostlyPenalty[s.JumpsUsed[seat]]
		}
		r.area[seat] = s.areaPoints(s.Areas[s.areaOf(seat)])
	}
	low := s.lowGoal()
	better := func(p1, c1, p2, c2 int) bool {
		if p1 != p2 {
			return (p1 > p2) != low
		}
		return c1 != c2 && (c1 > c2) != low
	}
	for seat := int8(0); seat < s.N; seat++ {
		own := r.area[seat] + pen[seat]
		cards := popcount(s.Areas[s.areaOf(seat)])
		switch {
		case s.sharedAreas():
			mate := (seat + s.N/2) % s.N
			r.unit[seat], r.cards[seat] = r.area[seat]+pen[seat]+pen[mate], cards
		case s.teams():
			mate := (seat + s.N/2) % s.N
			mOwn, mCards := r.area[mate]+pen[mate], popcount(s.Areas[mate])
			r.unit[seat], r.cards[seat] = own, cards
			if better(mOwn, mCards, own, cards) {
				r.unit[seat], r.cards[seat] = mOwn, mCards
			}
		default:
			r.unit[seat], r.cards[seat] = own, cards
		}
	}
	return r
}

// outcome ranks the units (seats or teams): higher points first (lower with Double Agent /
// Agency Double), then more cards (fewer), ties shared.
func (r scores) outcome(s *State) *gamev1.Outcome {
	low := s.lowGoal()
	out := &gamev1.Outcome{}
	for seat := int8(0); seat < s.N; seat++ {
		rank := 1
		for o := int8(0); o < s.N; o++ {
			if s.teamOf(o) == s.teamOf(seat) || (s.teams() && o >= s.N/2) {
				continue
			}
			p1, c1, p2, c2 := r.unit[o], r.cards[o], r.unit[seat], r.cards[seat]
			if p1 != p2 {
				if (p1 > p2) != low {
					rank++
				}
			} else if c1 != c2 && (c1 > c2) != low {
				rank++
			}
		}
		out.Results = append(out.Results, &gamev1.SeatResult{Seat: uint32(seat), Score: int64(r.unit[seat]),
			Rank: uint32(rank), Winner: rank == 1})
	}
	var winners []string
	for _, res := range out.Results {
		if res.Winner {
			winners = append(winners, fmt.Sprint(res.Seat))
		}
	}
	best := out.Results[0].Score
	for _, res := range out.Results {
		if res.Winner {
			best = res.Score
		}
	}
	who := "seat " + winners[0]
	switch {
	case s.teams():
		who = "the team of seats " + strings.Join(winners, " and ")
		if len(winners) > 2 || (s.N == 6 && len(winners) > 2) {
			who = "seats " + strings.Join(winners, ", ") + " (teams tied)"
		}
	case len(winners) > 1:
		who = "seats " + strings.Join(winners, ", ") + " (shared)"
	}
	out.Summary = fmt.Sprintf("%s win with %d points (%s)", who, best, describeVariants(s.Variants))
	if !s.teams() && len(winners) == 1 {
		out.Summary = fmt.Sprintf("%s wins with %d points (%s)", who, best, describeVariants(s.Variants))
	}
	return out
}
