package engine

import (
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
	sp, ok := NewSampler(v)
	if !ok {
		return nil, false
	}
	s = &State{}
	sp.Deal(r, s)
	return s, true
}

// Sampler is Sample with the view read once: a bot that deals many worlds from one view decodes
// it once and deals each world with no allocation. Deal draws from r exactly as Sample does, so
// both give the same world for the same source.
type Sampler struct {
	base State // what the view shows: everything but the other hands, the pile's unseen cards and the removed ones
	pool [numCards]int8
	k    int // unseen cards in pool
	// The other seats in dealing order (most shown voids first): seat, colours it lacks, hand size.
	order [5]struct {
		seat int8
		void uint64
		need int
	}
	nOrder int
	pile   [16]int8 // the pile cards the view shows, in order
	nPile  int
	want   int // the pile's size to deal to
}

// NewSampler reads v for Deal; ok is false for the tables Sample does not support.
func NewSampler(v *pb.View) (*Sampler, bool) {
	sp := &Sampler{}
	s := &sp.base
	s.Variants = variantsOf(v.GetOptions())
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
	pile := sp.pile[:0]
	if s.on(vUnderArrest) {
		s.OpenPile = add(v.GetOpenPile())
	} else if s.on(vOpenInformation) {
		for _, c := range v.GetOpenPile() {
			if len(pile) < len(sp.pile) {
				pile = append(pile, CardID(c))
			}
			seen |= bit(CardID(c))
		}
	} else if nt := CardID(v.GetNextTrump()); nt >= 0 {
		pile = append(pile, nt)
		seen |= bit(nt)
	}
	sp.nPile = len(pile)
	sp.want = len(pile) + int(v.GetPileSize())
	eachCard(allCards&^seen, func(c int8) { sp.pool[sp.k] = c; sp.k++ })
	// The most constrained seats are dealt first.
	order := make([]*pb.SeatView, 0, n)
	for _, sv := range v.GetSeats() {
		if int8(sv.GetSeat()) != me {
			order = append(order, sv)
		}
	}
	slices.SortStableFunc(order, func(a, b *pb.SeatView) int { return len(b.GetVoidColours()) - len(a.GetVoidColours()) })
	for _, sv := range order {
		if sp.nOrder == len(sp.order) {
			break
		}
		o := &sp.order[sp.nOrder]
		sp.nOrder++
		o.seat, o.need = int8(sv.GetSeat()), int(sv.GetHandSize())
		for _, col := range sv.GetVoidColours() {
			o.void |= colourMask[col-1]
		}
	}
	return sp, true
}

