package engine

import (
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// apply changes the state for a checked action.
func (s *State) apply(seat int, a Action, evs *[]engine.Event) {
	p := int8(seat)
	st := &s.Seats[p]
	switch a.Kind {
	case ActPass:
		e, m := newPassed(evs)
		m.Seat = uint32(p)
		pub(evs, e)
		s.endTurn(evs)
	case ActOpenBet:
		e1, m1, e2, m2 := newOpenedCoupon(evs)
		s.open(p, a.Card, sponsiov1.CardOpenedReason_CARD_OPENED_REASON_TURN, evs, e1, m1)
		s.takeCoupon(p, int(a.A), a.B == 1, evs, e2, m2)
	case ActOpenToken:
		s.open(p, a.Card, sponsiov1.CardOpenedReason_CARD_OPENED_REASON_TURN, evs, nil, nil)
		s.takeToken(p, Token(a.A), evs)
	case ActOpenChange:
		e1, m1, e2, m2 := newOpenedChange(evs)
		s.open(p, a.Card, sponsiov1.CardOpenedReason_CARD_OPENED_REASON_TURN, evs, e1, m1)
		in, out := Card(a.A), Card(a.B)
		st.Hand = st.Hand.Without(out).With(in)
		s.Talon = s.Talon.Without(in).With(out)
		m2.Seat, m2.FromTalon, m2.ToTalon = uint32(p), in.Proto(), out.Proto()
		pub(evs, e2)
		s.endTurn(evs)
	case ActOption:
		s.Bets[s.Pending].Option = a.A
		e, m := newBetMarked(evs)
		m.Seat, m.Coupon, m.Option = uint32(p), uint32(s.Pending)+1, uint32(a.A)
		pub(evs, e)
		s.endTurn(evs)
	case ActTarget:
		b := &s.Bets[s.Pending]
		b.Target = a.A
		t := uint32(a.A)
		pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_BetMarked{BetMarked: &sponsiov1.BetMarked{
			Seat: uint32(p), Coupon: uint32(s.Pending) + 1, Option: uint32(b.Option), Target: &t}}})
		s.endTurn(evs)
	case ActLay:
		if s.Decision == DecCombatCard {
			s.open(p, a.Card, sponsiov1.CardOpenedReason_CARD_OPENED_REASON_COMBAT, evs, nil, nil)
			s.Combat = a.Card
			s.endTurn(evs)
			return
		}
		s.open(p, a.Card, sponsiov1.CardOpenedReason_CARD_OPENED_REASON_PRICE, evs, nil, nil)
		s.PendingCards--
		if s.PendingCards == 0 {
			s.afterPrice(evs)
		}
	case ActChangeBet:
		s.Bets[a.A].Option = a.B
		pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_BetChanged{BetChanged: &sponsiov1.BetChanged{
			Seat: uint32(p), Changed: true, Coupon: uint32(a.A) + 1, Option: uint32(a.B)}}})
		s.endTurn(evs)
	case ActKeepBet:
		pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_BetChanged{BetChanged: &sponsiov1.BetChanged{Seat: uint32(p)}}})
		s.endTurn(evs)
	case ActPlay:
		s.play(p, a.Card, evs)
	case ActRedeem, ActKeepCounter:
		ev := &sponsiov1.CounterRedeemed{Seat: uint32(p)}
		if a.Kind == ActRedeem {
			v := int32(s.rules.CounterValues[st.Marker])
			st.Coins += v
			st.Won += v
			s.BankOut += int64(v)
			st.Marker = 0
			ev.Redeemed, ev.Coins = true, uint32(v)
		}
		pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_CounterRedeemed{CounterRedeemed: ev}})
		s.Redeem++
		s.nextRedeem(evs)
	}
}

// open lays c face up; e and m, when not nil, are the event to fill.
func (s *State) open(p int8, c Card, why sponsiov1.CardOpenedReason, evs *[]engine.Event, e *sponsiov1.Event, m *sponsiov1.CardOpened) {
	st := &s.Seats[p]
	st.Hand = st.Hand.Without(c)
	st.Open = st.Open.With(c)
	if e == nil {
		e, m = newCardOpened(evs)
	}
	m.Seat, m.Card, m.Reason = uint32(p), c.Proto(), why
	pub(evs, e)
}

func (s *State) takeCoupon(p int8, i int, double bool, evs *[]engine.Event, e *sponsiov1.Event, m *sponsiov1.CouponTaken) {
	st := &s.Seats[p]
	stake := int32(1)
	if double {
		stake = int32(s.rules.DoubleStake)
		st.Doubling = false
	}
	st.Coins -= stake
	s.BankIn += int64(stake)
	st.Bets++
	s.Bets[i] = bet{Owner: p, Option: -1, Target: -1, Double: double}
	s.Pending = int8(i)
	if e == nil {
		e, m = newCouponTaken()
	}
	m.Seat, m.Coupon, m.Double, m.CoinsPaid = uint32(p), uint32(i)+1, double, uint32(stake)
	pub(evs, e)
	if s.rules.Coupons[i].Kind == KindCounterBet {
		s.Bets[i].Option = 0
		s.Decision = DecTarget
	} else {
		s.Decision = DecOption
	}
}

