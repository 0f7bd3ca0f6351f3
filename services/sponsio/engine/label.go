package engine

import (
	"strconv"
	"strings"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"cardroom.dev/services/kit/engine"
	"google.golang.org/protobuf/proto"
)

var _ engine.Describer[*State, Action] = Game{}

// DescribeAction implements engine.Describer: the label AppendLabel writes.
func (g Game) DescribeAction(s *State, seat int, a Action) string {
	var buf [128]byte // on the stack: the label is the one allocation
	return string(g.AppendLabel(buf[:0], s, seat, a))
}

// AppendLabel implements engine.ActionAppender. A betting turn's action names the card opened
// first, then what the turn does with it ("open green 2, bet on coupon III (blue cards), doubled"),
// so a list of some 250 choices reads card by card. An option is named by what it bets on and its
// odds, from the table's coupons.
func (Game) AppendLabel(b []byte, s *State, seat int, a Action) []byte {
	switch a.Kind {
	case ActPass:
		return append(b, "pass"...)
	case ActOpenBet:
		b = appendCardWords(append(b, "open "...), a.Card)
		b = appendCoupon(append(b, ", bet on "...), s.rules, int(a.A))
		if a.B == 1 {
			b = append(b, ", doubled"...)
		}
		return b
	case ActOpenToken:
		t := Token(a.A)
		b = appendCardWords(append(b, "open "...), a.Card)
		b = append(append(append(b, ", take the "...), tokenName(t)...), " token ("...)
		return append(appendPrice(b, s.rules, t), ')')
	case ActOpenChange:
		b = appendCardWords(append(b, "open "...), a.Card)
		b = appendCardWords(append(b, ", change "...), Card(a.B))
		b = appendCardWords(append(b, " for "...), Card(a.A))
		return append(b, " from the talon"...)
	case ActOption:
		if s.Pending < 0 {
			return strconv.AppendInt(append(b, "mark option "...), int64(a.A)+1, 10)
		}
		return append(append(b, "bet on "...), optionWords(s.rules, int(s.Pending), int(a.A))...)
	case ActTarget:
		return engine.AppendSeatRef(append(b, "place the counter-bet in front of "...), int(a.A))
	case ActLay:
		b = appendCardWords(append(b, "lay "...), a.Card)
		if s.Decision == DecCombatCard {
			return append(b, " under the Combat token"...)
		}
		if s.PendingToken >= 0 {
			return append(append(append(b, " face up for the "...), tokenName(Token(s.PendingToken))...), " token"...)
		}
		return append(b, " face up"...)
	case ActChangeBet:
		b = append(append(b, "change coupon "...), Numeral(int(a.A)+1)...)
		return append(append(b, " to "...), optionWords(s.rules, int(a.A), int(a.B))...)
	case ActKeepBet:
		return append(b, "keep every bet"...)
	case ActPlay:
		return appendCardWords(append(b, "play "...), a.Card)
	case ActRedeem:
		if seat >= 0 && seat < int(s.Players) {
			v := s.rules.CounterValues[s.Seats[seat].Marker]
			return appendCoins(append(b, "redeem the counter for "...), int(v))
		}
		return append(b, "redeem the counter"...)
	case ActKeepCounter:
		if seat >= 0 && seat < int(s.Players) {
			return strconv.AppendInt(append(b, "keep the counter at position "...), int64(s.Seats[seat].Marker), 10)
		}
		return append(b, "keep the counter"...)
	}
	return append(b, a.String()...)
}

// appendCardWords appends c as Card.String names it ("green 2").
func appendCardWords(b []byte, c Card) []byte {
	if c < 0 || c > 35 {
		return append(b, '-')
	}
	return append(append(append(b, c.Colour().String()...), ' '), byte('0'+c.Value()))
}

// appendCoins appends coins(n).
func appendCoins(b []byte, n int) []byte {
	if n == 1 {
		return append(b, "1 coin"...)
	}
	return append(strconv.AppendInt(b, int64(n), 10), " coins"...)
}

