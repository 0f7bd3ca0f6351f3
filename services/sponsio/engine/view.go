package engine

import (
	"fmt"
	"strings"

	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	"google.golang.org/protobuf/proto"
)

// view is what viewer (a seat, or -1 for a spectator) may see: everything but other seats' hands.
func (s *State) view(viewer int) *sponsiov1.View {
	v := &sponsiov1.View{
		Viewer:        int32(viewer),
		Players:       uint32(s.Players),
		Round:         uint32(s.Round),
		Dealer:        uint32(s.Dealer),
		Phase:         sponsiov1.Phase(s.Phase),
		Decision:      sponsiov1.Decision(s.Decision),
		BettingTurn:   uint32(s.Turn),
		RemovedColour: s.Removed.Proto(),
		Talon:         s.Talon.Protos(),
		Trick:         uint32(s.Trick) + 1,
		Leader:        uint32(s.Leader),
	}
	if s.Phase != PhaseTricks {
		v.Trick = 0
	}
	if s.Phase != PhaseOver {
		t := uint32(s.ToAct)
		v.ToAct = &t
	}
	if s.Decision == DecOption || s.Decision == DecTarget {
		v.PendingCoupon = uint32(s.Pending) + 1
	}
	if s.Decision == DecPriceCard || s.Decision == DecCombatCard || s.Decision == DecChangeBet {
		v.PendingToken = sponsiov1.Token(s.PendingToken + 1)
		v.PendingCards = uint32(s.PendingCards)
	}
	if s.Combat != NoCard {
		v.CombatCard = s.Combat.Proto()
	}
	for _, c := range s.rules.CounterValues {
		v.CounterValues = append(v.CounterValues, uint32(c))
	}
	for i := range s.rules.Coupons {
		if !s.rules.inPlay(i, int(s.Players), s.Removed) {
			continue
		}
		v.Coupons = append(v.Coupons, CouponProto(&s.rules.Coupons[i]))
		if s.Bets[i].Owner < 0 {
			v.FreeCoupons = append(v.FreeCoupons, uint32(i)+1)
		}
	}
	for t := range numTokens {
		if s.Tokens[t] < 0 {
			v.FreeTokens = append(v.FreeTokens, sponsiov1.Token(t+1))
		}
	}
	if s.Phase == PhaseTricks {
		for k := range s.Players {
			q := (s.Leader + k) % s.Players
			if s.Plays[q] != NoCard {
				v.CurrentTrick = append(v.CurrentTrick, &sponsiov1.CardPlay{Seat: uint32(q), Card: s.Plays[q].Proto()})
			}
		}
	}
	for p := range s.Players {
		st := &s.Seats[p]
		pv := &sponsiov1.PlayerView{
			Seat:          uint32(p),
			Coins:         uint32(st.Coins),
			Marker:        uint32(st.Marker),
			OpenCards:     st.Open.Protos(),
			HandSize:      uint32(st.Hand.Len()),
			StakedCoins:   uint32(st.Staked),
			Tricks:        uint32(st.Tricks),
			CapturedNines: st.Nines.Protos(),
			Taken:         st.Taken.Protos(),
			Troll:         st.Troll,
			Winner:        st.Winner,
		}
		if s.Phase == PhaseScoring || s.Phase == PhaseOver {
			pv.CoinsWon = uint32(st.Won)
		}
		if int(p) == viewer {
			pv.Hand = st.Hand.Protos()
		}
		for i := range s.Bets {
			b := &s.Bets[i]
			if b.Owner != p {
				continue
			}
			pb := &sponsiov1.Bet{Coupon: uint32(i) + 1, Double: b.Double, Result: sponsiov1.BetResult(b.Result), CoinsWon: uint32(b.CoinsWon)}
			if b.Option >= 0 {
				o := uint32(b.Option)
				pb.Option = &o
			}
			if b.Target >= 0 {
				t := uint32(b.Target)
				pb.Target = &t
			}
			pv.Bets = append(pv.Bets, pb)
		}
		for t := range numTokens {
			if s.Tokens[t] == p {
				pv.Tokens = append(pv.Tokens, sponsiov1.Token(t+1))
			}
		}
		v.Seats = append(v.Seats, pv)
	}
	return v
}

