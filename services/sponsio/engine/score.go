package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// measure is what coupon i's options are compared with for seat p (see CouponKind). lost holds
// each seat's lost bets so far (the counter-bet, coupon XVI, is settled last).
func (s *State) measure(p int8, i int, lost *[4]int8) int8 {
	st := &s.Seats[p]
	c := &s.rules.Coupons[i]
	switch c.Kind {
	case KindColourCount:
		return int8(st.Taken.OfColour(c.Colour).Len())
	case KindTricks:
		return st.Tricks
	case KindMostTricks:
		for q := range s.Players {
			if q != p && s.Seats[q].Tricks >= st.Tricks {
				return 0
			}
		}
		return 1
	case KindLastTrick:
		if s.LastTrick == p {
			return 1
		}
		return 0
	case KindNines:
		played := st.Played & nines
		switch {
		case played == 0:
			return 0
		case played&^st.Nines == 0:
			return 1
		default:
			return 2
		}
	default: // counter-bet
		if lost[s.Bets[i].Target] > 0 {
			return 1
		}
		return 0
	}
}

// score settles the bets, the Trolls and the sequence counters, then asks for redeem decisions.
func (s *State) score(evs *[]engine.Event) {
	s.Phase = PhaseScoring
	var lost, won [4]int8
	for i := range s.Bets {
		b := &s.Bets[i]
		if b.Owner < 0 {
			continue
		}
		p := b.Owner
		st := &s.Seats[p]
		o := s.rules.Coupons[i].Options[b.Option]
		e, ev := newBetSettled()
		ev.Seat, ev.Coupon = uint32(p), uint32(i)+1
		if m := s.measure(p, i, &lost); m >= o.Min && m <= o.Max {
			stake := int32(1)
			if b.Double {
				stake = int32(s.rules.DoubleStake)
			}
			pay := int32(o.Odds) * stake
			st.Coins += pay
			st.Won += pay
			s.BankOut += int64(pay)
			b.Result, b.CoinsWon = resultWon, int16(pay)
			won[p]++
			ev.Won, ev.Coins = true, uint32(pay)
		} else {
			b.Result = resultLost
			lost[p]++
		}
		pub(evs, e)
	}
	var totalLost int8
	for p := range s.Players {
		totalLost += lost[p]
	}
	for p := range s.Players {
		st := &s.Seats[p]
		if !st.Troll {
			continue
		}
		ev := &sponsiov1.TrollSettled{Seat: uint32(p), LostBets: uint32(totalLost)}
		if totalLost > 0 {
			pay := int32(s.rules.TrollPay) * int32(totalLost)
			st.Coins += pay
			st.Won += pay
			s.BankOut += int64(pay)
			ev.CoinsWon = uint32(pay)
		} else {
			// Ruling K1: a payment that cannot be made in full takes what the seat has.
			pay := min(int32(s.rules.TrollPenalty), st.Coins)
			st.Coins -= pay
			s.BankIn += int64(pay)
			ev.CoinsPaid = uint32(pay)
		}
		pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_TrollSettled{TrollSettled: ev}})
	}
	for p := range s.Players {
		st := &s.Seats[p]
		switch {
		case st.Troll && totalLost > 0:
			st.Marker = min(st.Marker+totalLost, s.rules.WinPosition)
		case !st.Troll && lost[p] == 0:
			st.Marker = min(st.Marker+won[p], s.rules.WinPosition)
		default:
			st.Marker = 0
		}
		e, m := newMarkerMoved()
		m.Seat, m.Position = uint32(p), uint32(st.Marker)
		pub(evs, e)
	}
	s.Redeem = 0
	s.nextRedeem(evs)
}

// nextRedeem asks the next seat clockwise from the dealer's left whose marker is on a position
// with a value (1 to 8; 9 wins the game and is kept), or finishes the round.
func (s *State) nextRedeem(evs *[]engine.Event) {
	for ; s.Redeem < s.Players; s.Redeem++ {
		p := (s.Dealer + 1 + s.Redeem) % s.Players
		if m := s.Seats[p].Marker; m > 0 && m < s.rules.WinPosition {
			s.ToAct, s.Decision = p, DecRedeem
			return
		}
	}
	s.finishRound(evs)
}

