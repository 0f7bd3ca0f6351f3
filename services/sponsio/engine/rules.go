package engine

import (
	"slices"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
)

// messages gives each refusal code its sentence, so that checking a move in Legal's hot loop never
// formats text.
var messages = map[string]string{
	CodeWrongDecision:         "that is not the decision the game waits for",
	CodeCardNotInHand:         "that card is not in your hand",
	CodeCardNotInTalon:        "that card is not in the talon",
	CodeCouponNotInPlay:       "that coupon is not used with this number of players",
	CodeCouponTaken:           "that coupon is already taken",
	CodeSameKindCoupon:        "you already hold a coupon of that colour",
	CodeTooManyBets:           "you already hold four bets",
	CodeNoCoins:               "you have no coins",
	CodeNotEnoughCoins:        "you do not have enough coins",
	CodeNoDoublingToken:       "a double bet needs your unused Doubling token",
	CodeTokenTaken:            "that token is already taken this round",
	CodeChangeUnderCounterBet: "an opponent's counter-bet lies in front of you: you cannot change a bet",
	CodeChangeDoubledBet:      "a doubled bet cannot be changed",
	CodeNothingToChange:       "you hold no bet that could be changed",
	CodeNotYourCoupon:         "you do not hold that coupon",
	CodeBadOption:             "that coupon has no such option",
	CodeSameOption:            "that option is already marked",
	CodeBadTarget:             "the counter-bet needs an opponent",
	CodeMustBet:               "nobody has bet: the dealer must bet in their last turn",
	CodeMustFollowColour:      "you must follow the lead colour",
	CodeMustPlayCombatCard:    "the first trick opens with the card under the Combat token",
	CodeNoCardToLay:           "you have no hand card left to lay face up",
}

func refuse(code string) error {
	if code == engine.CodeNotYourTurn {
		return engine.Refuse(code, "it is not your turn")
	}
	return engine.Refuse(code, "%s", messages[code])
}

// forced reports Ruling B2: nobody has bet when the dealer starts their last turn, so the dealer
// must bet (when they have a coin to bet with).
func (s *State) forced() bool {
	if s.Phase != PhaseBetting || int(s.Turn) != 4*int(s.Players)-1 || s.Seats[s.Dealer].Coins < 1 {
		return false
	}
	for i := range s.Bets {
		if s.Bets[i].Owner >= 0 {
			return false
		}
	}
	return true
}

func (s *State) families(p int8) uint16 {
	var f uint16
	for i := range s.Bets {
		if s.Bets[i].Owner == p {
			f |= 1 << uint(s.rules.Coupons[i].Family())
		}
	}
	return f
}

// betCode says why p may not take coupon i ("" when they may). fams is s.families(p).
func (s *State) betCode(p int8, i int, double bool, fams uint16) string {
	if !s.rules.inPlay(i, int(s.Players), s.Removed) {
		return CodeCouponNotInPlay
	}
	if s.Bets[i].Owner >= 0 {
		return CodeCouponTaken
	}
	st := &s.Seats[p]
	if st.Bets >= s.rules.MaxBets {
		return CodeTooManyBets
	}
	if fams&(1<<uint(s.rules.Coupons[i].Family())) != 0 {
		return CodeSameKindCoupon
	}
	if double && !st.Doubling {
		return CodeNoDoublingToken
	}
	if st.Coins < 1 {
		return CodeNoCoins
	}
	if double && st.Coins < int32(s.rules.DoubleStake) {
		return CodeNotEnoughCoins
	}
	return ""
}

func (s *State) underCounterBet(p int8) bool {
	b := &s.Bets[15]
	return b.Owner >= 0 && b.Target == p
}

func (s *State) changeable(p int8, i int) bool {
	b := &s.Bets[i]
	return b.Owner == p && !b.Double && s.rules.Coupons[i].Kind != KindCounterBet && len(s.rules.Coupons[i].Options) > 1
}

// tokenCode says why p may not take token t with hand left after opening the turn's card.
func (s *State) tokenCode(p int8, t Token, hand Cards) string {
	if s.Tokens[t] >= 0 {
		return CodeTokenTaken
	}
	st := &s.Seats[p]
	price := s.rules.TokenPrices[t]
	if price.Coins > 0 && st.Coins < 1 {
		return CodeNoCoins
	}
	if st.Coins < int32(price.Coins) {
		return CodeNotEnoughCoins
	}
	need := int(price.OpenCards)
	if t == TokenCombat {
		need++
	}
	if hand.Len() < need {
		return CodeNoCardToLay
	}
	if t == TokenChanging {
		if s.underCounterBet(p) {
			return CodeChangeUnderCounterBet
		}
		ok := false
		for i := range s.Bets {
			ok = ok || s.changeable(p, i)
		}
		if !ok {
			return CodeNothingToChange
		}
	}
	return ""
}

