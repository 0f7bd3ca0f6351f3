package engine

import (
	"math/rand/v2"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

// Sample deals a full state consistent with what a seat's view shows: the cards the seat has not
// seen (no hand but its own, no open card, talon, trick or taken card) are dealt at random to the
// other seats' hands, each getting as many as its hand holds. Bots use it to play out possible
// futures; it reads nothing but the view and r, so it cannot leak what the seat may not know.
//
// It models the standard coupon table only (ok is false for a custom one, for spectators, and
// once the game is over). Two things the view does not show are approximated: which 9s a seat
// played that lost their tricks (a sampled state knows only the 9s that won, which matters to the
// nines coupons), and the coins each seat won in the previous round (the last tie-break; zero).
// Hands are dealt without regard to colours a seat showed it lacks, which the view does not list.
func Sample(v *sponsiov1.View, r *rand.Rand) (s *State, ok bool) {
	me := v.GetViewer()
	n := int8(v.GetPlayers())
	if me < 0 || int(me) >= int(n) || n < 3 || n > 4 || len(v.GetSeats()) != int(n) {
		return nil, false
	}
	ph := int8(v.GetPhase())
	if ph != PhaseBetting && ph != PhaseTricks && ph != PhaseScoring {
		return nil, false
	}
	s = &State{rules: &Standard}
	s.rng.Seed(r.Uint64(), r.Uint64())
	s.Players = n
	s.Removed = NoColour
	if rc := v.GetRemovedColour(); rc != sponsiov1.Colour_COLOUR_UNSPECIFIED {
		c, ok := colourFromProto(rc)
		if !ok {
			return nil, false
		}
		s.Removed = c
	}
	// The coupons in play must be the standard table's.
	k := 0
	for i := range s.rules.Coupons {
		if !s.rules.inPlay(i, int(n), s.Removed) {
			continue
		}
		if k >= len(v.GetCoupons()) || !proto.Equal(v.GetCoupons()[k], CouponProto(&s.rules.Coupons[i])) {
			return nil, false
		}
		k++
	}
	if k != len(v.GetCoupons()) {
		return nil, false
	}
	s.Round, s.Dealer, s.Phase, s.Decision = int8(v.GetRound()), int8(v.GetDealer()), ph, int8(v.GetDecision())
	s.ToAct, s.Turn = int8(v.GetToAct()), int8(v.GetBettingTurn())
	s.Pending, s.PendingToken, s.PendingCards = -1, -1, int8(v.GetPendingCards())
	if pc := v.GetPendingCoupon(); pc > 0 {
		s.Pending = int8(pc) - 1
	}
	if pt := v.GetPendingToken(); pt > 0 {
		s.PendingToken = int8(pt) - 1
	}
	s.Combat = NoCard
	if c, ok := cardFromProto(v.GetCombatCard()); ok && v.GetCombatCard() != nil {
		s.Combat = c
	}
	s.Leader, s.LastTrick = int8(v.GetLeader()), -1
	if ph == PhaseTricks {
		s.Trick = int8(v.GetTrick()) - 1
	}
	if ph == PhaseScoring {
		s.Redeem = (s.ToAct - s.Dealer - 1 + 2*n) % n
	}
	for t := range s.Tokens {
		s.Tokens[t] = -1
	}
	for i := range s.Bets {
		s.Bets[i] = bet{Owner: -1, Option: -1, Target: -1}
	}
	s.Plays = [4]Card{NoCard, NoCard, NoCard, NoCard}
	cards := func(cs []*sponsiov1.Card) Cards {
		var m Cards
		for _, pc := range cs {
			if c, ok := cardFromProto(pc); ok {
				m = m.With(c)
			}
		}
		return m
	}
	s.Talon = cards(v.GetTalon())
	seen := s.Talon
	for _, cp := range v.GetCurrentTrick() {
		c, ok := cardFromProto(cp.GetCard())
		if !ok || cp.GetSeat() >= uint32(n) {
			return nil, false
		}
		s.Plays[cp.GetSeat()] = c
		s.Seats[cp.GetSeat()].Played = s.Seats[cp.GetSeat()].Played.With(c)
		s.NPlayed++
		seen = seen.With(c)
	}
	for _, pv := range v.GetSeats() {
		p := int8(pv.GetSeat())
		if p < 0 || p >= n {
			return nil, false
		}
		st := &s.Seats[p]
		st.Coins, st.Marker = int32(pv.GetCoins()), int8(pv.GetMarker())
		st.Open, st.Taken, st.Nines = cards(pv.GetOpenCards()), cards(pv.GetTaken()), cards(pv.GetCapturedNines())
		st.Played |= st.Nines
		st.Tricks, st.Troll, st.Winner = int8(pv.GetTricks()), pv.GetTroll(), pv.GetWinner()
		st.Staked, st.Won = int8(pv.GetStakedCoins()), int32(pv.GetCoinsWon())
		seen |= st.Open | st.Taken
		if int32(p) == me {
			st.Hand = cards(pv.GetHand())
			seen |= st.Hand
		}
		for _, t := range pv.GetTokens() {
			if t > 0 && int(t) <= int(numTokens) {
				s.Tokens[t-1] = p
				if Token(t-1) == TokenDoubling {
					st.Doubling = true
				}
			}
		}
		for _, b := range pv.GetBets() {
			i := int(b.GetCoupon()) - 1
			if i < 0 || i >= len(s.Bets) {
				return nil, false
			}
			bt := bet{Owner: p, Option: -1, Target: -1, Double: b.GetDouble(), Result: int8(b.GetResult()), CoinsWon: int16(b.GetCoinsWon())}
			if b.Option != nil {
				bt.Option = int8(b.GetOption())
			}
			if b.Target != nil {
				bt.Target = int8(b.GetTarget())
			}
			if b.GetDouble() {
				st.Doubling = false
			}
			s.Bets[i] = bt
			st.Bets++
		}
	}
	// Deal the unseen cards to the other hands.
	var pool [36]Card
	np := 0
	for c := range Card(36) {
		if c.Colour() != s.Removed && !seen.Has(c) {
			pool[np] = c
			np++
		}
	}
	r.Shuffle(np, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	next := 0
	for _, pv := range v.GetSeats() {
		p := int8(pv.GetSeat())
		if int32(p) == me {
			continue
		}
		for range pv.GetHandSize() {
			if next >= np {
				return nil, false
			}
			s.Seats[p].Hand = s.Seats[p].Hand.With(pool[next])
			next++
		}
	}
	return s, true
}

// Redeal deals the cards seat me cannot see (the other seats' hands) anew at random among those
// hands, each keeping its size: another world of the same view. A bot that samples many worlds
// of one view calls Sample once and Redeal on copies (Game.Clone), which skips reading the view
// again. It reads nothing but the state's hands and r.
func (s *State) Redeal(me int, r *rand.Rand) {
	var pool [36]Card
	np := 0
	for p := range int(s.Players) {
		if p == me {
			continue
		}
		for h := s.Seats[p].Hand; h != 0; h &= h - 1 {
			pool[np] = h.First()
			np++
		}
	}
	r.Shuffle(np, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	next := 0
	for p := range int(s.Players) {
		if p == me {
			continue
		}
		k := s.Seats[p].Hand.Len()
		s.Seats[p].Hand = 0
		for range k {
			s.Seats[p].Hand = s.Seats[p].Hand.With(pool[next])
			next++
		}
	}
}

// Step applies a legal action, dropping its events; bots use it in their playouts.
func (s *State) Step(seat int, a Action) {
	if a.Kind == ActPlay {
		s.play(int8(seat), a.Card, nil) // the most frequent move of a playout makes no events at all
		return
	}
	var evs [8]engine.Event
	buf := evs[:0]
	s.apply(seat, a, &buf)
}
