package engine

import (
	"cardroom.dev/services/kit/engine"
	"slices"
)

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
		for h := s.playable(p); h != 0; h &= h - 1 {
			buf = append(buf, Action{Kind: ActPlay, Card: h.First()})
		}
	case DecRedeem:
		buf = append(buf, Action{Kind: ActRedeem, Card: NoCard}, Action{Kind: ActKeepCounter, Card: NoCard})
	}
	return buf
}

// playable is the set of cards playCode allows p to play to the trick.
func (s *State) playable(p int8) Cards {
	st := &s.Seats[p]
	ok := st.Hand | st.Open
	switch {
	case s.Trick == 0 && s.NPlayed == 0 && s.Combat != NoCard && s.Tokens[TokenCombat] == p:
		ok = Cards(0).With(s.Combat)
	case s.NPlayed > 0:
		if own := ok.OfColour(s.Plays[s.Leader].Colour()); own != 0 {
			ok = own
		}
	}
	return ok
}

// Playable is the set of cards seat may play to the trick when the state waits for its card (a
// playout's fast form of Legal); none otherwise.
func (s *State) Playable(seat int) Cards {
	if s.Phase != PhaseTricks || s.Decision != DecPlay || seat != int(s.ToAct) {
		return 0
	}
	return s.playable(int8(seat))
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

// Legal implements engine.Game.
func (Game) Legal(s *State, seat int, buf []Action) []Action {
	if s.Phase == PhaseOver || seat != int(s.ToAct) {
		return buf
	}
	return s.legal(buf)
}

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

// Sponsio's own violation codes (stable API).
const (
	CodeWrongDecision         = "WRONG_DECISION"
	CodeCardNotInHand         = "CARD_NOT_IN_HAND"
	CodeCardNotInTalon        = "CARD_NOT_IN_TALON"
	CodeCouponNotInPlay       = "COUPON_NOT_IN_PLAY"
	CodeCouponTaken           = "COUPON_TAKEN"
	CodeSameKindCoupon        = "SAME_KIND_COUPON"
	CodeTooManyBets           = "TOO_MANY_BETS"
	CodeNoCoins               = "NO_COINS"
	CodeNotEnoughCoins        = "NOT_ENOUGH_COINS"
	CodeNoDoublingToken       = "NO_DOUBLING_TOKEN"
	CodeTokenTaken            = "TOKEN_TAKEN"
	CodeChangeUnderCounterBet = "CHANGE_UNDER_COUNTER_BET"
	CodeChangeDoubledBet      = "CHANGE_DOUBLED_BET"
	CodeNothingToChange       = "NOTHING_TO_CHANGE"
	CodeNotYourCoupon         = "NOT_YOUR_COUPON"
	CodeBadOption             = "BAD_OPTION"
	CodeSameOption            = "SAME_OPTION"
	CodeBadTarget             = "BAD_TARGET"
	CodeMustBet               = "MUST_BET"
	CodeMustFollowColour      = "MUST_FOLLOW_COLOUR"
	CodeMustPlayCombatCard    = "MUST_PLAY_COMBAT_CARD"
	CodeNoCardToLay           = "NO_CARD_TO_LAY"
)