// playCode says why p may not play c to the trick.
func (s *State) playCode(p int8, c Card) string {
	st := &s.Seats[p]
	all := st.Hand | st.Open
	if !all.Has(c) {
		return CodeCardNotInHand
	}
	if s.Trick == 0 && s.NPlayed == 0 && s.Combat != NoCard && s.Tokens[TokenCombat] == p && c != s.Combat {
		return CodeMustPlayCombatCard
	}
	if s.NPlayed > 0 {
		lead := s.Plays[s.Leader].Colour()
		if c.Colour() != lead && all.OfColour(lead) != 0 {
			return CodeMustFollowColour
		}
	}
	return ""
}

// check validates seat's action without changing anything.
func (s *State) check(seat int, a Action) error {
	if s.Phase == PhaseOver {
		return engine.Refuse(engine.CodeGameOver, "the game is over")
	}
	if seat < 0 || seat >= int(s.Players) {
		return engine.Invalid("seat", engine.CodeBadSeat, "seat %d is not at this table", seat)
	}
	if seat != int(s.ToAct) {
		return refuse(engine.CodeNotYourTurn)
	}
	if !wellFormed(a) {
		return engine.Invalid("action", engine.CodeBadAction, "malformed action %v", a)
	}
	p := int8(seat)
	st := &s.Seats[p]
	code := ""
	switch s.Decision {
	case DecTurn:
		switch a.Kind {
		case ActPass:
			if s.forced() {
				code = CodeMustBet
			}
		case ActOpenBet, ActOpenToken, ActOpenChange:
			if !st.Hand.Has(a.Card) {
				return refuse(CodeCardNotInHand)
			}
			hand := st.Hand.Without(a.Card)
			switch a.Kind {
			case ActOpenBet:
				code = s.betCode(p, int(a.A), a.B == 1, s.families(p))
			case ActOpenToken:
				if s.forced() {
					return refuse(CodeMustBet)
				}
				code = s.tokenCode(p, Token(a.A), hand)
			case ActOpenChange:
				if s.forced() {
					return refuse(CodeMustBet)
				}
				if !s.Talon.Has(Card(a.A)) {
					return refuse(CodeCardNotInTalon)
				}
				if !hand.Has(Card(a.B)) {
					return refuse(CodeCardNotInHand)
				}
			}
		default:
			code = CodeWrongDecision
		}
	case DecOption:
		if a.Kind != ActOption {
			return refuse(CodeWrongDecision)
		}
		if int(a.A) >= len(s.rules.Coupons[s.Pending].Options) {
			code = CodeBadOption
		}
	case DecTarget:
		if a.Kind != ActTarget {
			return refuse(CodeWrongDecision)
		}
		if a.A == p || a.A >= s.Players {
			code = CodeBadTarget
		}
	case DecPriceCard, DecCombatCard:
		if a.Kind != ActLay {
			return refuse(CodeWrongDecision)
		}
		if !st.Hand.Has(a.Card) {
			code = CodeCardNotInHand
		}
	case DecChangeBet:
		switch a.Kind {
		case ActKeepBet:
		case ActChangeBet:
			i := int(a.A)
			b := &s.Bets[i]
			switch {
			case b.Owner != p:
				code = CodeNotYourCoupon
			case b.Double:
				code = CodeChangeDoubledBet
			case s.rules.Coupons[i].Kind == KindCounterBet:
				code = CodeNothingToChange
			case int(a.B) >= len(s.rules.Coupons[i].Options):
				code = CodeBadOption
			case a.B == b.Option:
				code = CodeSameOption
			}
		default:
			code = CodeWrongDecision
		}
	case DecPlay:
		if a.Kind != ActPlay {
			return refuse(CodeWrongDecision)
		}
		code = s.playCode(p, a.Card)
	case DecRedeem:
		if a.Kind != ActRedeem && a.Kind != ActKeepCounter {
			code = CodeWrongDecision
		}
	}
	if code != "" {
		return refuse(code)
	}
	return nil
}