func (s *State) takeToken(p int8, t Token, evs *[]engine.Event) {
	st := &s.Seats[p]
	price := s.rules.TokenPrices[t]
	s.Tokens[t] = p
	st.Coins -= int32(price.Coins)
	s.BankIn += int64(price.Coins)
	e, ev := newTokenTaken()
	ev.Seat, ev.Token, ev.CoinsPaid = uint32(p), sponsiov1.Token(t+1), uint32(price.Coins)
	switch t {
	case TokenDoubling:
		st.Doubling = true
	case TokenThreeCoin:
		// A seat with fewer coins than the stake puts what it has (Ruling K1's spirit).
		stake := min(int32(s.rules.ThreeCoinStake), st.Coins)
		st.Coins -= stake
		st.Staked = int8(stake)
		ev.CoinsStaked = uint32(stake)
	}
	pub(evs, e)
	s.PendingToken = int8(t)
	s.PendingCards = price.OpenCards
	if s.PendingCards > 0 {
		s.Decision = DecPriceCard
		return
	}
	s.afterPrice(evs)
}

func (s *State) afterPrice(evs *[]engine.Event) {
	switch Token(s.PendingToken) {
	case TokenCombat:
		s.Decision = DecCombatCard
	case TokenChanging:
		s.Decision = DecChangeBet
	default:
		s.endTurn(evs)
	}
}

func (s *State) endTurn(evs *[]engine.Event) {
	s.Turn++
	s.Decision = DecTurn
	s.PendingToken, s.PendingCards, s.Pending = -1, 0, -1
	if int(s.Turn) == 4*int(s.Players) {
		s.startTricks(evs)
		return
	}
	s.ToAct = s.left(s.ToAct)
}

func (s *State) startTricks(evs *[]engine.Event) {
	ev := &sponsiov1.TricksStarted{}
	for p := range s.Players {
		if s.Seats[p].Bets == 0 {
			s.Seats[p].Troll = true
			ev.Trolls = append(ev.Trolls, uint32(p))
		}
	}
	s.Leader = s.left(s.Dealer)
	if c := s.Tokens[TokenCombat]; c >= 0 {
		s.Leader = c
	}
	ev.Leader = uint32(s.Leader)
	s.Phase, s.Decision, s.ToAct = PhaseTricks, DecPlay, s.Leader
	pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_TricksStarted{TricksStarted: ev}})
}

func (s *State) play(p int8, c Card, evs *[]engine.Event) {
	st := &s.Seats[p]
	st.Hand = st.Hand.Without(c)
	st.Open = st.Open.Without(c)
	st.Played = st.Played.With(c)
	s.Plays[p] = c
	s.NPlayed++
	if s.NPlayed < s.Players {
		if evs != nil {
			e, m := newCardPlayed(evs)
			m.Seat, m.Card = uint32(p), c.Proto()
			pub(evs, e)
		}
		s.ToAct = s.left(p)
		return
	}
	var te *sponsiov1.Event
	var ev *sponsiov1.TrickWon
	if evs != nil {
		var e *sponsiov1.Event
		var m *sponsiov1.CardPlayed
		e, m, te, ev = newPlayedTrick(evs)
		m.Seat, m.Card = uint32(p), c.Proto()
		pub(evs, e)
	}
	lead := s.Plays[s.Leader].Colour()
	w := s.Leader
	var trick Cards
	for q := range s.Players {
		c := s.Plays[q]
		trick = trick.With(c)
		if c.Colour() == lead && c.Value() > s.Plays[w].Value() {
			w = q
		}
	}
	ws := &s.Seats[w]
	ws.Taken |= trick
	ws.Tricks++
	nine := s.Plays[w].Value() == 9
	if nine {
		ws.Nines = ws.Nines.With(s.Plays[w])
	}
	if evs != nil {
		ev.Seat, ev.Trick = uint32(w), uint32(s.Trick)+1
		trick.each(func(c Card) { ev.Cards = append(ev.Cards, c.Proto()) })
		if nine {
			ev.CapturedNine = s.Plays[w].Proto()
		}
		pub(evs, te)
	}
	s.Trick++
	s.NPlayed = 0
	s.Plays = [4]Card{NoCard, NoCard, NoCard, NoCard}
	if s.Trick == 8 {
		s.LastTrick = w
		if evs == nil {
			var buf []engine.Event
			evs = &buf
		}
		s.score(evs)
		return
	}
	s.Leader, s.ToAct = w, w
}

// Apply implements engine.Game.
func (g Game) Apply(s *State, m engine.Move[Action]) ([]engine.Event, error) {
	if err := s.check(m.Seat, m.Action); err != nil {
		return nil, err
	}
	var evs []engine.Event
	s.apply(m.Seat, m.Action, &evs)
	s.LastSec, s.LastNsec = m.At.Unix(), int32(m.At.Nanosecond())
	return evs, nil
}