func cardText(c *sponsiov1.Card) string {
	if c == nil {
		return "-"
	}
	col, _ := colourFromProto(c.GetColour())
	return fmt.Sprintf("%s%d", strings.ToUpper(col.String()[:1]), c.GetValue())
}

func cardsText(cs []*sponsiov1.Card) string {
	if len(cs) == 0 {
		return "-"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = cardText(c)
	}
	return strings.Join(parts, " ")
}

var roman = [17]string{"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV", "XV", "XVI"}

// Render is a readable multi-line text of a view, for terminal clients. Cards read as colour
// initial and value (G9 is the green 9).
func Render(v *sponsiov1.View) string {
	var b strings.Builder
	phase := strings.TrimPrefix(v.GetPhase().String(), "PHASE_")
	fmt.Fprintf(&b, "Sponsio, round %d, dealer seat %d, %s", v.GetRound(), v.GetDealer(), strings.ToLower(phase))
	if v.ToAct != nil {
		fmt.Fprintf(&b, ", seat %d to %s", v.GetToAct(), strings.ToLower(strings.TrimPrefix(v.GetDecision().String(), "DECISION_")))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "talon: %s   free coupons:", cardsText(v.GetTalon()))
	for _, n := range v.GetFreeCoupons() {
		b.WriteString(" " + roman[n])
	}
	b.WriteString("   free tokens:")
	for _, t := range v.GetFreeTokens() {
		b.WriteString(" " + strings.ToLower(strings.TrimPrefix(t.String(), "TOKEN_")))
	}
	b.WriteString("\n")
	for _, p := range v.GetSeats() {
		me := " "
		if int32(p.GetSeat()) == v.GetViewer() {
			me = "*"
		}
		fmt.Fprintf(&b, "%sseat %d: %d coins, marker %d, tricks %d", me, p.GetSeat(), p.GetCoins(), p.GetMarker(), p.GetTricks())
		if p.GetTroll() {
			b.WriteString(", troll")
		}
		if p.GetWinner() {
			b.WriteString(", WINNER")
		}
		fmt.Fprintf(&b, "\n    open: %s", cardsText(p.GetOpenCards()))
		if len(p.GetHand()) > 0 {
			fmt.Fprintf(&b, "   hand: %s", cardsText(p.GetHand()))
		} else {
			fmt.Fprintf(&b, "   hand: %d cards", p.GetHandSize())
		}
		for _, bt := range p.GetBets() {
			fmt.Fprintf(&b, "\n    coupon %s", roman[bt.GetCoupon()])
			if bt.Option != nil {
				fmt.Fprintf(&b, " option %d", bt.GetOption())
			}
			if bt.GetDouble() {
				b.WriteString(" doubled")
			}
			if bt.Target != nil {
				fmt.Fprintf(&b, " against seat %d", bt.GetTarget())
			}
			switch bt.GetResult() {
			case sponsiov1.BetResult_BET_RESULT_WON:
				fmt.Fprintf(&b, ": won %d", bt.GetCoinsWon())
			case sponsiov1.BetResult_BET_RESULT_LOST:
				b.WriteString(": lost")
			}
		}
		if len(p.GetTokens()) > 0 {
			b.WriteString("\n    tokens:")
			for _, t := range p.GetTokens() {
				b.WriteString(" " + strings.ToLower(strings.TrimPrefix(t.String(), "TOKEN_")))
			}
		}
		b.WriteString("\n")
	}
	if len(v.GetCurrentTrick()) > 0 || v.GetPhase() == sponsiov1.Phase_PHASE_TRICKS {
		fmt.Fprintf(&b, "trick %d:", v.GetTrick())
		for _, cp := range v.GetCurrentTrick() {
			fmt.Fprintf(&b, " seat %d %s", cp.GetSeat(), cardText(cp.GetCard()))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// View implements engine.Game.
func (Game) View(s *State, viewer int) proto.Message { return s.view(viewer) }