// wellFormed reports whether a's fields are in range for its kind (DecodeAction only makes such
// actions; Apply may be called with others).
func wellFormed(a Action) bool {
	card := func(c Card) bool { return c >= 0 && c < 36 }
	switch a.Kind {
	case ActPass, ActKeepBet, ActRedeem, ActKeepCounter:
		return true
	case ActOpenBet:
		return card(a.Card) && a.A >= 0 && a.A < 16 && (a.B == 0 || a.B == 1)
	case ActOpenToken:
		return card(a.Card) && a.A >= 0 && a.A < int8(numTokens)
	case ActOpenChange:
		return card(a.Card) && card(Card(a.A)) && card(Card(a.B))
	case ActOption:
		return a.A >= 0 && a.A < 8
	case ActTarget:
		return a.A >= 0 && a.A < 4
	case ActChangeBet:
		return a.A >= 0 && a.A < 16 && a.B >= 0 && a.B < 8
	case ActLay, ActPlay:
		return card(a.Card)
	}
	return false
}

// legal appends the actions of the seat to act.
func (s *State) legal(buf []Action) []Action {
	if s.Phase == PhaseOver {
		return buf
	}
	p := s.ToAct
	st := &s.Seats[p]
	switch s.Decision {
	case DecTurn:
		forced := s.forced()
		if !forced {
			buf = append(buf, Action{Kind: ActPass, Card: NoCard})
		}
		// The bets betCode allows, without asking it coupon by coupon.
		var bets [32]Action
		nb := 0
		if st.Bets < s.rules.MaxBets && st.Coins >= 1 {
			fams := s.families(p)
			double := st.Doubling && st.Coins >= int32(s.rules.DoubleStake)
			for i := range s.Bets {
				if s.Bets[i].Owner >= 0 || fams&(1<<uint(s.rules.Coupons[i].Family())) != 0 || !s.rules.inPlay(i, int(s.Players), s.Removed) {
					continue
				}
				bets[nb] = Action{Kind: ActOpenBet, A: int8(i)}
				nb++
				if double {
					bets[nb] = Action{Kind: ActOpenBet, A: int8(i), B: 1}
					nb++
				}
			}
		}
		// Which tokens may be taken depends on the hand only through its size, the same whichever
		// card is opened.
		var tokens [numTokens]bool
		for t := range numTokens {
			tokens[t] = !forced && s.tokenCode(p, t, st.Hand.Without(st.Hand.First())) == ""
		}
		for h := st.Hand; h != 0; h &= h - 1 {
			c := h.First()
			for _, b := range bets[:nb] {
				b.Card = c
				buf = append(buf, b)
			}
			if forced {
				continue
			}
			rest := st.Hand.Without(c)
			for t := range numTokens {
				if tokens[t] {
					buf = append(buf, Action{Kind: ActOpenToken, Card: c, A: int8(t)})
				}
			}
			k := len(buf)
			buf = slices.Grow(buf, s.Talon.Len()*rest.Len())[:k+s.Talon.Len()*rest.Len()]
			for tl := s.Talon; tl != 0; tl &= tl - 1 {
				for r := rest; r != 0; r &= r - 1 {
					buf[k] = Action{Kind: ActOpenChange, Card: c, A: int8(tl.First()), B: int8(r.First())}
					k++
				}
			}
		}
	case DecOption:
		for o := range s.rules.Coupons[s.Pending].Options {
			buf = append(buf, Action{Kind: ActOption, Card: NoCard, A: int8(o)})
		}
	case DecTarget:
		for q := range s.Players {
			if q != p {
				buf = append(buf, Action{Kind: ActTarget, Card: NoCard, A: q})
			}
		}
	case DecPriceCard, DecCombatCard:
		for h := st.Hand; h != 0; h &= h - 1 {
			buf = append(buf, Action{Kind: ActLay, Card: h.First()})
		}
	case DecChangeBet:
		buf = append(buf, Action{Kind: ActKeepBet, Card: NoCard})
		for i := range s.Bets {
			if s.changeable(p, i) {
				for o := range s.rules.Coupons[i].Options {
					if int8(o) != s.Bets[i].Option {
						buf = append(buf, Action{Kind: ActChangeBet, Card: NoCard, A: int8(i), B: int8(o)})
					}
				}
			}
		}
	case DecPlay:
		// The cards playCode allows, as a set.
		ok := st.Hand | st.Open
		switch {
		case s.Trick == 0 && s.NPlayed == 0 && s.Combat != NoCard && s.Tokens[TokenCombat] == p:
			ok = Cards(0).With(s.Combat)
		case s.NPlayed > 0:
			if own := ok.OfColour(s.Plays[s.Leader].Colour()); own != 0 {
				ok = own
			}
		}
		for h := ok; h != 0; h &= h - 1 {
			buf = append(buf, Action{Kind: ActPlay, Card: h.First()})
		}
	case DecRedeem:
		buf = append(buf, Action{Kind: ActRedeem, Card: NoCard}, Action{Kind: ActKeepCounter, Card: NoCard})
	}
	return buf
}