// Deal writes into s a world consistent with the view: the unseen cards shuffled and dealt to the
// other hands, never a colour a seat has shown it lacks (when the cards allow), the rest to the
// pile and then to the removed cards.
func (sp *Sampler) Deal(r *rand.Rand, s *State) {
	*s = sp.base
	pool := sp.pool
	k := sp.k
	r.Shuffle(k, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	used := uint64(0)
	for oi := 0; oi < sp.nOrder; oi++ {
		o := &sp.order[oi]
		need := o.need
		for pass := 0; pass < 2 && need > 0; pass++ {
			for j := 0; j < k && need > 0; j++ {
				c := pool[j]
				if used&bit(c) != 0 || (pass == 0 && o.void&bit(c) != 0) {
					continue
				}
				s.Hands[o.seat] |= bit(c)
				used |= bit(c)
				need--
			}
		}
	}
	copy(s.Pile[:], sp.pile[:sp.nPile])
	pl := sp.nPile
	want := min(sp.want, len(s.Pile))
	for j := 0; j < k; j++ {
		c := pool[j]
		if used&bit(c) != 0 {
			continue
		}
		if pl < want {
			s.Pile[pl] = c
			pl++
		} else {
			s.Removed |= bit(c)
		}
	}
	s.PileLen = int8(pl)
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
//
// It is the strong bot's rollout policy, so it is written for speed: what every action shares (the
// capture without the played card, the faction counts, the expectation of the unseen cards) is
// worked out once, and each card only adds itself to its faction's row.
func (s *State) Greedy(seat int8, legal []Action) Action {
	area := s.Areas[s.areaOf(seat)]
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
	nAfter := int(s.N - 1 - s.Acted)
	after := float64(nAfter)
	// The expected value of one more unseen card joining the area after this capture.
	var unseen uint64 = allCards &^ (s.Hands[seat] | table | trump | s.Discard | s.Removed)
	for i := int8(0); i < s.N; i++ {
		unseen &^= s.Areas[i]
	}
	nUnseen := popcount(unseen)
	// The card to beat: the lead colour is known once a card (not a remote bomb) is on the table,
	// and with none on the table there is nothing to beat.
	keyOf := func(c, lead int8) int {
		switch colourOf(c) {
		case s.TrumpColour:
			return 100 + int(rankOf(c))
		case lead:
			return int(rankOf(c))
		}
		return 0
	}
	bestKey := 0
	for i := 0; i < int(s.NPlayed); i++ {
		if p := s.Table[i]; p.Source != srcRemote {
			bestKey = max(bestKey, keyOf(p.Card, s.Lead))
		}
	}
	tbl := s.scoreTable()
	wild := s.on(vWildBomb)
	base := s.areaPoints(area)
	// The capture without the card played: its faction counts, bombs, points, and the expected
	// gain of one more unseen card (an integer: exactly what summing it card by card gives).
	rest := area | table | trump
	var counts, unseenIn [6]int
	rows, expRows := 0, 0
	for f := range factionMask {
		counts[f] = popcount(rest & factionMask[f])
		unseenIn[f] = popcount(unseen & factionMask[f])
		rows += tbl[counts[f]]
		expRows += unseenIn[f] * (tbl[min(counts[f]+1, 12)] - tbl[counts[f]])
	}
	bombs := popcount(rest & bombMask)
	bombPoints := func(b int) int {
		if b == 4 {
			return Data.BombAll
		}
		return b * Data.BombEach
	}
	unseenBombs := popcount(unseen & bombMask)
	best, bestVal := legal[0], -1e9
	for _, a := range legal {
		val := -GreedyMarker
		if a.Kind == KindPlay {
			l := s.Lead
			if l < 0 {
				l = colourOf(a.Card)
			}
			k := keyOf(a.Card, l)
			val = -GreedyStrength * float64(rankOf(a.Card)) / 13
			if k > bestKey {
				// The capture's points and its unseen-card expectation with a.Card in it.
				points, exp := 0, expRows
				f := factionOf(a.Card)
				if f >= 0 {
					n := counts[f]
					exp += unseenIn[f] * (tbl[min(n+2, 12)] - tbl[n+1] - (tbl[min(n+1, 12)] - tbl[n]))
				}
				switch {
				case wild:
					points = s.areaPoints(rest | bit(a.Card))
				case f < 0:
					points = rows + bombPoints(bombs+1)
				default:
					points = rows - tbl[counts[f]] + tbl[counts[f]+1] + bombPoints(bombs)
				}
				gain := sign * float64(points-base)
				if !last && unseen != 0 && GreedyUnseen != 0 {
					e := float64(exp) + float64(unseenBombs)*float64(Data.BombEach)
					gain += sign * GreedyUnseen * after * e / float64(nUnseen)
				}
				hold := 1.0
				if !last && unseen != 0 {
					// Each later seat beats the card about as often as a random unseen card does.
					above := colourMask[colourOf(a.Card)] &^ (bit(a.Card)<<1 - 1)
					beat := above
					if colourOf(a.Card) != s.TrumpColour && s.TrumpColour >= 0 {
						beat |= colourMask[s.TrumpColour]
					}
					per := float64(popcount(beat&unseen)) / float64(nUnseen)
					for range nAfter {
						hold *= 1 - per // (1-per)^after, without math.Pow
					}
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
