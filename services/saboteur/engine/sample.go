package engine

import (
	"math/rand/v2"
	"slices"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
)

// Sample deals a full state consistent with a seat's view, for the search bot: what the view
// shows is kept (the board, the seat's own hand and role, the goals it has looked at with a map,
// the roles it has inspected, everything lying in front of the players, the hand sizes, nuggets
// and pile counts, the last round's result), and what it hides is dealt at random from what
// remains:
//
//   - the cards nobody sees (the path and action cards of the mode's deck, less the seat's hand,
//     the board and the cards lying in front of the players) are shuffled into the other hands,
//     the draw pile, the cards removed at the round's start and the discards (the view counts
//     the discards but does not list them, so played action cards are dealt among the unseen);
//   - the roles not seen are shuffled among the other seats and the roles set aside;
//   - the goals not seen are shuffled among the face-down goal cells;
//   - the order in which Theft cards were laid, which the view does not give, is random.
//
// The other seats are dealt no map or inspection knowledge, which the view does not show. Sample
// reads nothing but the view and r. It models the play of a round (phase turn) only: the gold
// picking and the thefts, decided at a round's end, return false.
func Sample(v *pb.View, r *rand.Rand) (*State, bool) {
	n := int(v.Seats)
	me := int(v.Viewer)
	if v.Phase != pb.Phase(phaseTurn) || n < 2 || n > MaxSeats || me < 0 || me >= n || len(v.SeatInfo) != n || len(v.Board) < 4 {
		return nil, false
	}
	classic := v.Mode == pb.Mode_MODE_CLASSIC
	s := &State{
		classic: classic, discard2: v.ClassicDiscardTwoToRepair, n: n,
		rng:   *rand.NewPCG(r.Uint64(), r.Uint64()),
		round: int(v.Round), phase: phaseTurn, cur: int(v.CurrentSeat), sampled: int(v.Round),
		nuggets: make([]int, n), roles: make([]uint8, n), hands: make([][]uint8, n),
		front: make([]uint8, n), theftAt: make([]uint16, n), mapped: make([]uint8, n), seen: make([]uint8, n*n),
	}
	if s.cur >= n {
		return nil, false
	}
	s.lastPlayer = (s.cur + n - 1) % n

	// The cards not seen: the deck less the hand, the board and the cards in front.
	var pool [numCards]int
	for _, c := range deckOf[b2i(classic)] {
		pool[c]++
	}
	take := func(c uint8) bool {
		if c >= numCards || pool[c] == 0 {
			return false
		}
		pool[c]--
		return true
	}
	for _, c := range v.Hand {
		if !take(uint8(c)) {
			return nil, false
		}
	}
	s.hands[me] = make([]uint8, len(v.Hand))
	for i, c := range v.Hand {
		s.hands[me][i] = uint8(c)
	}
	var thieves []int
	for i, si := range v.SeatInfo {
		s.nuggets[i] = int(si.Nuggets)
		for _, c := range si.InFront {
			b := frontBit(uint8(c))
			if b == 0 || !take(uint8(c)) {
				return nil, false
			}
			s.front[i] |= b
			if b == frontTheft {
				thieves = append(thieves, i)
			}
		}
	}
	r.Shuffle(len(thieves), func(i, j int) { thieves[i], thieves[j] = thieves[j], thieves[i] })
	for _, t := range thieves {
		s.seq++
		s.theftAt[t] = s.seq
	}

	// The board; the goals not seen are dealt among their cells.
	goalsLeft := []uint8{cGold, cCoalNW, cCoalNE}
	for i, bc := range v.Board[1:4] {
		if bc.Card == pb.Card_CARD_UNSPECIFIED {
			continue
		}
		k := slices.Index(goalsLeft, uint8(bc.Card))
		if k < 0 {
			return nil, false
		}
		goalsLeft = slices.Delete(goalsLeft, k, k+1)
		if bc.FaceDown {
			s.mapped[me] |= 1 << i
		}
	}
	r.Shuffle(len(goalsLeft), func(i, j int) { goalsLeft[i], goalsLeft[j] = goalsLeft[j], goalsLeft[i] })
	for i, bc := range v.Board {
		x, y := int(bc.Cell.GetX()), int(bc.Cell.GetY())
		c := uint8(bc.Card)
		if i >= 1 && i <= 3 {
			if c == 0 {
				c, goalsLeft = goalsLeft[0], goalsLeft[1:]
			}
			s.goals[i-1] = c
		} else if i >= 4 && !take(c) {
			return nil, false
		}
		if !inGrid(x, y) || s.b.at(x, y) >= 0 {
			return nil, false
		}
		s.b.add(slot{x: int8(x), y: int8(y), card: c, rot: bc.Rotated, faceDown: bc.FaceDown})
	}
	s.b.rebuildFrontier()
	s.b.recompute()

	// Deal the unseen cards.
	unseen := make([]uint8, 0, 128)
	for c, k := range pool {
		for range k {
			unseen = append(unseen, uint8(c))
		}
	}
	r.Shuffle(len(unseen), func(i, j int) { unseen[i], unseen[j] = unseen[j], unseen[i] })
	deal := func(k int) ([]uint8, bool) {
		if k > len(unseen) {
			return nil, false
		}
		out := slices.Clone(unseen[:k])
		unseen = unseen[k:]
		return out, true
	}
	ok := true
	for i, si := range v.SeatInfo {
		if i != me {
			if s.hands[i], ok = deal(int(si.HandCount)); !ok {
				return nil, false
			}
		}
	}
	if s.pile, ok = deal(int(v.DrawPile)); !ok {
		return nil, false
	}
	if s.removed, ok = deal(int(v.Removed)); !ok {
		return nil, false
	}
	if s.spent, ok = deal(int(v.DiscardPile)); !ok || len(unseen) != 0 {
		return nil, false
	}

	// Roles: the seat's own, those it inspected, the rest dealt from the role cards left.
	var roles []uint8
	if classic {
		t := classicRoles[n]
		for range t[0] {
			roles = append(roles, roleSaboteur)
		}
		for range t[1] {
			roles = append(roles, roleDigger)
		}
	} else {
		roles = slices.Clone(s2Roles)
	}
	known := func(seat int, role uint8) bool {
		k := slices.Index(roles, role)
		if k < 0 {
			return false
		}
		roles = slices.Delete(roles, k, k+1)
		s.roles[seat] = role
		return true
	}
	if !known(me, uint8(v.Role)) {
		return nil, false
	}
	for i, si := range v.SeatInfo {
		if i != me && si.Role != pb.Role_ROLE_UNSPECIFIED {
			if !known(i, uint8(si.Role)) {
				return nil, false
			}
			s.seen[me*n+i] = uint8(si.Role)
		}
	}
	r.Shuffle(len(roles), func(i, j int) { roles[i], roles[j] = roles[j], roles[i] })
	for i := range n {
		if s.roles[i] == roleNone {
			if len(roles) == 0 {
				return nil, false
			}
			s.roles[i], roles = roles[0], roles[1:]
		}
	}
	s.aside = roles

	// Classic gold cards: the offer is empty in phase turn; the box holds a random choice of the
	// gold cards not yet won.
	if classic {
		g := goldCards()
		r.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		if int(v.GoldDeck) > len(g) {
			return nil, false
		}
		s.goldDeck = g[:v.GoldDeck]
	}

	if lr := v.LastRound; lr != nil {
		l := &s.last
		l.round, l.goldReached, l.connector = int(lr.Round), lr.GoldReached, int(lr.Connector)
		l.blueOpen, l.greenOpen, l.crystals = lr.BlueOpen, lr.GreenOpen, int(lr.Crystals)
		for _, role := range lr.Roles {
			l.roles = append(l.roles, uint8(role))
		}
		for _, w := range lr.Winners {
			l.winners = append(l.winners, int(w))
		}
		for _, p := range lr.Payouts {
			l.payouts = append(l.payouts, int(p))
		}
	}
	s.front0, s.blocked0 = s.GoldFront(), s.BlockedBuilders()
	return s, true
}
