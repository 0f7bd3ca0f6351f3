package engine

import (
	"math"
	"math/rand/v2"
	"slices"

	pb "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
)

// Sample deals a full state consistent with what a seat's view shows: the cards the seat has not
// seen are dealt at random to the other hands and the face-down pile. Bots use it to play out
// possible futures. It supports the tables whose trump comes from the trump pile (the base game
// and variants that do not change where cards lie) or is fixed for the game (Under Arrest, Frogs on
// Duty, Costly Absence); ok is false for the others.
func Sample(v *pb.View, r *rand.Rand) (s *State, ok bool) {
	vars := variantsOf(v.GetOptions())
	s = &State{}
	s.Variants = vars
	fixed := s.on(vUnderArrest) || s.on(vFrogsOnDuty) || s.on(vCostlyAbsence)
	if !(s.pileScheme() || fixed) || s.on(vFugitiveFrogs) || v.GetViewer() < 0 || v.GetPhase() != pb.Phase_PHASE_PLAY {
		return nil, false
	}
	n := int8(len(v.GetSeats()))
	me := int8(v.GetViewer())
	s.N, s.Phase = n, PhasePlay
	s.Round, s.Rounds = int8(v.GetRound()), int8(v.GetRounds())
	s.Starter, s.Turn = int8(v.GetStartingSeat()), int8(v.GetTurn())
	s.Acted = (s.Turn - s.Starter + n) % n
	s.HasWinner = v.LastWinner != nil
	s.Lead, s.TrumpColour = int8(v.GetLead())-1, int8(v.GetTrump())-1
	s.TrumpCard, s.GameColour, s.Winner, s.Chooser, s.NextColour = CardID(v.GetTrumpCard()), -1, -1, -1, -1
	if fixed {
		s.GameColour = s.TrumpColour // these variants keep one trump colour all game
	}
	seen := uint64(0)
	add := func(cs []*pb.Card) uint64 {
		var m uint64
		for _, c := range cs {
			if id := CardID(c); id >= 0 {
				m |= bit(id)
			}
		}
		seen |= m
		return m
	}
	if s.TrumpCard >= 0 {
		seen |= bit(s.TrumpCard)
	}
	s.Hands[me] = add(v.GetHand())
	s.Discard = add(v.GetDiscard())
	for _, sv := range v.GetSeats() {
		i := sv.GetSeat()
		s.Areas[i] = add(sv.GetArea())
		s.Markers[i], s.JumpsUsed[i] = int8(sv.GetJumpMarkers()), int8(sv.GetJumpsUsed())
		for _, col := range sv.GetVoidColours() {
			s.Voids[i] |= 1 << (col - 1)
		}
		if !sv.GetSleeveChosen() {
			s.Sleeve[i], s.SleeveDeck[i] = -1, -1
		}
	}
	for _, p := range v.GetTable() {
		c := CardID(p.GetCard())
		seen |= bit(c)
		src := int8(srcHand)
		owner := int8(p.GetOwner())
		switch {
		case p.GetRemote():
			src, owner = srcRemote, -1
		case p.GetFromArea():
			src = srcArea
		}
		s.Table[s.NPlayed] = play{Seat: int8(p.GetSeat()), Card: c, Owner: owner, Source: src}
		s.NPlayed++
	}
	var pile []int8
	if s.on(vUnderArrest) {
		s.OpenPile = add(v.GetOpenPile())
	} else if s.on(vOpenInformation) {
		for _, c := range v.GetOpenPile() {
			pile = append(pile, CardID(c))
			seen |= bit(CardID(c))
		}
	} else if nt := CardID(v.GetNextTrump()); nt >= 0 {
		pile = append(pile, nt)
		seen |= bit(nt)
	}
	var pool [numCards]int8
	k := 0
	eachCard(allCards&^seen, func(c int8) { pool[k] = c; k++ })
	r.Shuffle(k, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	// Deal the unseen cards to the other hands, never a colour a seat has shown it lacks; the
	// most constrained seats first. What is left fills the pile.
	used := uint64(0)
	order := make([]*pb.SeatView, 0, n)
	for _, sv := range v.GetSeats() {
		if int8(sv.GetSeat()) != me {
			order = append(order, sv)
		}
	}
	slices.SortStableFunc(order, func(a, b *pb.SeatView) int { return len(b.GetVoidColours()) - len(a.GetVoidColours()) })
	for _, sv := range order {
		i := int8(sv.GetSeat())
		var void uint64
		for _, col := range sv.GetVoidColours() {
			void |= colourMask[col-1]
		}
		need := int(sv.GetHandSize())
		for pass := 0; pass < 2 && need > 0; pass++ {
			for j := 0; j < k && need > 0; j++ {
				c := pool[j]
				if used&bit(c) != 0 || (pass == 0 && void&bit(c) != 0) {
					continue
				}
				s.Hands[i] |= bit(c)
				used |= bit(c)
				need--
			}
		}
	}
	rest := pool[:0:0]
	for j := 0; j < k; j++ {
		if used&bit(pool[j]) == 0 {
			rest = append(rest, pool[j])
		}
	}
	pos, k := 0, len(rest)
	pool2 := rest
	want := len(pile) + int(v.GetPileSize())
	for len(pile) < want && pos < k && len(pile) < 16 {
		pile = append(pile, pool2[pos])
		pos++
	}
	s.PileLen = int8(copy(s.Pile[:], pile))
	for ; pos < k; pos++ {
		s.Removed |= bit(pool2[pos])
	}
	return s, true
}

// Playout plays s to its end quietly (no events): seat greedy chooses with Greedy, every other
// seat uniformly at random (greedy -1: all at random).
func Playout(s *State, r *rand.Rand, greedy int) {
	var buf [64]Action
	for s.Phase != PhaseOver {
		seat := s.Turn
		if s.Phase == PhaseSleeve {
			for seat = 0; s.Sleeve[seat] >= 0; seat++ {
			}
		}
		legal := Game{}.Legal(s, int(seat), buf[:0])
		a := legal[r.IntN(len(legal))]
		if int(seat) == greedy && s.Phase == PhasePlay {
			a = s.Greedy(seat, legal)
		}
		s.apply(seat, a, nil)
	}
}

// Greedy is a fast one-round judgement: play the card with the best expected capture now, jump
// rather than take a bad capture or waste a strong card.
func (s *State) Greedy(seat int8, legal []Action) Action {
	area := s.Areas[s.areaOf(seat)]
	base := s.areaPoints(area)
	sign := 1.0
	if s.lowGoal() {
		sign = -1
	}
	var table uint64
	bestKey := 0
	lead := s.Lead
	for i := 0; i < int(s.NPlayed); i++ {
		table |= bit(s.Table[i].Card)
	}
	trump := uint64(0)
	if s.TrumpCard >= 0 && !s.on(vAnonymousHelp) {
		trump = bit(s.TrumpCard)
	}
	last := s.Acted == s.N-1
	after := float64(s.N - 1 - s.Acted)
	// The expected value of one more unseen card joining the area after this capture.
	var unseen uint64 = allCards &^ (s.Hands[seat] | table | trump | s.Discard | s.Removed)
	for i := int8(0); i < s.N; i++ {
		unseen &^= s.Areas[i]
	}
	tbl := s.scoreTable()
	best, bestVal := legal[0], -1e9
	for _, a := range legal {
		val := -GreedyMarker
		if a.Kind == KindPlay {
			l := lead
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
			bestKey = 0
			for i := 0; i < int(s.NPlayed); i++ {
				if p := s.Table[i]; p.Source != srcRemote {
					bestKey = max(bestKey, key(p.Card))
				}
			}
			k := key(a.Card)
			val = -GreedyStrength * float64(rankOf(a.Card)) / 13
			if k > bestKey {
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
					// Each later seat beats the card about as often as a random unseen card does.
					above := colourMask[colourOf(a.Card)] &^ (bit(a.Card)<<1 - 1)
					beat := above
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

// Greedy tuning.
var (
	GreedyMarker   = 1.5
	GreedyStrength = 0.0
	GreedyUnseen   = 0.8
)

// Apply applies a legal action quietly (no events); bots use it in their playouts.
func (s *State) Apply(seat int, a Action) { s.apply(int8(seat), a, nil) }

// Result is seat's final result: whether it is among the winners, and its score margin over the
// best other unit.
func (s *State) Result(seat int) (win bool, margin int) {
	res := s.score()
	low := s.lowGoal()
	best, win := -1<<30, true
	for o := 0; o < int(s.N); o++ {
		if s.teamOf(int8(o)) == s.teamOf(int8(seat)) {
			continue
		}
		p1, c1, p2, c2 := res.unit[o], res.cards[o], res.unit[seat], res.cards[seat]
		if low {
			p1, p2, c1, c2 = -p1, -p2, -c1, -c2
		}
		if p1 > p2 || (p1 == p2 && c1 > c2) {
			win = false
		}
		if p1 > best {
			best = p1
		}
	}
	m := res.unit[seat] - best
	if low {
		m = -res.unit[seat] - best
	}
	return win, m
}