// defaultAction is what a timeout plays for the seat to act: pass a betting turn (or, under
// Ruling B2, the first legal bet: lowest hand card, lowest coupon, first option); the first option;
// the next opponent clockwise as the counter-bet target; the lowest hand card as a price or Combat
// card; keep every bet; the lowest legal card in a trick; keep the sequence counter.
func (s *State) defaultAction() Action {
	switch s.Decision {
	case DecTurn:
		if !s.forced() {
			return Action{Kind: ActPass, Card: NoCard}
		}
	case DecOption:
		return Action{Kind: ActOption, Card: NoCard}
	case DecTarget:
		return Action{Kind: ActTarget, Card: NoCard, A: s.left(s.ToAct)}
	case DecChangeBet:
		return Action{Kind: ActKeepBet, Card: NoCard}
	case DecRedeem:
		return Action{Kind: ActKeepCounter, Card: NoCard}
	}
	var buf [64]Action
	return s.legal(buf[:0])[0]
}

func pub(evs *[]engine.Event, e *sponsiov1.Event) {
	*evs = append(*evs, engine.Event{To: engine.Public, Payload: e})
}

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

// startRound deals a round: 8 cards to each seat one at a time clockwise from the dealer's left,
// the rest face up as the talon.
func (s *State) startRound(evs *[]engine.Event) {
	for p := range s.Seats {
		st := &s.Seats[p]
		*st = seat{Coins: st.Coins, Marker: st.Marker, LastWon: st.LastWon}
	}
	for i := range s.Bets {
		s.Bets[i] = bet{Owner: -1, Option: -1, Target: -1}
	}
	for t := range s.Tokens {
		s.Tokens[t] = -1
	}
	s.Combat, s.Trick, s.NPlayed, s.Redeem, s.LastTrick = NoCard, 0, 0, 0, -1
	s.Plays = [4]Card{NoCard, NoCard, NoCard, NoCard}
	s.PendingToken, s.PendingCards, s.Pending = -1, 0, -1

	var deck [36]Card
	n := 0
	for c := range Card(36) {
		if c.Colour() != s.Removed {
			deck[n] = c
			n++
		}
	}
	for i := n - 1; i > 0; i-- {
		j := s.intn(i + 1)
		deck[i], deck[j] = deck[j], deck[i]
	}
	dealt := 8 * int(s.Players)
	for k := range dealt {
		p := (int(s.Dealer) + 1 + k) % int(s.Players)
		s.Seats[p].Hand = s.Seats[p].Hand.With(deck[k])
	}
	s.Talon = 0
	for _, c := range deck[dealt:n] {
		s.Talon = s.Talon.With(c)
	}
	s.Phase, s.Decision, s.Turn = PhaseBetting, DecTurn, 0
	s.ToAct = s.left(s.Dealer)
	pub(evs, &sponsiov1.Event{Kind: &sponsiov1.Event_RoundStarted{RoundStarted: &sponsiov1.RoundStarted{
		Round: uint32(s.Round), Dealer: uint32(s.Dealer), Talon: s.Talon.Protos(), RemovedColour: s.Removed.Proto()}}})
	for p := range s.Players {
		*evs = append(*evs, engine.Event{To: int(p), Payload: &sponsiov1.Event{Kind: &sponsiov1.Event_HandDealt{
			HandDealt: &sponsiov1.HandDealt{Cards: s.Seats[p].Hand.Protos()}}}})
	}
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
		e, m := newCardPlayed(evs)
		m.Seat, m.Card = uint32(p), c.Proto()
		pub(evs, e)
		s.ToAct = s.left(p)
		return
	}
	e, m, te, ev := newPlayedTrick(evs)
	m.Seat, m.Card = uint32(p), c.Proto()
	pub(evs, e)
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
	ev.Seat, ev.Trick = uint32(w), uint32(s.Trick)+1
	trick.each(func(c Card) { ev.Cards = append(ev.Cards, c.Proto()) })
	if c := s.Plays[w]; c.Value() == 9 {
		ws.Nines = ws.Nines.With(c)
		ev.CapturedNine = c.Proto()
	}
	pub(evs, te)
	s.Trick++
	s.NPlayed = 0
	s.Plays = [4]Card{NoCard, NoCard, NoCard, NoCard}
	if s.Trick == 8 {
		s.LastTrick = w
		s.score(evs)
		return
	}
	s.Leader, s.ToAct = w, w
}