// DescribeEvent implements engine.Describer. It takes a cardroom.sponsio.v1.Event or one of its
// inner messages. An event names a bet's option by its place on the coupon ("option 2", counted
// from 1): the payload does not carry the table's coupons, which a table may have replaced.
func (Game) DescribeEvent(payload proto.Message) string {
	if e, ok := payload.(*sponsiov1.Event); ok {
		payload = eventKind(e)
	}
	switch m := payload.(type) {
	case *sponsiov1.RoundStarted:
		l := "round " + strconv.Itoa(int(m.GetRound())) + ": " + engine.SeatRef(int(m.GetDealer())) + " deals"
		if c, ok := colourFromProto(m.GetRemovedColour()); ok {
			l += ", without the " + c.String() + " cards"
		}
		return l + "; the talon is " + cardList(m.GetTalon())
	case *sponsiov1.HandDealt:
		return "your hand: " + cardList(m.GetCards())
	case *sponsiov1.Passed:
		return engine.SeatRef(int(m.GetSeat())) + " passes"
	case *sponsiov1.CardOpened:
		who, c := engine.SeatRef(int(m.GetSeat())), cardWords(m.GetCard())
		switch m.GetReason() {
		case sponsiov1.CardOpenedReason_CARD_OPENED_REASON_PRICE:
			return who + " lays " + c + " face up to pay for a token"
		case sponsiov1.CardOpenedReason_CARD_OPENED_REASON_COMBAT:
			return who + " lays " + c + " under the Combat token"
		}
		return who + " opens " + c
	case *sponsiov1.CouponTaken:
		l := engine.SeatRef(int(m.GetSeat())) + " takes coupon " + Numeral(int(m.GetCoupon()))
		if m.GetDouble() {
			l += " for a double bet"
		}
		return l + " and pays " + coins(int(m.GetCoinsPaid()))
	case *sponsiov1.BetMarked:
		if m.Target != nil {
			return engine.SeatRef(int(m.GetSeat())) + " places the counter-bet (coupon " + Numeral(int(m.GetCoupon())) +
				") in front of " + engine.SeatRef(int(m.GetTarget()))
		}
		return engine.SeatRef(int(m.GetSeat())) + " marks option " + strconv.Itoa(int(m.GetOption())+1) +
			" on coupon " + Numeral(int(m.GetCoupon()))
	case *sponsiov1.TokenTaken:
		l := engine.SeatRef(int(m.GetSeat())) + " takes the " + tokenName(Token(m.GetToken()-1)) + " token"
		if m.GetCoinsPaid() > 0 {
			l += " for " + coins(int(m.GetCoinsPaid()))
		}
		if m.GetToken() == sponsiov1.Token_TOKEN_THREE_COIN {
			l += " and puts " + coins(int(m.GetCoinsStaked())) + " on it"
		}
		return l
	case *sponsiov1.CardChanged:
		return engine.SeatRef(int(m.GetSeat())) + " takes " + cardWords(m.GetFromTalon()) + " from the talon and puts " +
			cardWords(m.GetToTalon()) + " there"
	case *sponsiov1.BetChanged:
		if !m.GetChanged() {
			return engine.SeatRef(int(m.GetSeat())) + " keeps every bet"
		}
		return engine.SeatRef(int(m.GetSeat())) + " changes coupon " + Numeral(int(m.GetCoupon())) + " to option " +
			strconv.Itoa(int(m.GetOption())+1)
	case *sponsiov1.TricksStarted:
		l := "the tricks begin: " + engine.SeatRef(int(m.GetLeader())) + " leads"
		switch len(m.GetTrolls()) {
		case 0:
		case 1:
			l += "; " + engine.SeatRef(int(m.GetTrolls()[0])) + " is a Troll"
		default:
			l += "; " + seatList(m.GetTrolls()) + " are Trolls"
		}
		return l
	case *sponsiov1.CardPlayed:
		return engine.SeatRef(int(m.GetSeat())) + " plays " + cardWords(m.GetCard())
	case *sponsiov1.TrickWon:
		l := engine.SeatRef(int(m.GetSeat())) + " takes trick " + strconv.Itoa(int(m.GetTrick())) + " (" + cardList(m.GetCards()) + ")"
		if m.GetCapturedNine() != nil {
			l += " and keeps " + cardWords(m.GetCapturedNine()) + " face up"
		}
		return l
	case *sponsiov1.BetSettled:
		c := "coupon " + Numeral(int(m.GetCoupon()))
		if !m.GetWon() {
			return engine.SeatRef(int(m.GetSeat())) + " loses the bet on " + c
		}
		return engine.SeatRef(int(m.GetSeat())) + " wins the bet on " + c + ": " + coins(int(m.GetCoins()))
	case *sponsiov1.TrollSettled:
		who := engine.SeatRef(int(m.GetSeat())) + ", a Troll, "
		if m.GetLostBets() == 0 {
			return who + "pays " + coins(int(m.GetCoinsPaid())) + ": nobody lost a bet"
		}
		return who + "gets " + coins(int(m.GetCoinsWon())) + " for " + plural(int(m.GetLostBets()), "lost bet")
	case *sponsiov1.MarkerMoved:
		return engine.SeatRef(int(m.GetSeat())) + "'s sequence marker is at position " + strconv.Itoa(int(m.GetPosition()))
	case *sponsiov1.CounterRedeemed:
		if !m.GetRedeemed() {
			return engine.SeatRef(int(m.GetSeat())) + " keeps the counter"
		}
		return engine.SeatRef(int(m.GetSeat())) + " redeems the counter for " + coins(int(m.GetCoins()))
	case *sponsiov1.RoundEnded:
		var b strings.Builder
		b.WriteString("round " + strconv.Itoa(int(m.GetRound())) + " ends:")
		for p, c := range m.GetCoins() {
			if p > 0 {
				b.WriteByte(';')
			}
			b.WriteString(" " + engine.SeatRef(p) + " won " + strconv.Itoa(int(nth(m.GetCoinsWon(), p))))
			if bonus := nth(m.GetBonus(), p); bonus > 0 {
				b.WriteString(" + " + strconv.Itoa(int(bonus)) + " bonus")
			}
			b.WriteString(", has " + coins(int(c)))
		}
		return b.String()
	case *sponsiov1.GameEnded:
		var b strings.Builder
		b.WriteString("game over")
		switch m.GetReason() {
		case sponsiov1.EndReason_END_REASON_SEQUENCE:
			b.WriteString(" (position 9 on the sequence counter)")
		case sponsiov1.EndReason_END_REASON_COINS:
			b.WriteString(" (30 coins)")
		case sponsiov1.EndReason_END_REASON_ROUND_LIMIT:
			b.WriteString(" (five rounds played, every counter redeemed)")
		}
		switch w := m.GetWinners(); len(w) {
		case 0:
		case 1:
			b.WriteString(": " + engine.SeatRef(int(w[0])) + " wins")
		default:
			b.WriteString(": " + seatList(w) + " share the win")
		}
		for p, c := range m.GetCoins() {
			if p == 0 {
				b.WriteString("; ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(engine.SeatRef(p) + " " + coins(int(c)))
		}
		return b.String()
	}
	return ""
}

// eventKind is the inner message of e's oneof (nil when unset).
func eventKind(e *sponsiov1.Event) proto.Message {
	switch k := e.GetKind().(type) {
	case *sponsiov1.Event_RoundStarted:
		return k.RoundStarted
	case *sponsiov1.Event_HandDealt:
		return k.HandDealt
	case *sponsiov1.Event_Passed:
		return k.Passed
	case *sponsiov1.Event_CardOpened:
		return k.CardOpened
	case *sponsiov1.Event_CouponTaken:
		return k.CouponTaken
	case *sponsiov1.Event_BetMarked:
		return k.BetMarked
	case *sponsiov1.Event_TokenTaken:
		return k.TokenTaken
	case *sponsiov1.Event_CardChanged:
		return k.CardChanged
	case *sponsiov1.Event_BetChanged:
		return k.BetChanged
	case *sponsiov1.Event_CardPlayed:
		return k.CardPlayed
	case *sponsiov1.Event_TrickWon:
		return k.TrickWon
	case *sponsiov1.Event_BetSettled:
		return k.BetSettled
	case *sponsiov1.Event_TrollSettled:
		return k.TrollSettled
	case *sponsiov1.Event_MarkerMoved:
		return k.MarkerMoved
	case *sponsiov1.Event_CounterRedeemed:
		return k.CounterRedeemed
	case *sponsiov1.Event_RoundEnded:
		return k.RoundEnded
	case *sponsiov1.Event_GameEnded:
		return k.GameEnded
	case *sponsiov1.Event_TricksStarted:
		return k.TricksStarted
	}
	return nil
}

// Numeral is a coupon's number as the coupons print it (I to XVI).
func Numeral(n int) string {
	if n < 1 || n >= len(roman) {
		return strconv.Itoa(n)
	}
	return roman[n]
}

var tokenNames = [numTokens]string{"Combat", "Doubling", "Changing", "3-Coin"}

func tokenName(t Token) string {
	if t < 0 || t >= numTokens {
		return "unknown"
	}
	return tokenNames[t]
}

// appendPrice appends token t's price: "1 coin", "1 more open card", both joined by "and", or
// "free".
func appendPrice(b []byte, r *Rules, t Token) []byte {
	p := r.TokenPrices[t]
	if p.Coins == 0 && p.OpenCards == 0 {
		return append(b, "free"...)
	}
	if p.Coins > 0 {
		b = appendCoins(b, int(p.Coins))
		if p.OpenCards > 0 {
			b = append(b, " and "...)
		}
	}
	if p.OpenCards == 1 {
		b = append(b, "1 more open card"...)
	} else if p.OpenCards > 0 {
		b = append(strconv.AppendInt(b, int64(p.OpenCards), 10), " more open cards"...)
	}
	return b
}

// appendCoupon appends the name of coupon index i and what it bets on: "coupon III (blue cards)".
func appendCoupon(b []byte, r *Rules, i int) []byte {
	c := &r.Coupons[i]
	b = append(append(append(b, "coupon "...), Numeral(int(c.Number))...), " ("...)
	switch c.Kind {
	case KindColourCount:
		b = append(append(b, c.Colour.String()...), " cards"...)
	case KindTricks:
		b = append(b, "tricks"...)
	case KindMostTricks:
		b = append(b, "most tricks"...)
	case KindLastTrick:
		b = append(b, "last trick"...)
	case KindNines:
		b = append(b, "nines"...)
	case KindCounterBet:
		b = append(b, "counter-bet"...)
	}
	return append(b, ')')
}

// optionWords names option o of coupon index i by what it bets on, with its odds:
// "exactly 2 tricks (×5)". Two options of a custom coupon that read the same get their number.
func optionWords(r *Rules, i, o int) string {
	c := &r.Coupons[i]
	if o < 0 || o >= len(c.Options) {
		return "option " + strconv.Itoa(o+1) + " of coupon " + Numeral(int(c.Number))
	}
	w := measureWords(c, c.Options[o])
	for k, other := range c.Options {
		if k != o && measureWords(c, other) == w && other.Odds == c.Options[o].Odds {
			w = "option " + strconv.Itoa(o+1) + ": " + w
			break
		}
	}
	return w + " (×" + strconv.Itoa(int(c.Options[o].Odds)) + ")"
}

// measureWords says what option o of coupon c bets on.
func measureWords(c *Coupon, o Option) string {
	lo, hi := int(o.Min), int(o.Max)
	switch c.Kind {
	case KindColourCount:
		return countWords(lo, hi, 9, c.Colour.String()+" card")
	case KindTricks:
		return countWords(lo, hi, 8, "trick")
	case KindMostTricks:
		return flagWords(lo, hi, "more tricks than every opponent", "not more tricks than every opponent")
	case KindLastTrick:
		return flagWords(lo, hi, "win the last trick", "not win the last trick")
	case KindNines:
		switch {
		case lo == 1 && hi == 1:
			return "every 9 you play takes its trick"
		case lo == 2 && hi == 2:
			return "at least one 9 you play fails"
		case lo == 0 && hi == 0:
			return "play no 9"
		case lo == 1 && hi >= 2:
			return "play a 9"
		}
	case KindCounterBet:
		return flagWords(lo, hi, "the opponent loses a bet", "the opponent loses no bet")
	}
	return "measure " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
}

// countWords is a count range: "no tricks", "exactly 2 tricks", "1 to 3 blue cards",
// "4 or more tricks".
func countWords(lo, hi, most int, noun string) string {
	switch {
	case lo == 0 && hi == 0:
		return "no " + noun + "s"
	case lo == hi:
		return "exactly " + plural(lo, noun)
	case hi >= most && lo > 0:
		return strconv.Itoa(lo) + " or more " + noun + "s"
	case hi >= most:
		return "any number of " + noun + "s"
	}
	return strconv.Itoa(lo) + " to " + strconv.Itoa(hi) + " " + noun + "s"
}

// flagWords is a yes/no measure's range.
func flagWords(lo, hi int, yes, no string) string {
	switch {
	case lo >= 1:
		return yes
	case hi == 0:
		return no
	}
	return "either way"
}

func cardWords(c *sponsiov1.Card) string {
	k, ok := cardFromProto(c)
	if !ok {
		return "a card"
	}
	return k.String()
}

func cardList(cs []*sponsiov1.Card) string {
	if len(cs) == 0 {
		return "empty"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = cardWords(c)
	}
	return strings.Join(parts, ", ")
}

// seatList joins seat references: "{seat:0}, {seat:1} and {seat:2}".
func seatList(seats []uint32) string {
	var b strings.Builder
	for i, p := range seats {
		switch {
		case i == 0:
		case i == len(seats)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(engine.SeatRef(int(p)))
	}
	return b.String()
}

func coins(n int) string { return plural(n, "coin") }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func nth(xs []uint32, i int) uint32 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

var roman = [17]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI"}