// finishRound pays the round bonus, returns the 3-Coin token's coins, and either ends the game or
// deals the next round.
func (s *State) finishRound(evs *[]engine.Event) {
	n := s.Players
	ev := &sponsiov1.RoundEnded{Round: uint32(s.Round), CoinsWon: make([]uint32, n), Bonus: make([]uint32, n), Coins: make([]uint32, n)}
	best, ties := int32(-1), 0
	for p := range n {
		st := &s.Seats[p]
		st.Won += int32(st.Staked)
		switch {
		case st.Won > best:
			best, ties = st.Won, 1
		case st.Won == best:
			ties++
		}
	}
	bonus := int32(s.rules.RoundBonus)
	if ties > 1 {
		bonus = int32(s.rules.TiedBonus)
	}
	for p := range n {
		st := &s.Seats[p]
		ev.CoinsWon[p] = uint32(st.Won)
		if st.Won == best {
			st.Coins += bonus
			s.BankOut += int64(bonus)
			ev.Bonus[p] = uint32(bonus)
		}
		st.Coins += int32(st.Staked)
		st.Staked = 0
		st.LastWon = st.Won
		ev.Coins[p] = uint32(st.Coins)
	}

	// Victory: position 9 beats 30 coins; the five-round limit redeems every counter.
	var cand [4]bool
	reason := int8(0)
	for p := range n {
		if s.Seats[p].Marker >= s.rules.WinPosition {
			cand[p], reason = true, endSequence
		}
	}
	if reason == 0 {
		for p := range n {
			if s.Seats[p].Coins >= int32(s.rules.WinCoins) {
				cand[p], reason = true, endCoins
			}
		}
	}
	var final []uint32
	if reason == 0 && s.Round >= s.rules.MaxRounds {
		reason = endRoundLimit
		final = make([]uint32, n)
		for p := range n {
			st := &s.Seats[p]
			v := int32(s.rules.CounterValues[st.Marker])
			st.Coins += v
			st.Final = v
			s.BankOut += int64(v)
			st.Marker = 0
			final[p] = uint32(v)
			cand[p] = true
			ev.Coins[p] = uint32(st.Coins)
		}
	}
	next := s.Dealer
	if reason == 0 {
		top, count := int32(-1), 0
		for p := range n {
			switch c := s.Seats[p].Coins; {
			case c > top:
				top, count, next = c, 1, p
			case c == top:
				count++
			}
		}
		if count > 1 {
			next = s.Dealer // a tie for most coins: the previous dealer deals again
		}
	}
	ev.NextDealer = uint32(next)
	pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_RoundEnded{RoundEnded: ev}})
	if reason == 0 {
		s.Dealer = next
		s.Round++
		s.startRound(evs)
		return
	}

	// Among the candidates: most coins, then most coins won in the last round, then a shared win.
	bestCoins, bestWon := int32(-1), int32(-1)
	for p := range n {
		st := &s.Seats[p]
		if cand[p] && (st.Coins > bestCoins || st.Coins == bestCoins && st.LastWon > bestWon) {
			bestCoins, bestWon = st.Coins, st.LastWon
		}
	}
	end := &sponsiov1.GameEnded{Reason: sponsiov1.EndReason(reason), Coins: make([]uint32, n), FinalRedeem: final}
	for p := range n {
		st := &s.Seats[p]
		st.Winner = cand[p] && st.Coins == bestCoins && st.LastWon == bestWon
		if st.Winner {
			end.Winners = append(end.Winners, uint32(p))
		}
		end.Coins[p] = uint32(st.Coins)
	}
	s.Phase, s.Decision, s.ToAct, s.EndReason = PhaseOver, 0, -1, reason
	pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_GameEnded{GameEnded: end}})
}
